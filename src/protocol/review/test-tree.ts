// The tree `fettle test` runs a command in: the agent session's hidden worktree, holding the user's work tree as
// `fettle confirm` would leave it. That is HEAD's tree plus everything `git status` lists there (the user's
// uncommitted edits, the agent's direct writes, untracked files that are not ignored, deletions), with the chosen
// staged changes applied on top exactly as confirm would write them: the proposal where the file still holds the
// bytes it was staged on, else the clean three-way merge, and confirm's own refusal otherwise. One worktree per
// agent session (one shared by changes without a session), made on first use and kept: later runs move it to the
// new tree in place, writing only the paths that differ (worktree-sync.ts). The hook comes here only for a policy
// `run` rule that matches a write (proposed-tree.ts), which asks for it.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionName } from '../../core/session';
import { isLadderSession } from '../../core/session-ladder';
import { FettleError } from '../../errors';
import { fileModeOf, gitModeOf, readDisk } from '../../io/atomic-write';
import { exists } from '../../io/exists';
import { withLock } from '../../io/lock';
import type { Progress } from '../../io/progress';
import { writeBlobs, writeCommit } from '../../store/objects';
import type { Store } from '../../store/store';
import { writeEditedTree, type Leaf } from '../../store/tree-write';
import { readWorkTree, type WorkTreeState } from '../../store/work-tree-state';
import { syncWorktree, type Synced } from '../../store/worktree-sync';
import {
  addHiddenWorktree,
  adminDirOf,
  fettleDir,
  forgetMissing,
  removeHiddenWorktree,
  worktreePath,
} from '../../store/worktrees';
import type { Change } from '../changes';
import { planOver } from './confirm-plan';
import type { Context } from '../context';
import { diskPathOf } from '../paths';
import { checkLinks, makeLinks, type Linked, type LinkRequest } from './test-links';

/** The test tree of changes without an agent session. */
export const SHARED_TREE = 'no-session';
const SESSION_PREFIX = 'session-';

export const testTreeName = (session: string | undefined): string =>
  session === undefined ? SHARED_TREE : `${SESSION_PREFIX}${sessionName(session)}`;

export const isTestTreeName = (name: string): boolean => name === SHARED_TREE || name.startsWith(SESSION_PREFIX);

export const testLockPath = (store: Store, name: string): string =>
  join(fettleDir(store), 'locks', `test-${name}.lock`);

/** Kept in the worktree's admin dir: whose tree it is, and when `fettle test` last used it (for `fettle gc`). */
const USE_FILE = 'fettle-test.json';

export interface TreeUse {
  session: string | null;
  /** epoch ms */
  usedAt: number;
  /** the paths linked into it (see test-links.ts) */
  links?: string[];
}

export const readUse = async (admin: string): Promise<TreeUse | null> => {
  try {
    const use = JSON.parse(await readFile(join(admin, USE_FILE), 'utf8')) as Partial<TreeUse>;
    if (typeof use.usedAt !== 'number') return null;
    const links = Array.isArray(use.links) ? use.links.filter((l): l is string => typeof l === 'string') : [];
    return { session: use.session ?? null, usedAt: use.usedAt, links };
  } catch {
    return null;
  }
};

export interface Landing {
  change: Change;
  /** the file confirm would write */
  file: string;
  how: 'written' | 'merged' | 'already-on-disk' | 'conflicts';
}

export interface TestTree {
  name: string;
  dir: string;
  /** the user's work tree it mirrors */
  source: string;
  /** the agent session whose tree it is; undefined for the shared one */
  session: string | undefined;
  /** made by this run */
  fresh: boolean;
  landings: Landing[];
  work: Pick<WorkTreeState, 'read' | 'gone' | 'kept'>;
  synced: Synced;
  links: Linked;
}

const requireStaged = (change: Change): void => {
  if (change.fields.tier === 'staged' && (change.state === 'pending' || change.state === 'expired')) return;
  throw new FettleError(
    'E_USAGE',
    `Change ${change.id} is ${change.state}; only a staged change not yet confirmed or discarded has a staged tree to test.`,
    {
      hint: change.state === 'applied' ? 'Its content is in your working tree now: run the command there.' : undefined,
    },
  );
};

/** The one work tree the changes' files are in (linked worktrees share a store; confirm writes each to its own). */
const sourceOf = async (store: Store, changes: Change[]): Promise<{ source: string; files: string[] }> => {
  if (store.kind !== 'repo')
    throw new FettleError(
      'E_USAGE',
      `Change ${changes[0]?.id} is to a file outside any git repository; fettle test runs in a repository's test tree.`,
    );
  const files = await Promise.all(changes.map((c) => diskPathOf(store, c.fields)));
  const roots = new Set(
    files.map((file, n) => file.slice(0, file.length - (changes[n] as Change).fields.path.length - 1)),
  );
  if (roots.size > 1)
    throw new FettleError('E_USAGE', `The changes named are in different work trees (${[...roots].join(', ')}).`, {
      hint: 'Test the changes of one work tree at a time.',
    });
  return { source: [...roots][0] as string, files };
};

/**
 * What confirming the changes one after another would write, as tree leaves: each over the file as the changes
 * before it left it. A change confirm would refuse throws confirm's own error.
 */
