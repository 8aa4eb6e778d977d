// Planning a rollback of one or many changes before anything is touched: read each file once, walk its
// changes newest first over a virtual copy of the file, and compute the bytes to put back or the reason to
// refuse. Nothing here writes; a refusal anywhere means nothing is applied.
import { classifyContent, sameBytes } from '../core/content';
import { FettleError } from '../errors';
import { fileModeOf, gitModeOf, readDisk, type DiskFile } from '../io/atomic-write';
import type { Store, Target } from '../store/store';
import { mergeFile } from '../store/merge';
import type { FileEntry } from '../store/objects';
import type { Change } from './changes';
import { versionsOf, type Versions } from './history';
import { diskPathOf } from './paths';

export type How = 'restored' | 'removed' | 'merged' | 'forced';

export interface Step {
  change: Change;
  /** the file before this step (the disk, or the result of the step before it) */
  from: DiskFile | null;
  /** the file after it: null removes it */
  to: DiskFile | null;
  how: How;
}

export interface FilePlan {
  target: Target;
  /** what is on disk now */
  original: DiskFile | null;
  /** what the rollback leaves on disk */
  final: DiskFile | null;
  steps: Step[];
  /** changes whose previous bytes the file already holds: nothing to do */
  skipped: Change[];
}

/**
 * Permission bits after restoring `previous`: its executable bit, unless the user changed the mode since the
 * change (then theirs); the other bits (e.g. 0600) of the file on disk are kept.
 */
const modeAfter = (current: DiskFile | null, written: FileEntry | null | undefined, previous: FileEntry): number => {
  if (!current) return fileModeOf(previous.mode);
  const now = gitModeOf(current.mode);
  if (now === previous.mode || (written && now !== written.mode)) return current.mode;
  return previous.mode === '100755' ? current.mode | ((current.mode & 0o444) >> 2) : current.mode & ~0o111;
};

const refusal = (path: string, id: string, why: string): FettleError =>
  new FettleError(
    'E_CONFLICT',
    `${path} changed after fettle wrote it (change ${id}), and ${why}. Nothing was changed.`,
    {
      hint: `Look at \`git show fettle/${id}\`; to overwrite anyway run \`fettle rollback ${id} --force\` (the current bytes are recorded first).`,
    },
  );

const mergeUndo = async (
  store: Store,
  path: string,
  id: string,
  current: DiskFile | null,
  v: Versions,
): Promise<Buffer> => {
  const { written, previous } = v;
  if (written === undefined) throw refusal(path, id, 'fettle has no record of what the write left on disk');
  if (!current || !written || !previous) throw refusal(path, id, 'the file was created or deleted since');
  if ([current.bytes, written.bytes, previous.bytes].some((b) => classifyContent(b) !== 'text'))
    throw refusal(path, id, 'binary content cannot be merged');
  const merged = await mergeFile(store, current.bytes, written.bytes, previous.bytes);
  if (!merged.clean)
    throw refusal(
      path,
      id,
      `undoing it conflicts with those edits (${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'})`,
    );
  return merged.bytes;
};

/** One change over `current`: the step, null when there is nothing to undo, or a thrown refusal. */
const planStep = async (
  store: Store,
  path: string,
  change: Change,
  over: { current: DiskFile | null; v: Versions },
  force: boolean,
): Promise<Step | null> => {
  const { current, v } = over;
  const { previous, written } = v;
  if (sameBytes(current?.bytes, previous?.bytes)) return null;
  const untouched = written !== undefined && sameBytes(current?.bytes, written?.bytes);
  const restore = (how: How): Step => ({
    change,
    from: current,
    to: previous ? { bytes: previous.bytes, mode: modeAfter(current, written, previous) } : null,
    how,
  });
  if (untouched) return restore(previous ? 'restored' : 'removed');
  if (force) return restore('forced');
  const bytes = await mergeUndo(store, path, change.id, current, v);
  return { change, from: current, to: { bytes, mode: current?.mode ?? 0o644 }, how: 'merged' };
};

/** A path fettle cannot read as a file (a directory now, a parent replaced by a file) is a refusal, not a crash. */
const readForPlan = async (path: string, id: string): Promise<DiskFile | null> => {
  try {
    return await readDisk(path);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
        ? 'a parent directory is now a file'
        : 'it is no longer a regular file';
    throw new FettleError('E_CONFLICT', `${path} cannot be restored (change ${id}): ${why}. Nothing was changed.`, {
      cause: error,
    });
  }
};

/**
 * Which change to undo next. Changes recorded in the same second have no order in time, so: the one whose
 * written bytes the file holds now; else one no other change was written on top of; else the newest.
 */
export const pickNext = (remaining: Change[], current: DiskFile | null, versions: Map<string, Versions>): number => {
  const written = (c: Change) => versions.get(c.id)?.written;
  const holds = remaining.findIndex((c) => written(c) !== undefined && sameBytes(current?.bytes, written(c)?.bytes));
  if (holds >= 0) return holds;
  const builtOn = (c: Change) =>
    written(c) !== undefined &&
    remaining.some((other) => other !== c && sameBytes(versions.get(other.id)?.previous?.bytes, written(c)?.bytes));
  const top = remaining.findIndex((c) => !builtOn(c));
  return top >= 0 ? top : 0;
};

/** Changes to one file, newest first, over a virtual copy of it. */
const planFile = async (
  store: Store,
  changes: Change[],
  versions: Map<string, Versions>,
  force: boolean,
): Promise<FilePlan> => {
  const first = changes[0] as Change;
  const target: Target = { store, realPath: await diskPathOf(store, first.fields), treePath: first.fields.path };
  const original = await readForPlan(target.realPath, first.id);
  const plan: FilePlan = { target, original, final: original, steps: [], skipped: [] };
  const remaining = [...changes];
  while (remaining.length > 0) {
    const current = plan.final;
    const [change] = remaining.splice(pickNext(remaining, current, versions), 1) as [Change];
    const over = { current, v: versions.get(change.id) as Versions };
    const step = await planStep(store, target.realPath, change, over, force);
    if (!step) plan.skipped.push(change);
    else {
      plan.steps.push(step);
      plan.final = step.to;
    }
  }
  return plan;
};

const refuseAll = (errors: FettleError[]): FettleError => {
  if (errors.length === 1) return errors[0] as FettleError;
  return new FettleError(
    'E_CONFLICT',
    `${errors.length} files cannot be rolled back, so none was. Nothing was changed.`,
    {
      hint: errors.map((e) => `${e.message}${e.hint ? ` ${e.hint}` : ''}`).join('\n'),
    },
  );
};

/** Every file planned before anything is written; throws (changing nothing) if any one cannot be restored. */
export const planRollback = async (
  store: Store,
  changes: Change[],
  options: { force?: boolean } = {},
): Promise<FilePlan[]> => {
  const all = await versionsOf(store, changes);
  const versions = new Map(changes.map((c, n) => [c.id, all[n] as Versions]));
  const byPath = new Map<string, Change[]>();
  for (const c of changes) byPath.set(c.fields.path, [...(byPath.get(c.fields.path) ?? []), c]);
  const plans: FilePlan[] = [];
  const errors: FettleError[] = [];
  for (const group of byPath.values()) {
    try {
      plans.push(await planFile(store, group, versions, options.force ?? false));
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      errors.push(error);
    }
  }
  if (errors.length > 0) throw refuseAll(errors);
  return plans;
};
