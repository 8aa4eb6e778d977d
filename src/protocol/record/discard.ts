// Discarding staged changes: the files on disk are never touched. The refs of all the changes move to
// refs/fettle-discarded/ (each with a `discarded` marker commit) in one transaction, so "already discarded" stays
// answerable and the content stays recoverable until gc. Which changes, all or nothing, is discard-set.ts's; here,
// the move itself, and the one change a settling discards (a proposal the person denied).
import { renderRecord } from '../../core/record-message';
import { failpoint } from '../../io/failpoint';
import { withLock } from '../../io/lock';
import { writeBatch, type CommitSpec } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import { publish, type Written } from '../../store/publish';
import { discardedRef, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { loadChange, requirePending, type Change } from '../changes';
import type { Context } from '../context';
import { stamp } from '../ids';
import { fileLockPath } from '../paths';
import { forgetStaged } from './supersede';
import { FettleError } from '../../errors';

/** The marker commits, on each change's tree: one cat-file reads the tips. */
const markers = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  why: (c: Change) => Why,
): Promise<CommitSpec[]> => {
  const tips = await readObjects(
    store,
    changes.map((c) => c.tip),
  );
  const when = ctx.now();
  return changes.map((c, n) => {
    const tree = /^tree ([0-9a-f]+)$/m.exec(tips[n]?.body.toString('utf8') ?? '')?.[1];
    if (!tree) throw new FettleError('E_GIT', `the commit of change ${c.id} (${c.tip}) cannot be read`);
    const message = renderRecord({ ...c.fields, kind: 'discarded', ...why(c), ...stamp(when) });
    return { tree, parents: [c.tip], message, when };
  });
};

/** Why a change is dropped, in its marker commit: who decided (Fettle-Decided-By), and a note. */
export interface Why {
  decidedBy: string;
  note?: string | undefined;
  /** some hunks dropped, as `2 of 3` (the others went on as a change of their own) */
  hunks?: string | undefined;
}

/**
 * The marker commits of `changes`, written, and the ref updates that move each to refs/fettle-discarded/, for a
 * transaction of the caller's (a decision set's, or discardLocked's own).
 */
export const discardMoves = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  why: (c: Change) => Why,
): Promise<{ updates: RefUpdate[]; written: Written }> => {
  const specs = await markers(ctx, store, changes, why);
  const writeMarkers = () => writeBatch(store, [], specs);
  const oids = await writeMarkers();
  await failpoint('discard.marker-written');
  const updates = changes.flatMap((c, n): RefUpdate[] => [
    { op: 'delete', ref: c.ref, old: c.tip },
    { op: 'create', ref: discardedRef(c.id), oid: oids[n] as string },
  ]);
  return { updates, written: { oids, rewrite: writeMarkers } };
};

/** Moves `changes` (checked decidable, under their files' locks) to refs/fettle-discarded/ in one transaction. */
export const discardLocked = async (ctx: Context, store: Store, changes: Change[], why: Why): Promise<void> => {
  const { updates, written } = await discardMoves(ctx, store, changes, () => why);
  await publish(store, updates, `fettle: discard ${changes.map((c) => c.id).join(' ')}`, written);
  try {
    await failpoint('discard.refs-moved');
  } finally {
    // The changes are discarded once the refs moved: their bookkeeping goes whatever happens after.
    for (const c of changes) await forgetStaged(store, c);
  }
};

/** One change, by id, under its file's lock: the settling of a proposal a person denied (`why` says so). */
export const discard = async (ctx: Context, store: Store, id: string, why: Why): Promise<Change> => {
  const first = await loadChange(ctx, store, id);
  return withLock(fileLockPath(store, first.fields.path), async () => {
    const change = await loadChange(ctx, store, id);
    // An expired change can still be discarded: that is how a user cleans it up.
    if (change.state !== 'expired') requirePending(change, ctx.now());
    await discardLocked(ctx, store, [change], why);
    return change;
  });
};