const landingsOf = async (store: Store, changes: Change[], files: string[]) => {
  const landings: Landing[] = [];
  const leaves = new Map<string, Leaf>();
  const virtual = new Map<string, { bytes: Buffer; mode: number } | null>();
  for (const [n, change] of changes.entries()) {
    const file = files[n] as string;
    const disk = virtual.has(file) ? (virtual.get(file) ?? null) : await readDisk(file);
    // Confirm's own plan of this file, over what the earlier changes left: the same bytes, or the same refusal.
    const { how, bytes, proposal } = await planOver(store, change, file, disk);
    landings.push({ change, file, how });
    if (bytes === null || proposal === null) {
      // The change removes the file (a contract's delete).
      virtual.set(file, null);
      leaves.set(change.fields.path, null);
      continue;
    }
    const mode = disk ? gitModeOf(disk.mode) : proposal.mode;
    const oid = bytes === proposal.bytes ? proposal.oid : ((await writeBlobs(store, [bytes]))[0] as string);
    virtual.set(file, { bytes, mode: disk?.mode ?? fileModeOf(proposal.mode) });
    leaves.set(change.fields.path, { mode, oid });
  }
  return { landings, leaves };
};

/**
 * Runs `fn` holding the test tree's lock; a second `fettle test` of the same tree waits for the first (an hour,
 * or `waitMs`).
 */
export const holdingTree = async <T>(
  store: Store,
  name: string,
  o: { progress: Progress; waitMs?: number },
  fn: () => Promise<T>,
): Promise<T> => {
  let started = false;
  const body = () => {
    started = true;
    return fn();
  };
  try {
    return await withLock(testLockPath(store, name), body, { timeoutMs: 0 });
  } catch (error) {
    if (started || !(error instanceof FettleError && error.code === 'E_LOCKED')) throw error;
  }
  o.progress.step(`fettle: waiting for another fettle test to finish in the test tree ${name}`);
  return withLock(testLockPath(store, name), body, { timeoutMs: o.waitMs ?? 60 * 60 * 1000 });
};

const whoseTree = (session: string | undefined): string =>
  session === undefined
    ? 'changes without an agent session'
    : isLadderSession(session)
      ? `the commands' session ${session}`
      : `agent session ${session}`;

/** The registered worktree `name`, made (first use) or made again (gone, or left broken by a kill). */
const ensureWorktree = async (store: Store, name: string, commit: string, reason: string, progress: Progress) => {
  const dir = worktreePath(store, name);
  const admin = await adminDirOf(dir);
  if (admin) return { dir, admin, fresh: !(await exists(join(admin, 'index'))) };
  if (await exists(dir)) {
    progress.step(`fettle: removing the test tree ${name}, left incomplete by an interrupted run`);
    await removeHiddenWorktree(store, name, (so) => progress.update(`fettle: removing ${name}: ${so.files} files`));
    progress.done();
  } else await forgetMissing(store, dir);
  await addHiddenWorktree(store, name, commit, reason);
  const made = await adminDirOf(dir);
  if (!made) throw new FettleError('E_INTERNAL', `internal error: git registered no worktree at ${dir}`);
  return { dir, admin: made, fresh: true };
};

/** A test tree as synced, before a command runs in it. */
export type SyncedTree = Omit<TestTree, 'landings'>;

/**
 * Brings the test tree `name` to the user's work tree `source` with `leaves` set over it (the caller holds the
 * tree's lock). `base` is the commit its HEAD names when the user's HEAD is unborn.
 */
export const syncTestTree = async (
  ctx: Context,
  store: Store,
  t: { name: string; session: string | undefined; source: string; leaves: Map<string, Leaf>; base?: string },
  o: { links: readonly LinkRequest[]; progress: Progress },
): Promise<SyncedTree> => {
  const { name, session, source } = t;
  const { progress } = o;
  const work = await readWorkTree(store, source, ctx.env, progress);
  for (const [path, leaf] of t.leaves) work.edits.set(path, leaf);
  const tree = await writeEditedTree(store, work.head, work.edits);
  const commit = work.head ?? t.base ?? (await writeCommit(store, tree, [], 'fettle: a test tree', ctx.now()));
  const links = await checkLinks(store, source, tree, o.links);
  const reason = `fettle test tree of ${whoseTree(session)}`;
  const { dir, admin, fresh } = await ensureWorktree(store, name, commit, reason, progress);
  if (fresh)
    progress.step(`fettle: creating the test tree of ${whoseTree(session)} (first use): checking out your files`);
  else progress.step('fettle: updating the test tree', { delayMs: 1000 });
  const synced = await syncWorktree(dir, admin, ctx.env, { tree, commit }, { keep: links.linked, fresh, progress });
  const before = (await readUse(admin))?.links ?? [];
  await makeLinks(source, dir, links.linked, before, progress);
  progress.done();
  const use: TreeUse = { session: session ?? null, usedAt: ctx.now().getTime(), links: links.linked };
  await writeFile(join(admin, USE_FILE), `${JSON.stringify(use)}\n`);
  const { read, gone, kept } = work;
  return { name, dir, source, session, fresh, work: { read, gone, kept }, synced, links };
};

/**
 * Brings the test tree of the changes' session to the user's work tree with the changes applied, then runs `run`
 * in it, holding the tree's lock throughout (no other `fettle test` moves it while the command runs).
 */
export const withTestTree = async <T>(
  ctx: Context,
  store: Store,
  changes: Change[],
  o: { links: readonly LinkRequest[]; progress: Progress },
  run: (tree: TestTree) => Promise<T>,
): Promise<T> => {
  for (const change of changes) requireStaged(change);
  const sessions = new Set(changes.map((c) => c.fields.session));
  const session = sessions.size === 1 ? [...sessions][0] : undefined;
  const name = testTreeName(session);
  const { source, files } = await sourceOf(store, changes);
  return holdingTree(store, name, o, async () => {
    const { landings, leaves } = await landingsOf(store, changes, files);
    const base = (changes[0] as Change).tip;
    const tree = await syncTestTree(ctx, store, { name, session, source, leaves, base }, o);
    return run({ ...tree, landings });
  });
};
