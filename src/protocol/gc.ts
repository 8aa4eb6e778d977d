// `fettle gc`: the retention policy in full, hidden worktrees no live staged change owns, and tool-use link
// files no tool call will come back for. Only fettle's refs and files under <common-dir>/fettle/ are touched;
// the only git housekeeping run is removing fettle's own worktrees (no `git gc`, no object pruning).
import { lstat, readFile, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../errors';
import type { Store } from '../store/store';
import { hiddenDirs, registeredHidden, sizeOf } from '../store/worktree-fill';
import { fettleDir, forgetMissing, removeHiddenWorktree } from '../store/worktrees';
import { staleCalls } from './call-answers';
import { listChanges, type Change } from './changes';
import type { Context } from './context';
import { deleteRefs, openChangeIds, planRetention, type Removal } from './retention';
import { staleStaged } from './supersede';

/** A worktree or link file younger than this may belong to a write in progress (made before its ref). */
const GRACE_MS = 60_000;
/** A tool call's answer is kept for its retries, which come within seconds; an hour is plenty. */
const CALL_ANSWER_MS = 60 * 60 * 1000;
const RETRIES = 3;

export interface GcReport {
  removed: Removal[];
  worktrees: { id: string; path: string; bytes: number }[];
  links: string[];
  /** bookkeeping no tool call or change needs any more: answers to calls (call-answers.ts), the index of
   * pending proposals (supersede.ts) */
  bookkeeping: string[];
  /** changes left in history, and how many of them are staged changes still pending */
  kept: number;
  pending: number;
}

/** Retention, re-listed and retried when another fettle process moved a ref meanwhile. */
const retain = async (
  ctx: Context,
  store: Store,
  dryRun: boolean,
): Promise<{ removed: Removal[]; changes: Change[]; known: Set<string> }> => {
  for (let attempt = 1; ; attempt++) {
    const [changes, open] = await Promise.all([listChanges(ctx, store), openChangeIds(store)]);
    const removed = planRetention(changes, ctx.config, ctx.now(), { open });
    try {
      if (!dryRun) await deleteRefs(store, removed); // their worktrees go with the orphans, below
      const gone = new Set(removed.map((r) => r.change.id));
      return { removed, changes: changes.filter((c) => !gone.has(c.id)), known: new Set(changes.map((c) => c.id)) };
    } catch (error) {
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT') || attempt >= RETRIES) throw error;
    }
  }
};

const ownsWorktree = (c: Change): boolean => c.state === 'pending' || c.state === 'expired';

/**
 * A worktree whose change is known but not staged any more (applied, discarded, removed) is an orphan; one
 * with no ref at all is only after the grace period, since staging adds the worktree before the ref.
 */
const sweepWorktrees = async (
  ctx: Context,
  store: Store,
  live: Set<string>,
  known: Set<string>,
  dryRun: boolean,
): Promise<GcReport['worktrees']> => {
  const freed: GcReport['worktrees'] = [];
  const now = ctx.now().getTime();
  for (const dir of await hiddenDirs(store)) {
    if (live.has(dir.id) || (!known.has(dir.id) && now - dir.mtimeMs < GRACE_MS)) continue;
    const bytes = await sizeOf(dir.path);
    if (!dryRun) await removeHiddenWorktree(store, dir.id);
    freed.push({ id: dir.id, path: dir.path, bytes });
  }
  const swept = new Set(freed.map((f) => f.path));
  for (const wt of await registeredHidden(store)) {
    if (live.has(wt.id) || swept.has(wt.path)) continue;
    const exists = await lstat(wt.path).then(
      () => true,
      () => false,
    );
    if (exists) continue; // a fresh one, inside the grace period
    if (dryRun || (await forgetMissing(store, wt.path))) freed.push({ id: wt.id, path: wt.path, bytes: 0 });
  }
  return freed;
};

/** A link is stale once its change no longer waits for a PostToolUse, or is older than the history kept. */
const staleLink = async (ctx: Context, path: string, awaiting: Set<string>): Promise<boolean> => {
  const info = await lstat(path).catch(() => null);
  if (!info) return false;
  const age = ctx.now().getTime() - info.mtimeMs;
  if (!path.endsWith('.json')) return age > GRACE_MS; // a temp file left by a killed process
  if (age > ctx.config.historyMaxAgeSeconds * 1000) return true;
  const id = await readFile(path, 'utf8').then(
    (t) => (JSON.parse(t) as { id?: unknown }).id,
    () => undefined,
  );
  return typeof id !== 'string' || !awaiting.has(id);
};

const sweepLinks = async (ctx: Context, store: Store, changes: Change[], dryRun: boolean): Promise<string[]> => {
  const dir = join(fettleDir(store), 'tool-use');
  // Waiting for a PostToolUse: a `before` record (direct) or a proposal a human may approve (review mode).
  const awaiting = new Set(
    changes
      .filter(
        (c) =>
          c.state !== 'discarded' &&
          (c.fields.kind === 'before' || c.fields.kind === 'proposal' || c.fields.kind === 'snapshot'),
      )
      .map((c) => c.id),
  );
  const stale: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    if (!(await staleLink(ctx, path, awaiting))) continue;
    if (!dryRun) await unlink(path).catch(() => undefined);
    stale.push(name);
  }
  return stale;
};

export const collectGarbage = async (
  ctx: Context,
  store: Store,
  options: { dryRun?: boolean } = {},
): Promise<GcReport> => {
  const dryRun = options.dryRun ?? false;
  const { removed, changes, known } = await retain(ctx, store, dryRun);
  const live = new Set(changes.filter(ownsWorktree).map((c) => c.id));
  const worktrees = await sweepWorktrees(ctx, store, live, known, dryRun);
  const links = await sweepLinks(ctx, store, changes, dryRun);
  const open = new Set(changes.filter(ownsWorktree).map((c) => c.id));
  const bookkeeping = [
    ...(await staleCalls(store.commonDir, { maxAgeMs: CALL_ANSWER_MS, dryRun, nowMs: ctx.now().getTime() })),
    ...(await staleStaged(store, open, dryRun)),
  ];
  return {
    removed,
    worktrees,
    links,
    bookkeeping,
    kept: changes.length,
    pending: changes.filter((c) => c.state === 'pending').length,
  };
};
