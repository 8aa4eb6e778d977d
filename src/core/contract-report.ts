// A contract whose context proved insufficient, as data (`"fallback": "report"`): for each edit that failed, the
// file, what the edit looked for, what was found (no match, several, a missing file, a file in the way), and where
// to look (the lines most like the anchor, or the lines it matched), so the planner that wrote the contract can
// expand it without a person reading a message. Pure.
import type { EditFailure } from './anchors';
import type { Contract, ContractEdit } from './contract';

/** Why an edit cannot be applied, in the report's words. */
const FOUND: Record<EditFailure['kind'], string> = {
  none: 'no-match',
  several: 'several-matches',
  missing: 'file-missing',
  exists: 'file-exists',
};

export interface MissingContext {
  /** 1-based, as messages count edits */
  edit: number;
  op: ContractEdit['op'];
  file: string;
  found: 'no-match' | 'several-matches' | 'file-missing' | 'file-exists';
  anchor: string | null;
  /** several-matches: the lines of the first matches, and how many there are (capped at 21: "more than 20") */
  matches: { lines: number[]; count: number } | null;
  /** no-match: the lines most like the anchor, 1-based, with their text */
  nearest: { line: number; text: string }[];
  instructions: string | null;
}

export const missingContext = (contract: Contract, failures: readonly EditFailure[]): MissingContext[] =>
  failures.map((f) => {
    const edit = contract.edits[f.edit] as ContractEdit;
    return {
      edit: f.edit + 1,
      op: f.op,
      file: f.file,
      found: FOUND[f.kind] as MissingContext['found'],
      anchor: 'anchor' in edit ? edit.anchor : null,
      matches: f.matches ?? null,
      nearest: (f.nearest ?? []).map((n) => ({ line: n.line, text: n.text })),
      instructions: edit.instructions ?? null,
    };
  });
