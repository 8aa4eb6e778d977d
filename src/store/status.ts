// The one `git status` the Bash hook runs before and after a command, and the paths two HEADs differ at. The
// user's index is only read: `--no-optional-locks` keeps status from saving its stat refresh there. The
// untracked cache and the fsmonitor the user configured are used as they are (status reads them; with the
// option above it writes neither), so fettle pays what the user's own `git status` pays, never more.
import type { Env } from '../config';
import { oldEntries, statusPaths, type StatusPaths } from '../core/porcelain';
import { createGit } from './git';
import type { Store } from './store';
import { hashObject } from './tree-codec';

export const STATUS_ARGS = [
  '--no-optional-locks',
  'status',
  '--porcelain=v2',
  '-z',
  '--branch',
  '--untracked-files=all',
  '--ignore-submodules=all',
  '--no-renames',
] as const;

/** The status of the work tree at `root`: every path that differs from the index or HEAD, or is untracked. */
export const workStatus = async (root: string, env: Env): Promise<StatusPaths> => {
  const git = createGit(root, env);
  const { stdout } = await git.run({ args: STATUS_ARGS, userConfig: ['core.fsmonitor'] });
  return statusPaths(stdout);
};

/** Each path whose entry differs between two commits (null: unborn), with its entry in `from` (null: absent). */
export const headMoves = async (
  store: Store,
  from: string | null,
  to: string | null,
): Promise<Map<string, { mode: string; oid: string } | null>> => {
  const empty = hashObject('tree', Buffer.alloc(0), store.objectFormat);
  const { stdout } = await store.git.run({
    args: ['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', from ?? empty, to ?? empty],
  });
  return oldEntries(stdout);
};
