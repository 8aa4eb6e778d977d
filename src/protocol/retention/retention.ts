// Bounded storage: fettle's history is kept by age and by count (FETTLE_HISTORY_MAX_AGE, _MAX_COUNT); a
// staged change still waiting for confirmation is never removed. Removing a change deletes its ref; its objects
// become unreachable and git's own gc reclaims them, fettle never prunes. (Test trees are `fettle gc`'s alone.)
// Runs on the hook path after a write, so: one for-each-ref over fettle's refs, a bounded number of
// deletions in one compare-and-swap transaction, and failures ignored (it is housekeeping).
import type { Config } from '../../config';
import type { Store } from '../../store/store';
import { updateRefs } from '../../store/refs';
import { listChanges, type Change } from '../changes';
import type { Context } from '../context';
import { linksDir, openLinks } from '../record/call-links';

/** Deletions per write on the hook path: the oldest first, the rest on later writes or `fettle gc`. */
export const HOOK_BATCH = 10;

export interface Removal {
  change: Change;
  /** older than the maximum age, or beyond the maximum count */
  why: 'age' | 'count';
}

export interface RetentionOptions {
  /**
   * Keep expired staged changes too: "expired" rests on the wall clock, and a clock that jumped forward must not
   * delete a proposal nobody decided on. Only an explicit `fettle gc` removes them.
   */
  keepUnconfirmed?: boolean;
  /**
   * Ids of changes whose tool call has not reported back (their PreToolUse link is still open): the write may
   * be waiting at a permission prompt, and its previous bytes are in no other record. Never removed by count,
   * nor by age after a write: a call is in flight until its after step or the end of its turn settles it
   * (history/settle-session.ts), however long the prompt stays open.
   */
  open?: ReadonlySet<string>;
  /** `fettle gc` only: an open call older than the maximum age is taken as abandoned (a client that crashed) and
   * goes by age, as gc then removes its link. */
  abandonOpen?: boolean;
}

/**
 * Pure: which of `changes` (newest first) the policy removes, oldest first. A changeset goes whole or not at all
 * (a rollback of it must find every member): once every member is due, and never while one must stay.
 */
export const planRetention = (
  changes: Change[],
  config: Pick<Config, 'historyMaxAgeSeconds' | 'historyMaxCount'>,
  now: Date,
  options: RetentionOptions = {},
): Removal[] => {
  const cutoff = now.getTime() - config.historyMaxAgeSeconds * 1000;
  const kept = (c: Change) =>
    c.state !== 'pending' && !(options.keepUnconfirmed && c.state === 'expired') && c.ref !== '';
  const history = changes.filter(kept);
  const open = (c: Change) => options.open?.has(c.id) === true;
  const removals: (Removal | null)[] = history.map((change, n) =>
    change.at.getTime() < cutoff && (options.abandonOpen || !open(change))
      ? { change, why: 'age' }
      : n >= config.historyMaxCount && !open(change)
        ? { change, why: 'count' }
        : null,
  );
  const held = new Set(changes.filter((c) => !kept(c)).map((c) => c.fields.changeset));
  removals.forEach((r, n) => {
    const set = (history[n] as Change).fields.changeset;
    if (r === null && set !== undefined) held.add(set);
  });
  return removals
    .filter((r): r is Removal => r !== null && !(r.change.fields.changeset && held.has(r.change.fields.changeset)))
    .reverse();
};

/** The first removals, oldest first, up to `limit`, never splitting a changeset (the first one goes whole). */
export const firstRemovals = (removals: Removal[], limit: number): Removal[] => {
  const out: Removal[] = [];
  const taken = new Set<string>();
  for (const r of removals) {
    const set = r.change.fields.changeset;
    if (set !== undefined && taken.has(set)) continue;
    const group = set === undefined ? [r] : removals.filter((x) => x.change.fields.changeset === set);
    if (out.length > 0 && out.length + group.length > limit) break;
    out.push(...group);
    if (set !== undefined) taken.add(set);
  }
  return out;
};

/** The changes whose tool call is still open: one readdir and a few small files, no git. */
export const openChangeIds = async (store: Store): Promise<Set<string>> =>
  new Set((await openLinks(linksDir(store.commonDir))).map((l) => l.pending.id));

/** Deletes the refs in one transaction, each expected at the tip read: a ref moved meanwhile fails it all. */
export const deleteRefs = async (store: Store, removals: Removal[]): Promise<void> => {
  if (removals.length === 0) return;
  await updateRefs(
    store,
    removals.map(({ change }) => ({ op: 'delete' as const, ref: change.ref, old: change.tip })),
    'fettle: retention',
  );
};

/** Applies the policy; `limit` bounds the deletions of one call. */
export const applyRetention = async (
  ctx: Context,
  store: Store,
  limit = Number.POSITIVE_INFINITY,
  keepUnconfirmed = false,
): Promise<Removal[]> => {
  const now = ctx.now();
  const [changes, open] = await Promise.all([listChanges(ctx, store, 'git'), openChangeIds(store)]);
  const removals = firstRemovals(planRetention(changes, ctx.config, now, { keepUnconfirmed, open }), limit);
  await deleteRefs(store, removals);
  return removals;
};

/** Deletions per run in the resident server, after its answers: enough to keep up with a fast session. */
export const BACKGROUND_BATCH = 100;

/** After a write: bounded (`limit` deletions), and never fails it. */
export const retainQuietly = async (ctx: Context, store: Store, limit = HOOK_BATCH): Promise<void> => {
  try {
    await applyRetention(ctx, store, limit, true);
  } catch {
    // A lost race or a held lock: the next write or `fettle gc` does it.
  }
};
