// `fettle rollback <change> --to <path>`: the bytes a change replaced, written to another path; the changed
// file is left alone. The write is recorded like any other (the destination's bytes first), so it can be
// undone; an existing destination is overwritten only with --force.
import { countChanges } from '../../core/diff';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FettleError } from '../../errors';
import { fileModeOf, readDisk, replaceFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { withLock } from '../../io/lock';
import { locateTarget } from '../../store/locate';
import type { Store, Target } from '../../store/store';
import type { Change } from '../changes';
import type { Context } from '../context';
import { versionsOf } from '../chains';
import { fileLockPath } from '../paths';
import { commandDecider } from '../decide/person-review';
import { recordAfter, recordBefore } from '../record/record';

export interface RestoreResult {
  change: Change;
  dest: Target;
  /** 'already': the destination held those bytes; nothing was written */
  how: 'written' | 'already';
  added?: number;
  removed?: number;
  /** the change recording the write to the destination (absent for a dry run or 'already') */
  undoId?: string;
}

export const restoreTo = async (
  ctx: Context,
  store: Store,
  change: Change,
  to: string,
  options: { force?: boolean; dryRun?: boolean } = {},
): Promise<RestoreResult> => {
  const [versions] = await versionsOf(store, [change]);
  const previous = versions?.previous;
  if (!previous) {
    throw new FettleError(
      'E_NOTHING_TO_ROLL_BACK',
      `Change ${change.id} created ${change.fields.path}; there are no previous bytes to restore to ${to}.`,
    );
  }
  const dest = await locateTarget(to, ctx.cwd, ctx.env, ctx.config.dataDir);
  const run = async (): Promise<RestoreResult> => {
    const disk = await readDisk(dest.realPath);
    if (disk?.bytes.equals(previous.bytes)) return { change, dest, how: 'already' };
    if (disk && !options.force) {
      throw new FettleError('E_CONFLICT', `${dest.realPath} already exists; nothing was written.`, {
        hint: `Name a path that does not exist, or add --force to overwrite it (its bytes are recorded first).`,
      });
    }
    const counts = countChanges(disk?.bytes ?? null, previous.bytes);
    if (options.dryRun) return { change, dest, how: 'written', ...counts };
    const undo = await recordBefore(ctx, dest, disk, {
      tier: 'direct',
      path: dest.treePath,
      file: dest.realPath,
      reason: 'restore',
      tool: 'fettle rollback',
      decidedBy: commandDecider(ctx),
      note: `Restores the bytes change ${change.id} replaced in ${change.fields.path}.`,
      ...counts,
    });
    await failpoint('rollback.recorded');
    if (!disk) await mkdir(dirname(dest.realPath), { recursive: true });
    await replaceFile(dest.realPath, previous.bytes, {
      mode: fileModeOf(previous.mode),
      createOnly: disk === null,
      expect: disk?.bytes,
    });
    await failpoint('rollback.file-written');
    await recordAfter(ctx, dest.store, undo, await readDisk(dest.realPath));
    return { change, dest, how: 'written', ...counts, undoId: undo.id };
  };
  return options.dryRun ? run() : withLock(fileLockPath(dest.store, dest.treePath), run);
};
