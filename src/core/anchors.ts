// The contract executor's planner, pure: a contract's edits applied in memory, in order, to the bytes of the files
// it names, each anchor required to occur exactly once in the file as the edits before it left it. Matching is on
// bytes, never through a decoded string: the anchor and the text are encoded as the file is (UTF-16LE when it
// starts with that BOM, else UTF-8, and a match in UTF-16 must fall on a character), so bytes outside the edits
// stay as they were, whatever they are. A file in CRLF style (core/text-file.ts: CRLF pairs outnumber bare LFs)
// gets its line breaks in the anchor and the text as CRLF: a bare "\n" is matched and written as "\r\n", so a CRLF
// file stays CRLF and a contract need not know. A "\r\n" written in the contract is taken as it is. A new file is
// written as the contract gives its text (UTF-8).
import type { Contract, ContractEdit } from './contract';
import { isCrlfStyle } from './text-file';

interface Style {
  encoding: 'utf8' | 'utf16le';
  /** a match must start at a multiple of this (2 in UTF-16) */
  step: 1 | 2;
  crlf: boolean;
}

const styleOf = (bytes: Buffer): Style => {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe && bytes.length % 2 === 0)
    return { encoding: 'utf16le', step: 2, crlf: isCrlfStyle(bytes.subarray(0, 16384).toString('utf16le')) };
  return { encoding: 'utf8', step: 1, crlf: isCrlfStyle(bytes.subarray(0, 16384).toString('utf8')) };
};

/** `text` as the file writes it: its line-break style, its encoding. */
const encodeAs = (text: string, style: Style): Buffer =>
  Buffer.from(style.crlf ? text.replace(/(?<!\r)\n/g, '\r\n') : text, style.encoding);

/** Where `needle` occurs in `hay`, overlapping occurrences included; stops past `limit`. */
const occurrences = (hay: Buffer, needle: Buffer, step: number, limit = 20): number[] => {
  const at: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1 && at.length <= limit; i = hay.indexOf(needle, i + 1))
    if (i % step === 0) at.push(i);
  return at;
};

/** The 1-based line a byte offset is on. */
const lineAt = (bytes: Buffer, offset: number, style: Style): number => {
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1))
    if (style.step === 1 || (i % 2 === 0 && bytes[i + 1] === 0)) line++;
  return line;
};

/** Similarity of two short strings, 0 to 1: shared character pairs (Dice's coefficient). */
const similarity = (a: string, b: string): number => {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) pairs.set(a.slice(i, i + 2), (pairs.get(a.slice(i, i + 2)) ?? 0) + 1);
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const n = pairs.get(b.slice(i, i + 2)) ?? 0;
    if (n > 0) {
      shared++;
      pairs.set(b.slice(i, i + 2), n - 1);
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
};

/** Lines scanned for near matches, and how much of each is compared: the report stays cheap on any file. */
const NEAR_MAX_LINES = 100_000;
const NEAR_LINE_CHARS = 300;

const squeezed = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The anchor's line that `text` equals but for whitespace (a trailing space, a tab for spaces), if one does. */
const whitespaceTwin = (anchorLines: string[], text: string): string | undefined =>
  anchorLines.find((a) => a !== text && squeezed(a) !== '' && squeezed(a) === squeezed(text));

export interface NearLine {
  line: number;
  text: string;
  /** the anchor's line this one equals but for whitespace, which a person cannot see printed plainly */
  anchorLine?: string;
}

/** The file's lines most like the anchor's most telling line, with their numbers, for a person to fix it. */
export const nearestLines = (bytes: Buffer, anchor: string, style: Style): NearLine[] => {
  const anchorLines = anchor.split('\n').map((l) => l.replace(/\r$/, ''));
  const probe = anchorLines.map((l) => l.trim()).sort((a, b) => b.length - a.length)[0];
  if (!probe) return [];
  const lines = bytes.toString(style.encoding).split('\n').slice(0, NEAR_MAX_LINES);
  const scored = lines
    .map((raw, n) => {
      const text = raw.replace(/\r$/, '').replace(/^\uFEFF/, '');
      return {
        line: n + 1,
        text,
        score: similarity(probe.slice(0, NEAR_LINE_CHARS), text.trim().slice(0, NEAR_LINE_CHARS)),
      };
    })
    .filter((s) => s.score >= 0.4)
    .sort((a, b) => b.score - a.score || a.line - b.line)
    .slice(0, 3);
  return scored.map(({ line, text }) => {
    const twin = whitespaceTwin(anchorLines, text);
    const shown = { line, text: text.length > 160 ? `${text.slice(0, 160)}…` : text };
    return twin === undefined ? shown : { ...shown, anchorLine: twin };
  });
};

export type FailureKind = 'none' | 'several' | 'missing' | 'exists';

export interface EditFailure {
  /** 0-based index of the edit in the contract */
  edit: number;
  op: ContractEdit['op'];
  file: string;
  kind: FailureKind;
  /** `several`: the lines of the matches (the first ones) and how many there are */
  matches?: { lines: number[]; count: number } | undefined;
  /** `none`: the lines most like the anchor */
  nearest?: NearLine[] | undefined;
}

export interface FileResult {
  file: string;
  /** the bytes the file has now and will have (null: absent) */
  before: Buffer | null;
  after: Buffer | null;
}

export interface ContractPlan {
  /** every file whose bytes the contract changes, in the order first named */
  changed: FileResult[];
  /** every edit that cannot be applied: the whole contract fails; one per file at most (the first) */
  failures: EditFailure[];
}

