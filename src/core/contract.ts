// Contracts, pure: a plan of edits anchored on text, read from JSON (or its Markdown form, contract-markdown.ts),
// validated against the published schema (schema/contract.v1.json) and then for what a schema cannot say, and
// reduced to one canonical form whose hash every staged change records: two files that mean the same contract,
// whatever their spacing, key order or form, have the same hash, and any change to what they mean changes it.
import { createHash } from 'node:crypto';
import schema from '../../schema/contract.v1.json';
import { FettleError } from '../errors';
import { isInsideDotGit } from './dot-git';
import { compileGlob, matchesGlob, type Glob } from './glob';
import { validate, type Schema } from './json-schema';
import { jsonError } from './json-text';

/** What an edit is for and how to check it, for the reviewer and the executor: recorded, shown, never run. */
interface Instructed {
  instructions?: string | undefined;
}

export type ContractEdit = Instructed &
  (
    | { op: 'replace'; file: string; anchor: string; with: string }
    | { op: 'insert-before' | 'insert-after'; file: string; anchor: string; text: string }
    | { op: 'create'; file: string; text: string }
    | { op: 'delete'; file: string }
  );

/**
 * What `fettle apply` does when the contract's context proves insufficient (an anchor matching nothing or several
 * times, a file missing or in the way): `refuse`, with a message for a person, or `report` each failed edit as data
 * for the planner that wrote the contract to expand it. Either way nothing is staged.
 */
export type Fallback = 'refuse' | 'report';

export interface Contract {
  version: 1;
  /** for people; not part of the hash */
  title?: string | undefined;
  scope: string[];
  edits: ContractEdit[];
  /** argument lists `fettle apply --test` runs in the test tree */
  checks: string[][];
  /** not part of the hash: it changes what a failed apply answers, not what a staged one holds */
  fallback?: Fallback | undefined;
}

/** Where a contract came from, as messages name it (the path given on the command line). */
export const contractError = (source: string, what: string, hint?: string): FettleError =>
  new FettleError('E_CONTRACT', `${source} is not a valid fettle contract: ${what}.`, {
    hint:
      hint ??
      `Fix it (the format: schema/contract.v1.json in fettle's package), then try \`fettle apply --dry-run ${source}\`.`,
  });

/** `edit 3 (replace src/a.ts)`, or the document's own place for an error outside the edits. */
export const whereIn = (path: (string | number)[], doc: unknown): string => {
  if (path[0] === 'edits' && typeof path[1] === 'number') {
    const edit = (doc as { edits?: { op?: unknown; file?: unknown }[] }).edits?.[path[1]];
    const what = [edit?.op, edit?.file].filter((v) => typeof v === 'string').join(' ');
    const field = path.length > 2 ? `: "${path.slice(2).join('.')}"` : '';
    return `edit ${path[1] + 1}${what ? ` (${what})` : ''}${field}`;
  }
  if (path[0] === 'scope' && typeof path[1] === 'number') return `scope ${path[1] + 1}`;
  if (path[0] === 'checks' && typeof path[1] === 'number') return `check ${path[1] + 1}`;
  return path.length ? `"${path.join('.')}"` : 'the contract';
};

/** A contract as a JSON value (parsed from either form), checked whole; E_CONTRACT says where and what. */
export const contractFrom = (
  doc: unknown,
  source: string,
  at: (path: (string | number)[]) => string = () => '',
): Contract => {
  const error = validate(doc, schema as Schema);
  if (error) throw contractError(source, `${at(error.path)}${whereIn(error.path, doc)} ${error.message}`);
  const raw = doc as Contract;
  for (const [n, glob] of raw.scope.entries()) {
    const compiled = compileGlob(glob);
    if ('error' in compiled)
      throw contractError(
        source,
        `${at(['scope', n])}scope ${n + 1} (${JSON.stringify(glob)}) is not a glob fettle reads: ${compiled.error}`,
      );
  }
  for (const [n, edit] of raw.edits.entries())
    if (isInsideDotGit(edit.file))
      throw contractError(
        source,
        `${at(['edits', n])}${whereIn(['edits', n], raw)} is inside a .git directory, which fettle never writes`,
      );
  return {
    version: 1,
    ...(raw.title === undefined ? {} : { title: raw.title }),
    scope: [...raw.scope],
    edits: raw.edits.map(normalEdit),
    checks: (raw.checks ?? []).map((c) => [...c]),
    ...(raw.fallback === undefined ? {} : { fallback: raw.fallback }),
  };
};

/** The fields of an edit in a fixed order: the canonical form does not depend on the order they were written in. */
const normalEdit = (e: ContractEdit): ContractEdit => {
  // Only when given, so a contract without instructions hashes as it did before they existed.
  const said = e.instructions === undefined ? {} : { instructions: e.instructions };
  switch (e.op) {
    case 'replace':
      return { op: e.op, file: e.file, anchor: e.anchor, with: e.with, ...said };
    case 'insert-before':
    case 'insert-after':
      return { op: e.op, file: e.file, anchor: e.anchor, text: e.text, ...said };
    case 'create':
      return { op: e.op, file: e.file, text: e.text, ...said };
    case 'delete':
      return { op: e.op, file: e.file, ...said };
  }
};

/** A contract in its JSON form. */
export const parseContractJson = (text: string, source: string): Contract => {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw contractError(source, `it is not JSON (${jsonError(text, error)})`);
  }
  return contractFrom(doc, source);
};

/**
 * What the hash covers: the scope, the edits (their instructions included) and the checks, in a fixed order; the
 * title is for people and the fallback for a failed apply.
 */
export const canonicalContract = (c: Contract): string =>
  JSON.stringify({ version: c.version, scope: c.scope, edits: c.edits.map(normalEdit), checks: c.checks });

/** `sha256:<hex>` of the canonical form: recorded in every change the contract stages (Fettle-Contract). */
export const contractHash = (c: Contract): string =>
  `sha256:${createHash('sha256').update(canonicalContract(c), 'utf8').digest('hex')}`;

/** The edits whose file no scope glob covers: [edit index, file]. */
export const outOfScope = (c: Contract): [number, string][] => {
  const globs = c.scope.map((s) => compileGlob(s)).filter((g): g is Glob => !('error' in g));
  return c.edits.flatMap((e, n): [number, string][] =>
    globs.some((g) => matchesGlob(g, e.file)) ? [] : [[n, e.file]],
  );
};

/** The files a contract touches, each once, in the order first named. */
export const contractFiles = (c: Contract): string[] => [...new Set(c.edits.map((e) => e.file))];

/** The paragraph a staged change of `file` carries with its edits' instructions; shown in review, never run. */
export const INSTRUCTIONS_HEAD = 'Instructions for the edits of ';
export const instructionsText = (c: Contract, file: string): string | undefined => {
  const said = c.edits.flatMap((e, n) =>
    e.file === file && e.instructions?.trim() ? [`- edit ${n + 1} (${e.op}): ${e.instructions.trim()}`] : [],
  );
  return said.length === 0 ? undefined : [`${INSTRUCTIONS_HEAD}${file} (for review; never run):`, ...said].join('\n');
};
