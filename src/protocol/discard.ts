// `fettle discard <id|changeset>... | --session <s> | --all`: staged changes are dropped; files on disk are never
// touched. All or nothing: every change is checked under its file's lock, then all the refs move to
// refs/fettle-discarded/ (each with a `discarded` marker commit) in one transaction, so "already discarded" stays
// answerable and the content stays recoverable until gc.
import { renderRecord } from '../core/record-message';
import { failpoint } from '../io/failpoint';
import { withLocks } from '../io/lock';
import { readObjects, writeBatch, type CommitSpec } from '../store/objects';
import { publish } from '../store/publish';
import { discardedRef, type RefUpdate } from '../store/refs';
import type { Store } from '../store/store';
import { removeHiddenWorktree } from '../store/worktrees';
import { listChanges, tidySettled, type Change } from './changes';
import { decidedSet, lockedChanges, selectDecision, type DecideRequest } from './changesets';
import type { Context } from './context';
import { stamp } from './ids';
import { fileLockPath } from './paths';
import { forgetStaged } from './supersede';
import { FettleError } from '../errors';

export interface DiscardOutcome {
  discarded: Change[];
  skipped: Change[];
  changeset?: string | undefined;
}

/** The marker commits, on each change's tree: one cat-file reads the tips. */
const markers = async (ctx: Context, store: Store, changes: Change[], note?: string): Promise<CommitSpec[]> => {
  const tips = await readObjects(
    store,
    changes.map((c) => c.tip),
  );
  const when = ctx.now();
  return changes.map((c, n) => {
    const tree = /^tree ([0-9a-f]+)$/m.exec(tips[n]?.body.toString('utf8') ?? '')?.[1];
    if (!tree) throw new FettleError('E_GIT', `the commit of change ${c.id} (${c.tip}) cannot be read`);
    const message = renderRecord({ ...c.fields, kind: 'discarded', note, ...stamp(when) });
    return { tree, parents: [c.tip], message, when };
  });
};

/**
 * Discards the changes a request names, all or nothing. `note`: why, in the marker commits (e.g. the person
 * denied it at the prompt). `settle: false` lists changes without settling open records (the settling itself
 * discards through here).
 */
export const discardChanges = async (
  ctx: Context,
  store: Store,
  request: DecideRequest,
  o: { note?: string; settle?: boolean } = {},
): Promise<DiscardOutcome> => {
  const selection = await selectDecision(ctx, store, 'discard', request, { settle: o.settle });
  const involved = lockedChanges(selection);
  return withLocks(
    involved.map((c) => fileLockPath(store, c.fields.path)),
    async () => {
      // Read again under the locks: another process may have confirmed or discarded some meanwhile.
      const now = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
      for (const c of involved) await tidySettled(store, now.get(c.id) ?? c);
      const chosen = decidedSet(ctx, selection, now);
      const { changes } = chosen;
      const specs = await markers(ctx, store, changes, o.note);
      const writeMarkers = () => writeBatch(store, [], specs);
      const oids = await writeMarkers();
      await failpoint('discard.marker-written');
      const updates = changes.flatMap((c, n): RefUpdate[] => [
        { op: 'delete', ref: c.ref, old: c.tip },
        { op: 'create', ref: discardedRef(c.id), oid: oids[n] as string },
      ]);
      await publish(store, updates, `fettle: discard ${changes.map((c) => c.id).join(' ')}`, {
        oids,
        rewrite: writeMarkers,
      });
      try {
        await failpoint('discard.refs-moved');
      } finally {
        // The changes are discarded once the refs moved: their worktrees go whatever happens after.
        for (const c of changes) {
          await removeHiddenWorktree(store, c.id);
          await forgetStaged(store, c);
        }
      }
      return { discarded: changes, skipped: chosen.skipped, changeset: chosen.changeset };
    },
  );
};

/** One change, by id (the settling of a proposal a person denied). */
export const discard = async (ctx: Context, store: Store, id: string, o: { note?: string } = {}): Promise<Change> =>
  (await discardChanges(ctx, store, { names: [id] }, { ...o, settle: false })).discarded[0] as Change;
