// Finding and filling fettle's hidden worktrees (creating and removing one is src/store/worktrees.ts).
// Everything here acts on worktrees under <common-dir>/fettle/worktrees/ only, never on the user's.
import { lstat, readdir, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Env } from '../config';
import { createGit } from './git';
import type { Store } from './store';
import { worktreesDir } from './worktrees';
import { exists } from '../io/exists';

export interface HiddenDir {
  id: string;
  path: string;
  /** last modification, epoch ms */
  mtimeMs: number;
}

/** Directories under fettle/worktrees/ (whether or not git still lists them). */
export const hiddenDirs = async (store: Store): Promise<HiddenDir[]> => {
  const root = worktreesDir(store);
  const names = await readdir(root).catch(() => [] as string[]);
  const dirs: HiddenDir[] = [];
  for (const id of names) {
    const info = await lstat(join(root, id)).catch(() => null);
    if (info?.isDirectory()) dirs.push({ id, path: join(root, id), mtimeMs: info.mtimeMs });
  }
  return dirs;
};

/** Worktrees git has registered under fettle/worktrees/. */
export const registeredHidden = async (store: Store): Promise<{ id: string; path: string }[]> => {
  const out = await store.git.text({ args: ['worktree', 'list', '--porcelain', '-z'] });
  const prefix = worktreesDir(store) + sep;
  return out
    .split('\0')
    .filter((field) => field.startsWith('worktree '))
    .map((field) => field.slice('worktree '.length))
    .filter((path) => path.startsWith(prefix))
    .map((path) => ({ id: path.slice(prefix.length), path }));
};

/** Bytes of the files under `dir` (what removing it frees). */
export const sizeOf = async (dir: string): Promise<number> => {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(path);
    else total += (await lstat(path).catch(() => null))?.size ?? 0;
  }
  return total;
};

const FILLED_MARK = 'fettle-filled';

/**
 * Checks the full tree of the worktree's HEAD out into it, once: an index of its own (never the user's) and
 * every file, overwriting the one file staging wrote. A mark in the worktree's admin dir says it is done,
 * so an interrupted fill is redone.
 */
export const fillWorktree = async (dir: string, env: Env): Promise<boolean> => {
  const git = createGit(dir, env);
  const admin = await git.text({ args: ['rev-parse', '--absolute-git-dir'] });
  const mark = join(admin, FILLED_MARK);
  if (await exists(mark)) return false;
  await git.run({ args: ['read-tree', 'HEAD'] });
  await git.run({ args: ['checkout-index', '--all', '--force'] });
  await writeFile(mark, '');
  return true;
};
