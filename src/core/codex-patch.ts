// Codex CLI's `apply_patch` format, parsed and applied exactly as Codex 0.169 does (its apply-patch crate:
// parser.rs, seek_sequence.rs, file_update.rs, text_file.rs), so that fettle can tell the bytes a patch will
// leave before Codex writes them. Pure: the caller reads the files and hands their bytes in. Anything this
// module cannot reproduce for certain is reported as `unsure`, never guessed (the caller records the previous
// bytes and lets Codex write). The parser is codex-patch-parse.ts; this applies what it reads.
import { isUtf8 } from 'node:buffer';
import { type Chunk, type Hunk, rustTrim, rustTrimEnd } from './codex-patch-parse';

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
