// Who wrote each line: origins carried line by line through a file's successive contents. A line keeps its origin
// while it stays equal; a line a step inserts or rewrites takes that step's origin (or none: edits fettle did not
// record). Lines compare as bytes (latin1 maps each byte to one code unit), never through a text decoding.
import { diffArrays } from 'diff';

/** The agent call a line came from, as its record names it. */
export interface AgentOrigin {
  agent: string;
  session?: string | undefined;
  turn?: number | undefined;
  tool?: string | undefined;
  /** the id of the change that wrote the line */
  change: string;
}

/** A file's lines as byte strings; a final newline ends the last line, it does not start another. */
export const linesOf = (bytes: Buffer | null): string[] => {
  if (!bytes || bytes.length === 0) return [];
  const text = bytes.toString('latin1');
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
};

/**
 * The origins of `to`'s lines, carried from `from`'s: equal lines keep theirs, the others take `fill`. Common
 * ends are matched first, so a small edit to a long file diffs only its middle.
 */
export const carry = <T>(
  from: readonly string[],
  origins: readonly (T | null)[],
  to: readonly string[],
  fill: T | null,
): (T | null)[] => {
  let head = 0;
  while (head < from.length && head < to.length && from[head] === to[head]) head++;
  let tail = 0;
  while (
    tail < from.length - head &&
    tail < to.length - head &&
    from[from.length - 1 - tail] === to[to.length - 1 - tail]
  )
    tail++;
  const out: (T | null)[] = origins.slice(0, head);
  const middle = diffArrays(from.slice(head, from.length - tail), to.slice(head, to.length - tail));
  let i = head;
  for (const part of middle) {
    const n = part.count ?? part.value.length;
    if (part.removed) i += n;
    else if (part.added) for (let k = 0; k < n; k++) out.push(fill);
    else for (let k = 0; k < n; k++) out.push(origins[i++] ?? null);
  }
  for (let k = from.length - tail; k < from.length; k++) out.push(origins[k] ?? null);
  return out;
};

/** One recorded change of a file: what it replaced, what it wrote, and who. */
export interface Step<T> {
  before: string[];
  after: string[];
  origin: T | null;
}

/**
 * The origins of `final`'s lines after `steps`, oldest first. Bytes that differ from what the previous step left
 * (edits made outside fettle) carry no origin; neither do lines older than the first step.
 */
export const walkSteps = <T>(steps: readonly Step<T>[], final: readonly string[]): (T | null)[] => {
  let current: readonly string[] = steps[0]?.before ?? [];
  let origins: (T | null)[] = current.map(() => null);
  for (const step of steps) {
    origins = carry(current, origins, step.before, null);
    origins = carry(step.before, origins, step.after, step.origin);
    current = step.after;
  }
  return carry(current, origins, final, null);
};

/** The 0-based indexes of the lines of `lines` that are not in `parent` (what a commit added). */
export const addedLines = (parent: readonly string[], lines: readonly string[]): number[] => {
  const marks = carry<boolean>(
    parent,
    parent.map(() => false),
    lines,
    true,
  );
  const out: number[] = [];
  marks.forEach((m, i) => {
    if (m === true) out.push(i);
  });
  return out;
};

/** 1-based line numbers as inclusive ranges, in order: [1,2,3,7] -> [[1,3],[7,7]]. */
export const toRanges = (numbers: readonly number[]): [number, number][] => {
  const out: [number, number][] = [];
  for (const n of [...numbers].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else if (!last || n > last[1]) out.push([n, n]);
  }
  return out;
};

/** Two origins name the same agent call (the same change). */
export const sameOrigin = (a: AgentOrigin, b: AgentOrigin): boolean =>
  a.change === b.change && a.agent === b.agent && a.session === b.session && a.turn === b.turn && a.tool === b.tool;
