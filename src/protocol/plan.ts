// Planning a write: read what is on disk, diff it against the proposal (bounded), and decide.
// Nothing is written here except, when the in-process diff gives up, the two blobs git diffs instead.
import { classifyContent, countLines, type ContentKind } from '../core/content';
import { decide, type Decision } from '../core/decide';
import { countUnified, diffLines, renderUnified } from '../core/diff';
import type { DiskFile } from '../io/atomic-write';
import type { Target } from '../store/locate';
import { writeBlob } from '../store/objects';
import type { Context } from './context';
import type { SourceCounts } from './propose';

/** Lines of diff shown to the agent before the rest is cut (DESIGN §3: "capped near 200 lines"). */
export const DIFF_CAP = 200;

export interface Plan {
  target: Target;
  old: DiskFile | null;
  next: Buffer;
  kind: ContentKind;
  decision: Decision;
  /** unified diff for display (staged changes); absent for opaque content */
  diff?: { text: string; cutLines: number };
}

/**
 * `old` is what is on disk now (read by the caller); `source` replaces the line counts and the shown diff when
 * the threshold is about part of the file (a notebook cell's source).
 */
export const planWrite = async (ctx: Context, target: Target, old: DiskFile | null, next: Buffer, source?: SourceCounts): Promise<Plan> => {
  const nextKind = classifyContent(next);
  const kind: ContentKind = old ? (classifyContent(old.bytes) === 'text' ? nextKind : classifyContent(old.bytes)) : nextKind;
  if (!old || kind !== 'text' || old.bytes.equals(next)) {
    return { target, old, next, kind, decision: decide({ old: old?.bytes ?? null, next, oldKind: kind }, ctx.config) };
  }
  if (source) {
    const decision = decide({ old: old.bytes, next, oldKind: kind, counts: source }, ctx.config);
    const shown = diffLines(source.oldText, source.newText);
    return { target, old, next, kind, decision, diff: shown && renderUnified(target.treePath, shown.hunks, DIFF_CAP) };
  }
  const oldText = old.bytes.toString('utf8');
  const newText = next.toString('utf8');
  const oldLines = countLines(oldText);
  const inProcess = diffLines(oldText, newText);
  if (inProcess) {
    const decision = decide({ old: old.bytes, next, oldKind: kind, counts: { ...inProcess, oldLines } }, ctx.config);
    return { target, old, next, kind, decision, diff: renderUnified(target.treePath, inProcess.hunks, DIFF_CAP) };
  }
  const fallback = await gitDiff(target, old.bytes, next);
  const decision = decide({ old: old.bytes, next, oldKind: kind, counts: { ...countUnified(fallback), oldLines } }, ctx.config);
  return { target, old, next, kind, decision, diff: capGitDiff(target.treePath, fallback) };
};

/** git's xdiff discards lines unique to one side, so a full rewrite that stalls jsdiff takes it ~70 ms. */
const gitDiff = async (target: Target, oldBytes: Buffer, next: Buffer): Promise<string> => {
  const [a, b] = [await writeBlob(target.store, oldBytes), await writeBlob(target.store, next)];
  const { stdout } = await target.store.git.run({
    args: ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U3', a, b],
  });
  return stdout.toString('utf8');
};

const capGitDiff = (path: string, patch: string): { text: string; cutLines: number } => {
  const body = patch.split('\n').filter((l) => l !== '');
  const start = body.findIndex((l) => l.startsWith('@@'));
  const hunks = start < 0 ? [] : body.slice(start);
  const shown = hunks.slice(0, DIFF_CAP);
  return { text: [`--- a/${path}`, `+++ b/${path}`, ...shown].join('\n'), cutLines: hunks.length - shown.length };
};
