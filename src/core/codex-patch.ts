// Codex CLI's `apply_patch` format, parsed and applied exactly as Codex 0.169 does (its apply-patch crate:
// parser.rs, seek_sequence.rs, file_update.rs, text_file.rs), so that fettle can tell the bytes a patch will
// leave before Codex writes them. Pure: the caller reads the files and hands their bytes in. Anything this
// module cannot reproduce for certain is reported as `unsure`, never guessed (the caller records the previous
// bytes and lets Codex write).
import { isUtf8 } from 'node:buffer';

export interface Chunk {
  /** the `@@ <context>` line that narrows where the chunk applies */
  context: string | undefined;
  oldLines: string[];
  newLines: string[];
  /** indices [old, new] of the lines that are context (in both sides): they keep their bytes on disk */
  contextAt: [number, number][];
  endOfFile: boolean;
}

export type Hunk =
  | { op: 'add'; path: string; contents: string }
  | { op: 'delete'; path: string }
  | { op: 'update'; path: string; moveTo: string | undefined; chunks: Chunk[] };

// Rust's char::is_whitespace (Unicode White_Space): JavaScript's \s without U+FEFF, plus U+0085.
const WS = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);
export const rustTrimEnd = (s: string): string => s.replace(TRAILING, '');
export const rustTrim = (s: string): string => rustTrimEnd(s).replace(LEADING, '');

/** Rust's str::lines(): split at \n, a \r before it dropped; no empty last line for a final \n. */
const rustLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (text.endsWith('\n')) lines.pop();
  return lines;
};

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARKER = '*** End of File';

export type Parsed = { ok: true; hunks: Hunk[] } | { ok: false; why: string };

const bounded = (lines: string[]): string[] | null => {
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (first === undefined || last === undefined || lines.length < 2) return null;
  return rustTrim(first) === BEGIN && rustTrim(last) === END ? lines.slice(1, -1) : null;
};

/** The hunks of a patch, or why Codex would refuse it (lenient mode: a heredoc wrapper is accepted). */
export const parsePatch = (patch: string): Parsed => {
  const lines = rustLines(rustTrim(patch));
  let body = bounded(lines);
  const [first, last] = [lines[0], lines[lines.length - 1]];
  if (!body && lines.length >= 4 && ['<<EOF', "<<'EOF'", '<<"EOF"'].includes(first ?? '') && last?.endsWith('EOF'))
    body = bounded(lines.slice(1, -1));
  if (!body) return { ok: false, why: 'the patch does not start with *** Begin Patch and end with *** End Patch' };
  const hunks: Hunk[] = [];
  let at = 0;
  while (at < body.length) {
    const parsed = parseHunk(body, at);
    if (typeof parsed === 'string') return { ok: false, why: parsed };
    hunks.push(parsed.hunk);
    at = parsed.next;
  }
  return { ok: true, hunks };
};

const parseHunk = (lines: string[], at: number): { hunk: Hunk; next: number } | string => {
  const header = rustTrim(lines[at] as string);
  if (header.startsWith(ADD)) {
    let contents = '';
    let i = at + 1;
    for (; i < lines.length && (lines[i] as string).startsWith('+'); i++)
      contents += `${(lines[i] as string).slice(1)}\n`;
    return { hunk: { op: 'add', path: header.slice(ADD.length), contents }, next: i };
  }
  if (header.startsWith(DELETE)) return { hunk: { op: 'delete', path: header.slice(DELETE.length) }, next: at + 1 };
  if (!header.startsWith(UPDATE)) return `'${header}' is not a valid hunk header`;
  const path = header.slice(UPDATE.length);
  let i = at + 1;
  const move = lines[i]?.startsWith(MOVE) ? (lines[i] as string).slice(MOVE.length) : undefined;
  if (move !== undefined) i++;
  const chunks: Chunk[] = [];
  while (i < lines.length) {
    const line = lines[i] as string;
    if (rustTrim(line) === '') {
      i++;
      continue;
    }
    if (line.startsWith('*')) break;
    const chunk = parseChunk(lines, i, chunks.length === 0);
    if (typeof chunk === 'string') return chunk;
    chunks.push(chunk.chunk);
    i = chunk.next;
  }
  if (chunks.length === 0) return `Update file hunk for path '${path}' is empty`;
  return { hunk: { op: 'update', path, moveTo: move, chunks }, next: i };
};

