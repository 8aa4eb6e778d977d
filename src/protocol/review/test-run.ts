// `fettle test <id> -- <cmd>`: running the command in the test tree (test-tree.ts makes it): where it starts, the
// environment it gets, and its exit status. The user's working tree, index and HEAD are not involved.
import { spawn, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Env } from '../../config';
import type { Store } from '../../store/store';
import { exists } from '../../io/exists';

/** Where the command starts: the worktree's copy of the directory fettle was run from, if it has one. */
export const startDir = async (source: string, cwd: string, dir: string): Promise<string> => {
  const rel = relative(source, cwd);
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

/**
 * Runs `argv` with the caller's stdin, stdout and stderr, streaming as it goes; `stdout: 'stderr'` sends its
 * output to the caller's stderr and gives it no stdin (a contract's checks: fettle's stdout stays its own).
 */
export const runCommand = (
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  o: { stdout?: 'inherit' | 'stderr' } = {},
): Promise<RunResult> =>
  new Promise((resolve) => {
    const [cmd = '', ...args] = argv;
    const stdio: StdioOptions = o.stdout === 'stderr' ? ['ignore', 2, 2] : 'inherit';
    const child = spawn(cmd, args, { cwd, env, stdio });
    child.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ code: e.code === 'ENOENT' ? 127 : 126, error: e.code === 'ENOENT' ? 'command not found' : e.message }),
    );
    child.on('close', (code, signal) => {
      if (signal) resolve({ code: 128 + (constants.signals[signal] ?? 0), signal });
      else resolve({ code: code ?? 1 });
    });
  });
