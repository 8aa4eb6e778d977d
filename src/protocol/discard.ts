// `fettle discard <id>`: the staged change is dropped; the file on disk is never touched. Its ref moves to
// refs/fettle-discarded/ in one transaction, so "already discarded" stays answerable and the content stays
// recoverable until gc.
import { renderRecord } from '../core/record-message';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import type { Store } from '../store/store';
import { treeOf, writeCommit } from '../store/objects';
import { publish } from '../store/publish';
import { discardedRef } from '../store/refs';
import { loadChange, requirePending, type Change } from './changes';
import { stamp } from './ids';
import type { Context } from './context';
import { fileLockPath } from './paths';

const discardable = (change: Change, now: Date): void => {
  // An expired change can still be discarded: that is how a user cleans it up.
  if (change.state !== 'expired') requirePending(change, now);
};

/** `note`: why, in the marker commit (e.g. the person denied it at the prompt). */
export const discard = async (ctx: Context, store: Store, id: string, o: { note?: string } = {}): Promise<Change> => {
  const first = await loadChange(ctx, store, id);
  return withLock(fileLockPath(store, first.fields.path), async () => {
    const change = await loadChange(ctx, store, id);
    discardable(change, ctx.now());
    const tree = await treeOf(store, change.tip);
    const when = ctx.now();
    const message = renderRecord({ ...change.fields, kind: 'discarded', note: o.note, ...stamp(when) });
    const writeMarker = () => writeCommit(store, tree, [change.tip], message, when);
    const marker = await writeMarker();
    await failpoint('discard.marker-written');
    await publish(
      store,
      [
        { op: 'delete', ref: change.ref, old: change.tip },
        { op: 'create', ref: discardedRef(id), oid: marker },
      ],
      `fettle: discard ${id}`,
      { oids: [marker], rewrite: writeMarker },
    );
    await failpoint('discard.refs-moved');
    return change;
  });
};