const parseChunk = (lines: string[], at: number, firstChunk: boolean): { chunk: Chunk; next: number } | string => {
  const head = lines[at] as string;
  let context: string | undefined;
  let i = at;
  if (head === '@@') i++;
  else if (head.startsWith('@@ ')) {
    context = head.slice(3);
    i++;
  } else if (!firstChunk) return `Expected update hunk to start with a @@ context marker, got: '${head}'`;
  if (i >= lines.length) return 'Update hunk does not contain any lines';
  const chunk: Chunk = { context, oldLines: [], newLines: [], contextAt: [], endOfFile: false };
  let parsed = 0;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === EOF_MARKER) {
      if (parsed === 0) return 'Update hunk does not contain any lines';
      chunk.endOfFile = true;
      i++;
      break;
    }
    const sign = line[0];
    if (sign === undefined || sign === ' ') {
      chunk.contextAt.push([chunk.oldLines.length, chunk.newLines.length]);
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (sign === '+') chunk.newLines.push(line.slice(1));
    else if (sign === '-') chunk.oldLines.push(line.slice(1));
    else if (parsed === 0) return `Unexpected line found in update hunk: '${line}'`;
    else break;
    parsed++;
  }
  return { chunk, next: i };
};

const normalise = (s: string): string =>
  [...rustTrim(s)]
    .map((c) => {
      if (/[\u2010-\u2015\u2212]/.test(c)) return '-';
      if (/[\u2018-\u201b]/.test(c)) return "'";
      if (/[\u201c-\u201f]/.test(c)) return '"';
      if (/[\u00a0\u2002-\u200a\u202f\u205f\u3000]/.test(c)) return ' ';
      return c;
    })
    .join('');

/** seek_sequence: `pattern` in `lines` at or after `start`, exactly, then ignoring trailing, then all outer
 * whitespace, then with typographic punctuation read as ASCII; from the end first when `eof`. */
export const seekSequence = (lines: string[], pattern: string[], start: number, eof: boolean): number | undefined => {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return undefined;
  const from = eof ? lines.length - pattern.length : start;
  const passes: ((s: string) => string)[] = [(s) => s, rustTrimEnd, rustTrim, normalise];
  for (const norm of passes) {
    for (let i = from; i <= lines.length - pattern.length; i++)
      if (pattern.every((p, k) => norm(lines[i + k] as string) === norm(p))) return i;
  }
  return undefined;
};

interface SourceLine {
  text: string;
  ending: '\n' | '\r\n' | undefined;
}

/** text_file.rs: lines with their own endings; new lines take the first line ending the file has. */
const parseSource = (contents: string): { lines: SourceLine[]; preferred: '\n' | '\r\n' } => {
  const lines: SourceLine[] = [];
  let preferred: '\n' | '\r\n' | undefined;
  let start = 0;
  for (let nl = contents.indexOf('\n'); nl !== -1; nl = contents.indexOf('\n', start)) {
    const line = contents.slice(start, nl);
    const crlf = line.endsWith('\r');
    const ending = crlf ? '\r\n' : '\n';
    preferred ??= ending;
    lines.push({ text: crlf ? line.slice(0, -1) : line, ending });
    start = nl + 1;
  }
  if (start < contents.length) lines.push({ text: contents.slice(start), ending: undefined });
  return { lines, preferred: preferred ?? '\n' };
};

type Replacement = [start: number, oldLength: number, lines: string[]];

