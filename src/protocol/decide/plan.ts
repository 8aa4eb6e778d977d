// Planning a write: read what is on disk, diff it against the proposal (bounded), and decide.
// Nothing is written here except, when the in-process diff gives up, the two blobs git diffs instead.
import { classifyContent, countLinesIn, type ContentKind } from '../../core/content';
import { decide, type Decision, type Thresholds } from '../../core/decide';
import { diffLines, renderUnified, unifiedScanner, type ScannedPatch } from '../../core/diff';
import type { DiskFile } from '../../io/atomic-write';
import type { Target } from '../../store/store';
import { writeBlobs } from '../../store/objects';
import type { Context } from '../context';
import type { PathPolicy } from './policy';
import type { SourceCounts } from './predict';

/** Combined size of the two versions above which the diff is left to git. */
export const IN_PROCESS_DIFF_BYTES = 512 * 1024;

/** Lines of diff shown to the agent before the rest is cut (the agent-facing contract: "capped near 200 lines"). */
export const DIFF_CAP = 200;

export interface Plan {
  target: Target;
  old: DiskFile | null;
  next: Buffer;
  kind: ContentKind;
  decision: Decision;
  /** unified diff for display (staged changes); absent for opaque content */
  diff?: { text: string; cutLines: number };
  /** blobs already written (for git to diff them), so that recording does not hash megabytes again */
  stored?: { old: string; next: string };
  /** the policy rule that decided it (stage, direct, thresholds), when one did */
  policy?: PathPolicy | undefined;
  /** what its record says beyond its fields (a `run` rule's failed command) */
  note?: string | undefined;
}

export interface PlanOptions {
  /** replaces the line counts and the shown diff when the threshold is about part of the file (a notebook cell) */
  source?: SourceCounts | undefined;
  /** the path's policy: a `stage` or `direct` rule forces the tier, a `thresholds` rule sets the thresholds */
  policy?: PathPolicy | undefined;
}

/** A new file a `stage` rule holds: all its lines are added, and shown. */
const newFileCounts = (target: Target, next: Buffer) => {
  const counts = { added: countLinesIn(next), removed: 0, oldLines: 0, modified: 0 };
  const d = next.length <= IN_PROCESS_DIFF_BYTES ? diffLines('', next.toString('utf8')) : undefined;
  return { counts, diff: d && renderUnified(target.treePath, d.hunks, DIFF_CAP) };
};

/** `old` is what is on disk now (read by the caller). */
export const planWrite = async (
  ctx: Context,
  target: Target,
  old: DiskFile | null,
  next: Buffer,
  o: PlanOptions = {},
): Promise<Plan> => {
  const { source, policy } = o;
  const kinds = policy?.effect.kind;
  const force = kinds === 'stage' ? 'stage' : kinds === 'direct' ? 'direct' : undefined;
  const t = policy?.thresholds ?? ctx.config;
  const decided = force || kinds === 'thresholds' ? { policy } : {};
  // Counts from the predictor (a notebook's cells, a UTF-16 file's decoded lines) mean text, whatever the bytes.
  const oldKind = old ? (source ? 'text' : classifyContent(old.bytes)) : 'text';
  const kind: ContentKind = oldKind === 'text' && !source ? classifyContent(next) : oldKind;
  if (!old || kind !== 'text' || old.bytes.equals(next)) {
    const fresh = !old && force === 'stage' && kind === 'text' ? newFileCounts(target, next) : undefined;
    const decision = decide({ old: old?.bytes ?? null, next, oldKind: kind, counts: fresh?.counts }, t, force);
    return { target, old, next, kind, decision, diff: fresh?.diff, ...decided };
  }
  if (source) {
    const decision = decide({ old: old.bytes, next, oldKind: kind, counts: source }, t, force);
    return {
      target,
      old,
      next,
      kind,
      decision,
      diff: source.hunks && renderUnified(target.treePath, source.hunks, DIFF_CAP),
      ...decided,
    };
  }
  const oldLines = countLinesIn(old.bytes);
  // Past this size jsdiff's time and memory grow faster than git's (a 5 MB edit: 600 ms and 180 MB before its
  // timeout, against tens of ms for git), so large files go straight to git, and are never decoded here.
  const small = old.bytes.length + next.length <= IN_PROCESS_DIFF_BYTES;
  const inProcess = small ? diffLines(old.bytes.toString('utf8'), next.toString('utf8')) : undefined;
  if (inProcess) {
    const { added, removed, modified } = inProcess;
    const counts = { added, removed, modified, oldLines };
    const decision = decide({ old: old.bytes, next, oldKind: kind, counts }, t, force);
    const diff = renderUnified(target.treePath, inProcess.hunks, DIFF_CAP);
    return { target, old, next, kind, decision, diff, ...decided };
  }
  return planWithGit(target, old, next, { kind, oldLines, t, force, decided });
};

/** A text too large for jsdiff: both blobs are written, and git diffs them; recording then reuses the blobs. */
const planWithGit = async (
  target: Target,
  old: DiskFile,
  next: Buffer,
  d: {
    kind: ContentKind;
    oldLines: number;
    t: Thresholds;
    force: 'stage' | 'direct' | undefined;
    decided: { policy?: PathPolicy | undefined };
  },
): Promise<Plan> => {
  const { kind, oldLines, t, force, decided } = d;
  const [oldBlob = '', nextBlob = ''] = await writeBlobs(target.store, [old.bytes, next], old.mode);
  const patch = await gitDiff(target, oldBlob, nextBlob);
  const decision = decide(
    {
      old: old.bytes,
      next,
      oldKind: kind,
      counts: { added: patch.added, removed: patch.removed, modified: patch.modified, oldLines },
    },
    t,
    force,
  );
  const text = [`--- a/${target.treePath}`, `+++ b/${target.treePath}`, ...patch.shown].join('\n');
  return {
    target,
    old,
    next,
    kind,
    decision,
    diff: { text, cutLines: patch.cutLines },
    stored: { old: oldBlob, next: nextBlob },
    ...decided,
  };
};

/** git's xdiff discards lines unique to one side, so a full rewrite that stalls jsdiff takes it ~70 ms. */
const gitDiff = async (target: Target, a: string, b: string): Promise<ScannedPatch> => {
  // Scanned as it arrives: a rewrite's patch is twice the file, and only counts and DIFF_CAP lines are kept.
  const scanner = unifiedScanner(DIFF_CAP);
  await target.store.git.run({
    args: ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U3', a, b],
    onStdout: (chunk) => scanner.push(chunk),
  });
  return scanner.end();
};
