// `fettle gc`: the retention policy in full, test trees nothing uses any more, and tool-use link
// files no tool call will come back for. Only fettle's refs and files under <common-dir>/fettle/ are touched;
// the only git housekeeping run is removing fettle's own worktrees (no `git gc`, no object pruning).
import { lstat, readFile, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import { withLock } from '../../io/lock';
import { noProgress, type Progress } from '../../io/progress';
import { sizeOf } from '../../io/remove-tree';
import {
  adminDirOf,
  fettleDir,
  forgetMissing,
  hiddenDirs,
  registeredHidden,
  removeHiddenWorktree,
} from '../../store/worktrees';
import { staleSnapshots } from '../bash/bash-state';
import { staleCalls } from '../record/call-answers';
import { listChanges, type Change } from '../changes';
import type { Context } from '../context';
import { staleReads } from '../read-prune';
import { staleStates } from '../session-state';
import { deleteRefs, openChangeIds, planRetention, type Removal } from '../retention/retention';
import { staleStaged } from '../record/supersede';
import { isTestTreeName, readUse, testLockPath, testTreeName } from '../review/test-tree';

/** A tool-use link's temp file younger than this may belong to a write in progress. */
const GRACE_MS = 60_000;
/** A tool call's answer is kept for its retries, which come within seconds; an hour is plenty. */
const CALL_ANSWER_MS = 60 * 60 * 1000;
const RETRIES = 3;

export interface GcReport {
  removed: Removal[];
  /** test trees removed (or, dry run, that would be), with the bytes their files took */
  worktrees: { name: string; path: string; bytes: number }[];
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
): Promise<{ removed: Removal[]; changes: Change[] }> => {
  for (let attempt = 1; ; attempt++) {
    const [changes, open] = await Promise.all([listChanges(ctx, store), openChangeIds(store)]);
    const removed = planRetention(changes, ctx.config, ctx.now(), { open, abandonOpen: true });
    try {
      if (!dryRun) await deleteRefs(store, removed);
      const gone = new Set(removed.map((r) => r.change.id));
      return { removed, changes: changes.filter((c) => !gone.has(c.id)) };
    } catch (error) {
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT') || attempt >= RETRIES) throw error;
    }
  }
};

/** A staged change still waiting keeps its session's test tree. */
const keepsTree = (c: Change): boolean =>
  c.fields.tier === 'staged' && (c.state === 'pending' || c.state === 'expired');

/** When `fettle test` last used the test tree at `path` (its admin dir says; else the directory's mtime). */
const lastUse = async (path: string): Promise<number> => {
  const admin = await adminDirOf(path);
  const use = admin ? await readUse(admin) : null;
  return (
    use?.usedAt ??
    (await lstat(path).then(
      (s) => s.mtimeMs,
      () => 0,
    ))
  );
};

/** Removes a test tree unless a `fettle test` is running in it (it holds the tree's lock): false then. */
const removeUnlessInUse = async (store: Store, name: string, progress: Progress): Promise<number | null> => {
  const remove = async () => {
    progress.step(`fettle: removing the test tree ${name}`);
    const removed = await removeHiddenWorktree(store, name, (so) =>
      progress.update(`fettle: removing the test tree ${name}: ${so.files} files`),
    );
    progress.done();
    return removed.bytes;
  };
  if (!isTestTreeName(name)) return remove();
  try {
    return await withLock(testLockPath(store, name), remove, { timeoutMs: 0 });
  } catch (error) {
    if (error instanceof FettleError && error.code === 'E_LOCKED') return null;
    throw error;
  }
};

/**
 * Test trees no staged change waits on and no `fettle test` used within the history kept
 * (FETTLE_HISTORY_MAX_AGE), and anything else under fettle/worktrees/ (an earlier fettle made one per change).
 */
const sweepWorktrees = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  o: { dryRun: boolean; progress: Progress },
): Promise<GcReport['worktrees']> => {
  const freed: GcReport['worktrees'] = [];
  const now = ctx.now().getTime();
  const live = new Set(changes.filter(keepsTree).map((c) => testTreeName(c.fields.session)));
  for (const dir of await hiddenDirs(store)) {
    if (isTestTreeName(dir.name)) {
      if (live.has(dir.name)) continue;
      if (now - (await lastUse(dir.path)) < ctx.config.historyMaxAgeSeconds * 1000) continue;
    }
    const bytes = o.dryRun ? (await sizeOf(dir.path)).bytes : await removeUnlessInUse(store, dir.name, o.progress);
    if (bytes !== null) freed.push({ name: dir.name, path: dir.path, bytes });
  }
  const swept = new Set(freed.map((f) => f.path));
  for (const wt of await registeredHidden(store)) {
    if (swept.has(wt.path)) continue;
    const exists = await lstat(wt.path).then(
      () => true,
      () => false,
    );
    if (exists) continue;
    if (o.dryRun || (await forgetMissing(store, wt.path))) freed.push({ name: wt.name, path: wt.path, bytes: 0 });
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
  options: { dryRun?: boolean; progress?: Progress } = {},
): Promise<GcReport> => {
  const dryRun = options.dryRun ?? false;
  const { removed, changes } = await retain(ctx, store, dryRun);
  const worktrees = await sweepWorktrees(ctx, store, changes, { dryRun, progress: options.progress ?? noProgress });
  const links = await sweepLinks(ctx, store, changes, dryRun);
  // Staged changes still open: their entries in the index of pending proposals stay.
  const open = new Set(changes.filter((c) => c.state === 'pending' || c.state === 'expired').map((c) => c.id));
  const aging = { maxAgeMs: ctx.config.historyMaxAgeSeconds * 1000, dryRun, nowMs: ctx.now().getTime() };
  const bookkeeping = [
    ...(await staleCalls(store.commonDir, { ...aging, maxAgeMs: CALL_ANSWER_MS })),
    ...(await staleStaged(store, open, dryRun)),
    // Kept as long as the history: the state logs of idle sessions, snapshots of Bash commands whose result was
    // never recorded, what idle sessions were given to read and the paths no session read since.
    ...(await staleStates(store.commonDir, aging)),
    ...(await staleSnapshots(ctx.config.dataDir, aging)),
    ...(await staleReads(ctx.config.dataDir, aging)),
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