const replacementsFor = (original: string[], chunks: Chunk[]): Replacement[] | string => {
  const out: Replacement[] = [];
  let index = 0;
  for (const chunk of chunks) {
    if (chunk.context !== undefined) {
      const found = seekSequence(original, [chunk.context], index, false);
      if (found === undefined) return `Failed to find context '${chunk.context}'`;
      index = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      out.push([original.length, 0, chunk.newLines]);
      continue;
    }
    let pattern = chunk.oldLines;
    let next = chunk.newLines;
    let found = seekSequence(original, pattern, index, chunk.endOfFile);
    if (found === undefined && pattern[pattern.length - 1] === '') {
      pattern = pattern.slice(0, -1);
      if (next[next.length - 1] === '') next = next.slice(0, -1);
      found = seekSequence(original, pattern, index, chunk.endOfFile);
    }
    if (found === undefined) return `Failed to find expected lines:\n${chunk.oldLines.join('\n')}`;
    // Context lines stay as they are on disk (their bytes and line endings); only the lines between change.
    let oldStart = 0;
    let newStart = 0;
    for (const [oldAt, newAt] of chunk.contextAt) {
      if (oldAt >= pattern.length || newAt >= next.length) break;
      if (oldStart !== oldAt || newStart !== newAt)
        out.push([found + oldStart, oldAt - oldStart, next.slice(newStart, newAt)]);
      oldStart = oldAt + 1;
      newStart = newAt + 1;
    }
    if (oldStart !== pattern.length || newStart !== next.length)
      out.push([found + oldStart, pattern.length - oldStart, next.slice(newStart)]);
    index = found + pattern.length;
  }
  return out.sort((a, b) => a[0] - b[0]);
};

/** The text of a file after the chunks of an Update hunk, or why Codex would fail to apply them. */
export const applyChunks = (
  contents: string,
  chunks: Chunk[],
): { ok: true; text: string } | { ok: false; why: string; unsure?: true } => {
  const source = parseSource(contents);
  const replacements = replacementsFor(
    source.lines.map((l) => l.text),
    chunks,
  );
  if (typeof replacements === 'string') return { ok: false, why: replacements };
  const next: SourceLine[] = [];
  let at = 0;
  for (const [start, length, lines] of replacements) {
    // Two chunks on one region: Codex's own arithmetic wraps there; not reproduced.
    if (start < at) return { ok: false, why: 'two chunks of the patch overlap', unsure: true };
    next.push(...source.lines.slice(at, start));
    at = start + length;
    next.push(...lines.map((text) => ({ text, ending: source.preferred })));
  }
  next.push(...source.lines.slice(at));
  return { ok: true, text: next.map((l) => l.text + (l.ending ?? source.preferred)).join('') };
};

/** A file a patch touches: the path as the patch spells it, and what it does to it. */
export type PatchEffect = { path: string; next: Buffer | null };

export type Applied = { ok: true; files: PatchEffect[] } | { ok: false; why: string; unsure?: boolean };

/** Every path a patch touches, in order (a move's source, then its destination). */
export const touchedPaths = (hunks: Hunk[]): string[] =>
  hunks.flatMap((h) => (h.op === 'update' && h.moveTo !== undefined ? [h.path, h.moveTo] : [h.path]));

/**
 * The bytes each touched file holds after the patch (null: removed), given their bytes now (`read`, by the path
 * as the patch spells it; null: no file). The patch must name each file once: Codex verifies every hunk against
 * the files as they are and then applies the hunks in order, which differ when one file is named twice.
 */
export const applyPatch = (hunks: Hunk[], read: (path: string) => Buffer | null): Applied => {
  if (hunks.length === 0) return { ok: false, why: 'the patch has no file operations' };
  const paths = touchedPaths(hunks);
  if (new Set(paths).size !== paths.length)
    return { ok: false, why: 'the patch names a file more than once', unsure: true };
  const files: PatchEffect[] = [];
  for (const hunk of hunks) {
    if (hunk.op === 'add') {
      files.push({ path: hunk.path, next: Buffer.from(hunk.contents, 'utf8') });
      continue;
    }
    const old = read(hunk.path);
    if (old === null) return { ok: false, why: `${hunk.path} does not exist` };
    if (hunk.op === 'delete') {
      files.push({ path: hunk.path, next: null });
      continue;
    }
    if (!isUtf8(old)) return { ok: false, why: `${hunk.path} is not UTF-8 text` };
    const applied = applyChunks(old.toString('utf8'), hunk.chunks);
    if (!applied.ok) return { ...applied, why: `${applied.why} in ${hunk.path}` };
    const bytes = Buffer.from(applied.text, 'utf8');
    if (hunk.moveTo === undefined) files.push({ path: hunk.path, next: bytes });
    else files.push({ path: hunk.path, next: null }, { path: hunk.moveTo, next: bytes });
  }
  return { ok: true, files };
};
