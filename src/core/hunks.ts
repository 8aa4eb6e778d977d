// Hunks: the unit of a decision about a change. They are read from git's unified diff of the change (the diff a
// person is shown, numbered in the order printed, from 1), and only their line ranges are used to build bytes:
// the lines of a kept hunk come from the proposal, every other line from the base, so the result is exact bytes
// whatever the file's line endings, encoding of its text, or final newline.
import { FettleError } from '../errors';
import { plural } from './plural';

export interface Hunk {
  /** from 1, in the order the diff prints them */
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** the text after the second `@@`: the enclosing function or section git found, often empty */
  header: string;
  /** lines it adds and removes */
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** The hunks of a unified diff of one file, in order. */
export const parseHunks = (diff: string): Hunk[] => {
  const hunks: Hunk[] = [];
  for (const line of diff.split('\n')) {
    const m = HUNK.exec(line);
    const last = hunks[hunks.length - 1];
    if (!m) {
      if (last && line.startsWith('+')) last.added++;
      else if (last && line.startsWith('-')) last.removed++;
      else if (last && line.startsWith('diff ')) break; // one file's diff only
      continue;
    }
    hunks.push({
      index: hunks.length + 1,
      oldStart: Number(m[1]),
      oldLines: m[2] === undefined ? 1 : Number(m[2]),
      newStart: Number(m[3]),
      newLines: m[4] === undefined ? 1 : Number(m[4]),
      header: (m[5] ?? '').trimEnd(),
      added: 0,
      removed: 0,
    });
  }
  return hunks;
};

/** The lines of `bytes`, each with its terminator (the last may have none): joined, they are the bytes again. */
export const splitLines = (bytes: Buffer): Buffer[] => {
  const lines: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, start)) {
    lines.push(bytes.subarray(start, at + 1));
    start = at + 1;
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
};

/** Where a range starts, 0-based: an empty range names the line it follows, so it starts after it. */
const from = (start: number, count: number): number => (count === 0 ? start : start - 1);

/**
 * `base` with the hunks `chosen` (by index) of the diff from `base` to `proposal` applied: the chosen hunks' lines
 * from the proposal, everything else from the base. Checks that the hunks describe these two files (the lines
 * between them agree), so a diff of other bytes can never produce a file.
 */
export const applyHunks = (base: Buffer, proposal: Buffer, hunks: Hunk[], chosen: ReadonlySet<number>): Buffer => {
  const old = splitLines(base);
  const next = splitLines(proposal);
  const out: Buffer[] = [];
  let o = 0;
  let n = 0;
  const same = (count: number) => {
    for (let k = 0; k < count; k++) {
      const a = old[o + k];
      if (!a || !next[n + k]?.equals(a)) throw mismatch();
      out.push(a);
    }
    o += count;
    n += count;
  };
  for (const h of hunks) {
    const oFrom = from(h.oldStart, h.oldLines);
    if (oFrom < o || from(h.newStart, h.newLines) - n !== oFrom - o) throw mismatch();
    same(oFrom - o);
    out.push(...(chosen.has(h.index) ? next.slice(n, n + h.newLines) : old.slice(o, o + h.oldLines)));
    o += h.oldLines;
    n += h.newLines;
  }
  if (o > old.length || n > next.length || old.length - o !== next.length - n) throw mismatch();
  same(old.length - o);
  return Buffer.concat(out);
};

const mismatch = () =>
  new FettleError('E_INTERNAL', "internal error: the change's hunks do not describe its base and proposal");

/**
 * A list of hunk numbers as a person types it (`1,3`, `1-3,5`), checked against how many there are: sorted, each
 * once. A number out of range or a malformed part is a usage error naming it.
 */
export const parseHunkList = (text: string, count: number): number[] => {
  const picked = new Set<number>();
  const bad = (why: string) =>
    new FettleError('E_USAGE', `--hunks ${JSON.stringify(text)}: ${why}`, {
      hint: `Give hunk numbers from 1 to ${count}, as \`1,3\` or \`1-3,5\` (\`fettle review <id>\` numbers them).`,
    });
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw bad(`'${part}' is not a hunk number or a range.`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a < 1 || b < a) throw bad(`'${part}' is not a range from low to high, from 1.`);
    if (b > count) throw bad(`the change has ${plural(count, 'hunk')}, so there is no hunk ${b}.`);
    for (let k = a; k <= b; k++) picked.add(k);
  }
  return [...picked].sort((x, y) => x - y);
};

/** "1, 3", "1-3, 5": indexes as a person reads them. */
export const hunkListText = (indexes: readonly number[]): string => {
  const parts: string[] = [];
  const sorted = [...indexes].sort((a, b) => a - b);
  for (let k = 0; k < sorted.length; k++) {
    const start = sorted[k] as number;
    let end = start;
    while (sorted[k + 1] === end + 1) end = sorted[++k] as number;
    parts.push(end > start + 1 ? `${start}-${end}` : end === start + 1 ? `${start}, ${end}` : `${start}`);
  }
  return parts.join(', ');
};

/** `1 of 3`: how a hunk is labelled beside its `@@` line. */
export const hunkLabel = (h: Hunk, count: number): string => `hunk ${h.index} of ${count}`;
