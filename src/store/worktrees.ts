// fettle's hidden worktrees (the test trees of `fettle test`): registered with git and locked (so
// `git worktree prune` keeps them), under fettle's folder in the common git dir. Made on first use by
// `fettle test`, never on the hook path, registered without a checkout (worktree-sync.ts fills and updates them
// with an index of their own), and removed only by `fettle gc`.
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { withLock } from '../io/lock';
import { removeTree, type Removed } from '../io/remove-tree';
import type { Store } from './store';
import { makeOwnDir } from '../io/fettle-dir';
import { exists } from '../io/exists';

export const fettleDir = (store: Store): string => join(store.commonDir, 'fettle');
export const worktreesDir = (store: Store): string => join(fettleDir(store), 'worktrees');
export const worktreePath = (store: Store, name: string): string => join(worktreesDir(store), name);

/**
 * `git worktree add` reads every registered worktree's admin files, and fails ("failed to read
 * worktrees/<id>/commondir") on one another `worktree add` is creating at that moment. fettle's own adds and
 * removes take this lock; the user's are rare and brief.
 */
export const withWorktreeLock = <T>(store: Store, fn: () => Promise<T>): Promise<T> =>
  withLock(join(fettleDir(store), 'locks', 'worktrees.lock'), fn, { timeoutMs: 20_000 });

/** Registers the worktree `name` at `commit`, locked, without a checkout. */
export const addHiddenWorktree = async (
  store: Store,
  name: string,
  commit: string,
  reason: string,
): Promise<string> => {
  const dir = worktreePath(store, name);
  await makeOwnDir(dirname(dir));
  await withWorktreeLock(store, () =>
    store.git.run({
      args: ['worktree', 'add', '-q', '--no-checkout', '--detach', '--lock', '--reason', reason, dir, commit],
    }),
  );
  return dir;
};

/** The worktree's own git dir (`<common>/worktrees/<name>`), from its `.git` file; null when that is gone. */
export const adminDirOf = async (dir: string): Promise<string | null> => {
  const text = await readFile(join(dir, '.git'), 'utf8').catch(() => '');
  const admin = /^gitdir: (.+)$/m.exec(text)?.[1];
  return admin && (await exists(join(admin, 'HEAD'))) ? admin : null;
};

/**
 * The work trees a person uses in this repository: the main one and linked ones (`git worktree list`), without
 * fettle's hidden worktrees or a bare main entry. Real paths, as fettle records them.
 */
export const userWorkTrees = async (store: Store): Promise<string[]> => {
  const out = await store.git.run({ args: ['worktree', 'list', '--porcelain', '-z'] });
  const hidden = worktreesDir(store) + sep;
  const trees: string[] = [];
  let current: string | null = null;
  for (const field of [...out.stdout.toString('utf8').split('\0'), '']) {
    if (field.startsWith('worktree ')) current = field.slice('worktree '.length);
    else if (field === 'bare') current = null;
    else if (field === '' && current !== null) {
      if (!current.startsWith(hidden)) trees.push(await realpath(current).catch(() => current as string));
      current = null;
    }
  }
  return trees;
};

/** Directories under fettle/worktrees/ (whether or not git still lists them). */
export const hiddenDirs = async (store: Store): Promise<{ name: string; path: string }[]> => {
  const root = worktreesDir(store);
  const dirs: { name: string; path: string }[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if ((await lstat(join(root, name)).catch(() => null))?.isDirectory()) dirs.push({ name, path: join(root, name) });
  }
  return dirs;
};

/** Worktrees git has registered under fettle/worktrees/. */
export const registeredHidden = async (store: Store): Promise<{ name: string; path: string }[]> => {
  const out = await store.git.text({ args: ['worktree', 'list', '--porcelain', '-z'] });
  const prefix = worktreesDir(store) + sep;
  return out
    .split('\0')
    .filter((field) => field.startsWith('worktree '))
    .map((field) => field.slice('worktree '.length))
    .filter((path) => path.startsWith(prefix))
    .map((path) => ({ name: path.slice(prefix.length), path }));
};

/**
 * Unregisters a hidden worktree whose directory is gone (a remove killed midway leaves git's admin entry).
 * `git worktree prune` would not: fettle's worktrees are locked, and prune keeps locked ones. Re-checked under
 * the worktree lock, so it cannot race fettle's own `worktree add`; false when the directory came back.
 */
export const forgetMissing = async (store: Store, path: string): Promise<boolean> =>
  withWorktreeLock(store, async () => {
    if (await exists(path)) return false;
    await store.git.run({ args: ['worktree', 'remove', '--force', '--force', path], okCodes: [128] });
    return true;
  });

/**
 * Deletes the worktree's files, one by one so `onProgress` can say how far it is (a test tree can hold the whole
 * repository), then unregisters it. A missing one is not an error (it is disposable). `git worktree prune` is
 * not run: it could race another process's `worktree add`, and would also prune the user's own missing worktrees.
 */
export const removeHiddenWorktree = async (
  store: Store,
  name: string,
  onProgress?: (so: Removed) => void,
): Promise<Removed> => {
  const dir = worktreePath(store, name);
  const removed = await removeTree(dir, onProgress);
  await forgetMissing(store, dir);
  return removed;
};
