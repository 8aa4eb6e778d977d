// The parser of Codex CLI's `apply_patch` format, as Codex 0.169 reads it (its apply-patch crate: parser.rs), for
// codex-patch.ts to apply. Pure. A patch Codex would refuse is reported with Codex's own reason.
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