/** Applies one edit to a file's bytes as they stand (null: absent), or says why it cannot be applied. */
const applyEdit = (
  bytes: Buffer | null,
  e: ContractEdit,
  n: number,
): { bytes: Buffer | null } | { failure: EditFailure } => {
  const failure = (kind: FailureKind, more: Partial<EditFailure> = {}) => ({
    failure: { edit: n, op: e.op, file: e.file, kind, ...more },
  });
  if (e.op === 'create') return bytes === null ? { bytes: Buffer.from(e.text, 'utf8') } : failure('exists');
  if (bytes === null) return failure('missing');
  if (e.op === 'delete') return { bytes: null };
  const style = styleOf(bytes);
  const anchor = encodeAs(e.anchor, style);
  const at = occurrences(bytes, anchor, style.step);
  if (at.length === 0) return failure('none', { nearest: nearestLines(bytes, e.anchor, style) });
  if (at.length > 1) {
    return failure('several', {
      matches: { lines: at.slice(0, 10).map((o) => lineAt(bytes, o, style)), count: at.length },
    });
  }
  const start = at[0] as number;
  const end = start + anchor.length;
  if (e.op === 'replace')
    return { bytes: Buffer.concat([bytes.subarray(0, start), encodeAs(e.with, style), bytes.subarray(end)]) };
  const text = encodeAs(e.text, style);
  const cut = e.op === 'insert-before' ? start : end;
  return { bytes: Buffer.concat([bytes.subarray(0, cut), text, bytes.subarray(cut)]) };
};

/**
 * The contract applied to `files` (each file it names, at its bytes now; null: absent): the files it changes, or
 * the edits that fail. A file's edits stop at its first failure (the ones after it were written for bytes that
 * edit would have made); other files are still tried, so one report names every file to fix.
 */
export const planContract = (contract: Contract, files: ReadonlyMap<string, Buffer | null>): ContractPlan => {
  const now = new Map(files);
  const failed = new Set<string>();
  const failures: EditFailure[] = [];
  for (const [n, e] of contract.edits.entries()) {
    if (failed.has(e.file)) continue;
    const result = applyEdit(now.get(e.file) ?? null, e, n);
    if ('failure' in result) {
      failures.push(result.failure);
      failed.add(e.file);
    } else now.set(e.file, result.bytes);
  }
  const changed: FileResult[] = [];
  for (const file of new Set(contract.edits.map((e) => e.file))) {
    const before = files.get(file) ?? null;
    const after = now.get(file) ?? null;
    const same = before === null || after === null ? before === after : before.equals(after);
    if (!same) changed.push({ file, before, after });
  }
  return { changed: failures.length > 0 ? [] : changed, failures };
};

/**
 * The anchor's first line that is not blank, quoted: whitespace stays as it is (a trailing space shows before the
 * closing quote, a tab as \\t), since it is often why an anchor matches nothing.
 */
const preview = (text: string): string => {
  const first = (text.split('\n').find((l) => l.trim() !== '') ?? text).replace(/\r$/, '');
  return JSON.stringify(first.length > 60 ? `${first.slice(0, 60)}…` : first);
};

/** Where two lines equal but for whitespace differ: at the start, inside, at the end. */
const whitespaceWhere = (a: string, b: string): string => {
  const lead = (s: string) => /^\s*/.exec(s)?.[0] ?? '';
  const trail = (s: string) => /\s*$/.exec(s)?.[0] ?? '';
  const where = [
    lead(a) === lead(b) ? '' : 'at the start',
    a.trim() === b.trim() ? '' : 'inside',
    trail(a) === trail(b) ? '' : 'at the end',
  ].filter(Boolean);
  return where.join(', ');
};

/** A nearest line, quoted as the anchor is, and said outright when only whitespace tells it from the anchor's. */
const nearText = (l: NearLine): string => {
  const line = `    line ${l.line}: ${JSON.stringify(l.text)}`;
  if (l.anchorLine === undefined) return line;
  return `${line}, which differs only in whitespace (${whitespaceWhere(l.anchorLine, l.text)}) from the anchor's ${JSON.stringify(l.anchorLine)}`;
};

/** One failure, in words for the person who fixes the contract: the edit, the file, and where to look. */
export const failureText = (f: EditFailure, contract: Contract): string => {
  const edit = contract.edits[f.edit] as ContractEdit;
  const head = `edit ${f.edit + 1} (${f.op} ${f.file})`;
  const anchor = 'anchor' in edit ? `the anchor ${preview(edit.anchor)}` : '';
  switch (f.kind) {
    case 'missing':
      return `${head}: ${f.file} does not exist (at this point of the contract).`;
    case 'exists':
      return `${head}: ${f.file} already exists; change it with replace or insert edits, or delete it first.`;
    case 'several': {
      const m = f.matches as { lines: number[]; count: number };
      const more = m.count > m.lines.length ? ', …' : '';
      const count = m.count > 20 ? 'more than 20 times' : `${m.count} times`;
      return `${head}: ${anchor} matches ${count} (lines ${m.lines.join(', ')}${more}); it must match exactly once. Make it longer, so it names one place.`;
    }
    case 'none': {
      const near = f.nearest ?? [];
      if (near.length === 0) return `${head}: ${anchor} matches nothing, and no line is close to it.`;
      return [`${head}: ${anchor} matches nothing. Nearest lines:`, ...near.map(nearText)].join('\n');
    }
  }
};
