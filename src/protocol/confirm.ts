// `fettle confirm <id>`: write a staged change to disk, but only over the bytes fettle recorded. If the file
// changed since, merge three ways and apply only a clean result; otherwise refuse and leave it pending.
import { classifyContent } from '../core/content';
import { renderRecord, type RecordKind } from '../core/record';
import { FettleError } from '../errors';
import { fileModeOf, gitModeOf, readDisk, replaceFile } from '../io/atomic-write';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import type { Store } from '../store/locate';
import { mergeFile } from '../store/merge';
import { readFile, writeBlob, writeCommit, writeTreeWith } from '../store/objects';
import { updateRefs } from '../store/refs';
import { removeHiddenWorktree } from '../store/worktrees';
import { loadChange, requirePending, type Change } from './changes';
import type { Context } from './context';
import { diskPathOf, fileLockPath } from './paths';

export interface ConfirmResult {
  change: Change;
  path: string;
  /** how the disk was brought to the proposal */
  how: 'written' | 'merged' | 'already-on-disk';
}

const commitOn = async (ctx: Context, store: Store, change: Change, parent: string, kind: RecordKind, bytes: Buffer, mode: string, note?: string) => {
  const tree = await writeTreeWith(store, `${parent}^{tree}`, change.fields.path, { mode, oid: await writeBlob(store, bytes) });
  return writeCommit(store, tree, [parent], renderRecord({ ...change.fields, kind, note }), ctx.now());
};

export const confirm = async (ctx: Context, store: Store, id: string): Promise<ConfirmResult> => {
  const first = await loadChange(store, id, ctx.config.ttlSeconds, ctx.now());
  requirePending(first, ctx.now());
  const path = diskPathOf(store, first.fields);
  return withLock(fileLockPath(store, first.fields.path), async () => {
    await failpoint('confirm.locked');
    // Re-read under the lock: another process may have confirmed or discarded it meanwhile.
    const change = await loadChange(store, id, ctx.config.ttlSeconds, ctx.now());
    requirePending(change, ctx.now());
    const baseCommit = change.parents[0];
    const proposal = await readFile(store, change.tip, change.fields.path);
    if (!proposal || !baseCommit) throw new FettleError('E_INTERNAL', `internal error: change ${id} has no proposed content`);
    const base = await readFile(store, baseCommit, change.fields.path);
    const disk = await readDisk(path);

    let how: ConfirmResult['how'] = 'written';
    let bytes = proposal.bytes;
    let parent = change.tip;
    if (disk?.bytes.equals(proposal.bytes)) {
      how = 'already-on-disk'; // e.g. a confirm that crashed after writing
    } else if ((disk === null && base === null) || (disk && base && disk.bytes.equals(base.bytes))) {
      how = 'written';
    } else {
      bytes = await mergeOrRefuse(store, change, path, disk?.bytes ?? null, base?.bytes ?? null, proposal.bytes);
      how = 'merged';
      // Keep what the user had on disk before replacing it, so this confirm can be undone.
      parent = await commitOn(ctx, store, change, change.tip, 'snapshot', disk?.bytes ?? Buffer.alloc(0), gitModeOf(disk?.mode ?? 0o644));
      await failpoint('confirm.snapshot-written');
    }
    if (how !== 'already-on-disk') {
      await replaceFile(path, bytes, { mode: disk?.mode ?? fileModeOf(proposal.mode), createOnly: disk === null });
      await failpoint('confirm.file-written');
    }
    const mode = disk ? gitModeOf(disk.mode) : proposal.mode;
    const applied = await commitOn(ctx, store, change, parent, 'applied', bytes, mode, how === 'merged' ? 'Merged with edits made on disk after it was staged.' : undefined);
    await updateRefs(store, [{ op: 'update', ref: change.ref, oid: applied, old: change.tip }], `fettle: confirm ${id}`);
    await failpoint('confirm.ref-updated');
    await removeHiddenWorktree(store, id);
    return { change, path, how };
  });
};

const mergeOrRefuse = async (store: Store, change: Change, path: string, disk: Buffer | null, base: Buffer | null, proposal: Buffer): Promise<Buffer> => {
  const keep = `Nothing was written; the change stays pending. Compare the file with the proposal: \`git diff fettle/${change.id} -- ${change.fields.path}\`;` +
    ` then run \`fettle discard ${change.id}\` and re-run the Write.`;
  if (disk === null) throw new FettleError('E_CONFLICT', `${path} was deleted after change ${change.id} was staged.`, { hint: keep });
  if (base === null) throw new FettleError('E_CONFLICT', `${path} was created by someone else after change ${change.id} was staged.`, { hint: keep });
  if ([disk, base, proposal].some((b) => classifyContent(b) !== 'text')) {
    throw new FettleError('E_CONFLICT', `${path} changed after change ${change.id} was staged, and binary content cannot be merged.`, { hint: keep });
  }
  const merged = await mergeFile(store, disk, base, proposal);
  if (!merged.clean) {
    throw new FettleError(
      'E_CONFLICT',
      `${path} changed after change ${change.id} was staged, and those edits overlap the staged ones (${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'}).`,
      { hint: keep },
    );
  }
  return merged.bytes;
};
