// The store a command works on and its changes: the repository the command runs in (or the private store outside
// any repository), with a crash-interrupted operation recovered first, and open records settled from the disk.
import { toFettleError } from '../../errors';
import { storeFromFiles } from '../../store/discover-files';
import { locateTarget, openStoreAt } from '../../store/locate';
import type { Store, Target } from '../../store/store';
import { LISTING_ARGS, listChanges, type Change } from '../changes';
import type { Context } from '../context';
import { recoverQuietly } from '../journal/recover';
import { settleMet } from '../record/settle';

export interface Selection {
  store: Store;
  /** newest first */
  changes: Change[];
}

/**
 * The store of the repository the command runs in (or the private store outside any repository). An operation a
 * crash interrupted there is recovered first (recover.ts), unless the caller reports it itself (`fettle doctor`).
 * `lists`: the caller lists the changes next (status, log): the repository is found, and fettle's refs read, from
 * their files when those are plain (no git process); else the listing's git process starts with the one that finds
 * the repository, and a recovery that ran meanwhile makes it stale, so it is dropped.
 */
export const openStore = async (ctx: Context, o: { recover?: boolean; lists?: boolean } = {}): Promise<Store> => {
  const found = o.lists ? storeFromFiles(ctx.cwd, ctx.env) : null;
  const warm = o.lists ? [LISTING_ARGS] : [];
  const store = found ?? (await openStoreAt(ctx.cwd, ctx.env, ctx.config.dataDir, { warm }));
  const recovered = o.recover !== false && (await recoverQuietly(ctx, store));
  if (recovered && !found && o.lists) await store.git.run({ args: LISTING_ARGS }).catch(() => undefined);
  return store;
};

/** Where a path argument lives: its store and its path in that store's trees (recovered first, as openStore). */
export const openTarget = async (ctx: Context, path: string): Promise<Target> => {
  const target = await locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir);
  await recoverQuietly(ctx, target.store);
  return target;
};

/**
 * Every change, newest first; records left open whose result the disk proves are settled first. A command that
 * only reads (status, log, show) passes `warn`: if settling fails (a read-only repository), it is told why and
 * lists the records as they are; without `warn` the failure is the command's.
 */
export const settledChanges = async (
  ctx: Context,
  store: Store,
  warn?: (message: string) => void,
): Promise<Change[]> => {
  const all = await listChanges(ctx, store);
  try {
    return (await settleMet(ctx, store, all)) ? listChanges(ctx, store) : all;
  } catch (error) {
    if (!warn) throw error;
    warn(`fettle: could not record the result of open records from the disk: ${toFettleError(error).message}`);
    return all;
  }
};
