// `fettle discard <id|changeset>... | --session <s> | --all`: staged changes dropped, all or nothing. Every change
// is checked under its file's lock, then all their refs move in one transaction (discard.ts); files on disk are
// never touched.
import { withLocks } from '../../io/lock';
import type { Store } from '../../store/store';
import { listChanges, type Change } from '../changes';
import { decidedSet, lockedChanges, selectDecision, type DecideRequest } from './changesets';
import type { Context } from '../context';
import { discardLocked } from '../record/discard';
import { fileLockPath } from '../paths';
import { commandDecider } from '../decide/person-review';

export interface DiscardOutcome {
  discarded: Change[];
  skipped: Change[];
  changeset?: string | undefined;
}

/** Discards the changes a request names, all or nothing. */
export const discardChanges = async (ctx: Context, store: Store, request: DecideRequest): Promise<DiscardOutcome> => {
  const selection = await selectDecision(ctx, store, 'discard', request);
  const involved = lockedChanges(selection);
  return withLocks(
    involved.map((c) => fileLockPath(store, c.fields.path)),
    async () => {
      // Read again under the locks: another process may have confirmed or discarded some meanwhile.
      const now = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
      const chosen = decidedSet(ctx, selection, now);
      await discardLocked(ctx, store, chosen.changes, { decidedBy: commandDecider(ctx) });
      return { discarded: chosen.changes, skipped: chosen.skipped, changeset: chosen.changeset };
    },
  );
};
