// `fettle test <id> -- <cmd>`: run a command in the staged change's hidden worktree, filled with the whole
// staged tree on first use. The user's working tree, index and HEAD are not involved: the worktree has its
// own index and HEAD, under fettle's folder in the git dir.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Env } from '../config';
import { FettleError } from '../errors';
import { withLock } from '../io/lock';
import { fillWorktree } from '../store/worktree-fill';
import type { Store } from '../store/store';
import { addHiddenWorktree, fettleDir, forgetMissing, worktreePath } from '../store/worktrees';
import type { Change } from './changes';
import type { Context } from './context';
import { exists } from '../io/exists';

/** The hidden worktree, recreated if it went missing, and filled once. */
export const prepareWorktree = async (
  ctx: Context,
  store: Store,
  change: Change,
): Promise<{ dir: string; filled: boolean }> => {
  if (change.state !== 'pending' && change.state !== 'expired') {
    throw new FettleError(
      'E_USAGE',
      `Change ${change.id} is ${change.state}; only a staged change not yet confirmed or discarded has a staged tree to test.`,
      {
        hint:
          change.state === 'applied' ? 'Its content is in your working tree now: run the command there.' : undefined,
      },
    );
  }
  const dir = worktreePath(store, change.id);
  return withLock(join(fettleDir(store), 'locks', `test-${change.id}.lock`), async () => {
    if (!(await exists(dir))) {
      await forgetMissing(store, dir);
      await addHiddenWorktree(store, change.id, change.tip);
    }
    return { dir, filled: await fillWorktree(dir, ctx.env) };
  });
};

/** Where the command starts: the worktree's copy of the directory fettle was run from, if it has one. */
export const startDir = async (store: Store, cwd: string, dir: string): Promise<string> => {
  if (store.kind !== 'repo') return dir;
  const rel = relative(store.workTree, cwd);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return dir;
  const inside = join(dir, rel);
  return (await exists(inside)) ? inside : dir;
};

/** The caller's environment without the variables that would point git at the user's repository. */
export const commandEnv = async (store: Store, env: Env): Promise<Record<string, string>> => {
  const local = new Set((await store.git.text({ args: ['rev-parse', '--local-env-vars'] })).split('\n'));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !local.has(key)) out[key] = value;
  return out;
};

export interface RunResult {
  /** the exit code; 128 + n for a signal, as shells report it; 127 when the command cannot be found */
  code: number;
  signal?: string;
  /** why the command could not start */
  error?: string;
}

/** Runs `argv` with the caller's stdin, stdout and stderr, streaming as it goes. */
export const runCommand = (argv: string[], cwd: string, env: Record<string, string>): Promise<RunResult> =>
  new Promise((resolve) => {
    const [cmd = '', ...args] = argv;
    const child = spawn(cmd, args, { cwd, env, stdio: 'inherit' });
    child.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ code: e.code === 'ENOENT' ? 127 : 126, error: e.code === 'ENOENT' ? 'command not found' : e.message }),
    );
    child.on('close', (code, signal) => {
      if (signal) resolve({ code: 128 + (constants.signals[signal] ?? 0), signal });
      else resolve({ code: code ?? 1 });
    });
  });
