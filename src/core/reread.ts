// What a re-read of a file costs the model: compared with the bytes this session was last given for it (its
// baseline), an unchanged file is one line, a changed one a unified diff against the baseline, unless the diff
// would be dearer or harder to follow than the file (the gate), when the file is sent with a line saying why.
// Bytes are compared, never times: "unchanged" is said only of identical bytes.
import type { StructuredPatchHunk } from 'diff';
import { classifyContent, countLines } from './content';
import { diffLines, renderUnified } from './diff';
import { plural } from './plural';

/** Files larger than this are always sent whole. */
export const REREAD_MAX_BYTES = 100 * 1024;
/** The gate: more hunks than this, a larger share of lines changed, or more than SPREAD_HUNKS over SPREAD_LINES. */
export const GATE = { hunks: 6, share: 0.4, spreadHunks: 3, spreadLines: 200 } as const;
const DIFF_MS = 300;

/** Lines `offset` to `offset + limit - 1` (1-based): what a partial read showed. */
export interface LineWindow {
  offset: number;
  limit: number;
}

export interface RereadInput {
  path: string;
  /** what this session was last given of the file; null: nothing yet */
  baseline: Buffer | null;
  now: Buffer;
  /** absent: the whole file */
  window?: LineWindow;
  /** when the baseline was given, as the model is told it ("turn 3", "06:41 UTC") */
  seenAt: string;
}

export type Reread =
  | { kind: 'first' }
  | { kind: 'unchanged'; text: string }
  /** `summary`: the diff's first line alone, for a client that is sent the file anyway */
  | { kind: 'diff'; text: string; summary: string }
  | { kind: 'full'; reason: string };

const windowText = (w: LineWindow | undefined): string => (w ? `lines ${w.offset}-${w.offset + w.limit - 1} of ` : '');

/** The lines of a window, compared by number: whether a partial view is still what the file holds there. */
const sameWindow = (a: string, b: string, w: LineWindow): boolean => {
  const pick = (t: string) => t.split('\n').slice(w.offset - 1, w.offset - 1 + w.limit);
  const [x, y] = [pick(a), pick(b)];
  return x.length === y.length && x.every((line, i) => line === y[i]);
};

/** The nearest line above a hunk that starts a definition, as git's default funcname rule finds one. */
const sectionOf = (lines: string[], start: number): string | undefined => {
  for (let i = Math.min(start, lines.length) - 1; i >= 0 && i >= start - 400; i--) {
    const line = lines[i] ?? '';
    if (/^[A-Za-z_$]/.test(line)) return line.length > 48 ? `${line.slice(0, 47)}…` : line;
  }
  return undefined;
};

const summary = (hunks: StructuredPatchHunk[], added: number, removed: number, now: string): string => {
  const lines = now.split('\n');
  const places = hunks.slice(0, 4).map((h) => {
    const lead = h.lines.findIndex((l) => l[0] !== ' ');
    const at = h.newStart + Math.max(0, lead);
    const section = sectionOf(lines, at - 1);
    return section ? `line ${at} (${section})` : `line ${at}`;
  });
  const more = hunks.length > 4 ? `, ${hunks.length - 4} more` : '';
  return `${plural(hunks.length, 'hunk')}, +${added} -${removed}: ${places.join(', ')}${more}`;
};

/** Why the diff is not sent, or undefined when it may be. */
const gate = (hunks: StructuredPatchHunk[], changed: number, total: number): string | undefined => {
  if (hunks.length > GATE.hunks) return `${hunks.length} hunks (more than ${GATE.hunks})`;
  if (total > 0 && changed / total > GATE.share)
    return `${Math.round((100 * changed) / total)} % of its lines changed (more than ${GATE.share * 100} %)`;
  const first = hunks[0];
  const last = hunks[hunks.length - 1];
  const spread = first && last ? last.newStart + last.newLines - first.newStart : 0;
  if (hunks.length > GATE.spreadHunks && spread > GATE.spreadLines)
    return `${hunks.length} hunks spread over ${spread} lines`;
  return undefined;
};

const changedWhole = (input: RereadInput, before: string, now: string): Reread => {
  const d = diffLines(before, now, DIFF_MS);
  if (!d) return { kind: 'full', reason: 'the change is too large to diff quickly' };
  const total = Math.max(countLines(before), countLines(now));
  const why = gate(d.hunks, Math.max(d.added, d.removed), total);
  if (why) return { kind: 'full', reason: `changed since your read at ${input.seenAt}: ${why}` };
  const body = renderUnified(input.path, d.hunks, Number.MAX_SAFE_INTEGER).text;
  const head = `${input.path} changed since your read at ${input.seenAt}; ${summary(d.hunks, d.added, d.removed, now)}.`;
  const text = `${head} The diff against what you read:\n${body}`;
  if (Buffer.byteLength(text) >= input.now.length)
    return { kind: 'full', reason: `changed since your read at ${input.seenAt}: the diff is larger than the file` };
  return { kind: 'diff', text, summary: head };
};

export const decideReread = (input: RereadInput): Reread => {
  const { baseline, now, window } = input;
  if (baseline === null) return { kind: 'first' };
  if (now.length > REREAD_MAX_BYTES || baseline.length > REREAD_MAX_BYTES)
    return { kind: 'full', reason: `files over ${REREAD_MAX_BYTES / 1024} KB are read in full` };
  if (classifyContent(now) !== 'text' || classifyContent(baseline) !== 'text')
    return { kind: 'full', reason: 'not text: read in full' };
  const unchanged = (): Reread => ({
    kind: 'unchanged',
    text: `${windowText(window)}${input.path} unchanged since your read at ${input.seenAt}.`,
  });
  if (baseline.equals(now)) return unchanged();
  const [before, after] = [baseline.toString('utf8'), now.toString('utf8')];
  if (window)
    return sameWindow(before, after, window)
      ? unchanged()
      : { kind: 'full', reason: `changed since your read at ${input.seenAt}` };
  return changedWhole(input, before, after);
};
