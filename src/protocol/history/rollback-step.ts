// One change undone over one file's bytes, planned without writing: put back the bytes it replaced when the
// file still holds what it wrote, otherwise merge the undo three ways with the edits made since, or refuse (or,
// with --force, overwrite). rollback-plan.ts walks a file's changes through this.
import { classifyContent, sameBytes } from '../../core/content';
import { FettleError } from '../../errors';
import { fileModeOf, gitModeOf, readDisk, type DiskFile } from '../../io/atomic-write';
import { mergeFile } from '../../store/merge';
import type { FileEntry } from '../../store/object-read';
import type { Store } from '../../store/store';
import type { Change } from '../changes';
import type { Versions } from '../chains';
import { plural } from '../../core/plural';
import type { WhoWrote } from './later-writers';

export type How = 'restored' | 'removed' | 'merged' | 'forced';

export interface Step {
  /** the newest change this step undoes */
  change: Change;
  /** every change it undoes, newest first: several when a file's consecutive changes are undone at once */
  covers: Change[];
  /** the file before this step (the disk, or the result of the step before it) */
  from: DiskFile | null;
  /** the file after it: null removes it */
  to: DiskFile | null;
  how: How;
  /** merged or forced: who wrote the file since (later-writers.ts) */
  by?: string | undefined;
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

const refusal = (path: string, id: string, why: string, by?: string): FettleError =>
  new FettleError(
    'E_CONFLICT',
    `${path} changed after fettle wrote it (change ${id})${by ? `, by ${by}` : ''}, and ${why}. Nothing was changed.`,
    {
      hint: `Look at \`git show fettle/${id}\`; to overwrite anyway run \`fettle rollback ${id} --force\` (the current bytes are recorded first).`,
    },
  );

/** Of a shell command's change: whose change wrote the bytes it left (later-writers.ts), or null. */
export type Claimed = (change: Change) => (current: DiskFile | null) => Promise<string | null>;

const claimedRefusal = (path: string, change: Change, theirs: string): FettleError =>
  new FettleError(
    'E_CONFLICT',
    `${path} holds what ${theirs} wrote while the command of change ${change.id} ran, so undoing the command would take that session's work. Nothing was changed.`,
    {
      hint: `Leave this file out (roll back the command's other files by their ids), or overwrite it anyway with \`fettle rollback ${change.id} --force\` (the current bytes are recorded first).`,
    },
  );

const mergeUndo = async (
  store: Store,
  path: string,
  id: string,
  current: DiskFile | null,
  v: Versions & { by?: string | undefined },
): Promise<Buffer> => {
  const { written, previous, by } = v;
  if (written === undefined) throw refusal(path, id, 'fettle has no record of what the write left on disk', by);
  if (!current || !written || !previous) throw refusal(path, id, 'the file was created or deleted since', by);
  if ([current.bytes, written.bytes, previous.bytes].some((b) => classifyContent(b) !== 'text'))
    throw refusal(path, id, 'binary content cannot be merged', by);
  const merged = await mergeFile(store, current.bytes, written.bytes, previous.bytes);
  if (!merged.clean)
    throw refusal(path, id, `undoing it conflicts with those edits (${plural(merged.conflicts, 'conflict')})`, by);
  return merged.bytes;
};

/** One change over `current`: the step, null when there is nothing to undo, or a thrown refusal. */
export const planStep = async (
  store: Store,
  path: string,
  change: Change,
  over: { current: DiskFile | null; v: Versions; who?: WhoWrote | undefined; claimed?: Claimed | undefined },
  force: boolean,
): Promise<Step | null> => {
  const { current, v } = over;
  const { previous, written } = v;
  // A change of mode alone (a Bash `chmod`) is undone while the file keeps the mode it gave.
  const modeOnly =
    !!current && !!previous && !!written && written.mode !== previous.mode && gitModeOf(current.mode) === written.mode;
  if (sameBytes(current?.bytes, previous?.bytes) && !modeOnly) return null;
  const untouched = written !== undefined && sameBytes(current?.bytes, written?.bytes);
  const restore = (how: How): Step => ({
    change,
    covers: [change],
    from: current,
    to: previous ? { bytes: previous.bytes, mode: modeAfter(current, written, previous) } : null,
    how,
  });
  if (untouched) {
    const theirs = change.fields.command !== undefined && !force ? await over.claimed?.(change)(current) : null;
    if (theirs) throw claimedRefusal(path, change, theirs);
    return restore(previous ? 'restored' : 'removed');
  }
  // The file is gone (removed or moved away since): there are no bytes to lose, so it is put back.
  if (current === null && written !== undefined) return restore('restored');
  const by = await over.who?.(current);
  if (force) return { ...restore('forced'), by };
  const bytes = await mergeUndo(store, path, change.id, current, { ...v, by });
  return { change, covers: [change], from: current, to: { bytes, mode: current?.mode ?? 0o644 }, how: 'merged', by };
};

/** A path fettle cannot read as a file (a directory now, a parent replaced by a file) is a refusal, not a crash. */
export const readForPlan = async (path: string, id: string): Promise<DiskFile | null> => {
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
