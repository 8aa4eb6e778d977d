// The hidden worktree of a staged change: registered with git and locked (so `git worktree prune` keeps it),
// under fettle's folder in the common git dir. Made on first use by `fettle test`, never on the hook path, and
// registered without a checkout: the fill, with an index of its own, is worktree-fill.ts's.
import { realpath, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { withLock } from '../io/lock';
import type { Store } from './store';
import { makeOwnDir } from '../io/fettle-dir';
import { exists } from '../io/exists';

export const fettleDir = (store: Store): string => join(store.commonDir, 'fettle');
export const worktreesDir = (store: Store): string => join(fettleDir(store), 'worktrees');
export const worktreePath = (store: Store, id: string): string => join(worktreesDir(store), id);

/**
 * `git worktree add` reads every registered worktree's admin files, and fails ("failed to read
 * worktrees/<id>/commondir") on one another `worktree add` is creating at that moment. fettle's own adds and
 * removes take this lock; the user's are rare and brief.
 */
export const withWorktreeLock = <T>(store: Store, fn: () => Promise<T>): Promise<T> =>
  withLock(join(fettleDir(store), 'locks', 'worktrees.lock'), fn, { timeoutMs: 20_000 });

/** Registers the worktree of `commit`, without a checkout: `fettle test` fills it (worktree-fill.ts). */
export const addHiddenWorktree = async (store: Store, id: string, commit: string): Promise<string> => {
  const dir = worktreePath(store, id);
  await makeOwnDir(dirname(dir));
  await withWorktreeLock(store, () =>
    store.git.run({
      args: [
        'worktree',
        'add',
        '-q',
        '--no-checkout',
        '--detach',
        '--lock',
        '--reason',
        `fettle staged change ${id}`,
        dir,
        commit,
      ],
    }),
  );
  return dir;
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

/** Unregisters and deletes the worktree; a missing one is not an error (it is disposable). */
export const removeHiddenWorktree = async (store: Store, id: string): Promise<void> => {
  const dir = worktreePath(store, id);
  if (!(await exists(dir))) {
    if (await exists(join(store.commonDir, 'worktrees', id))) await forgetMissing(store, dir);
    return;
  }
  // Two --force: the worktree is locked on purpose, and may hold files git does not track. Its admin entry
  // goes with it; `worktree prune` is not run here, as it could race another process's `worktree add`.
  await withWorktreeLock(store, () =>
    store.git.run({ args: ['worktree', 'remove', '--force', '--force', dir], okCodes: [128] }),
  );
  await rm(dir, { recursive: true, force: true });
};
