// `fettle test <id> -- <cmd>`: running the command in the test tree (test-tree.ts makes it): where it starts, the
// environment it gets, and its exit status; and a policy `run` rule's command, captured and timed out
// (proposed-tree.ts). The user's working tree, index and HEAD are not involved.
import { spawn, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Env } from '../../config';
import type { RunInvocation, RunOutcome } from '../../core/policy-run';
import { offStop, onStop } from '../../io/cleanup';
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

/** Bytes of a captured command's output kept while it runs: its end (core/policy-run.ts shows less). */
const KEEP_BYTES = 64 * 1024;
/** After a timeout's SIGTERM, how long the command's processes get before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** After the command exits, how long what it started in its group may keep its output open. */
const EXIT_GRACE_MS = 500;

/** Kills the command's process group (it was started as its own group), else the process alone. */
const killGroup = (pid: number | undefined, signal: NodeJS.Signals): void => {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // gone already
  }
};

/**
 * Runs a `run` rule's command with no stdin, its stdout and stderr captured together (their end kept), stopped
 * with its whole process group at `timeoutMs` (SIGTERM, then SIGKILL). A signal that stops fettle meanwhile
 * stops the command too (io/cleanup.ts).
 */
export const runCaptured = (
  run: RunInvocation,
  cwd: string,
  env: Record<string, string>,
  o: { timeoutMs: number },
): Promise<RunOutcome> =>
  new Promise((resolve) => {
    const [cmd = '', ...args] = 'shell' in run ? [run.shell] : run.argv;
    const shell = 'shell' in run;
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], shell, detached: true });
    const stop = () => killGroup(child.pid, 'SIGKILL');
    if (child.pid !== undefined) onStop(stop);
    let kept = Buffer.alloc(0);
    const keep = (chunk: Buffer) => {
      kept = Buffer.concat([kept, chunk]);
      if (kept.length > KEEP_BYTES) kept = kept.subarray(kept.length - KEEP_BYTES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];
    const expire = () => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      timers.push(setTimeout(stop, KILL_GRACE_MS));
    };
    timers.push(setTimeout(expire, o.timeoutMs));
    // A process it left in the background holding its output open would hold the result until the timeout.
    child.on('exit', () => timers.push(setTimeout(stop, EXIT_GRACE_MS)));
    let done = false;
    const finish = (r: Omit<RunOutcome, 'output' | 'timedOut'>) => {
      if (done) return;
      done = true;
      for (const timer of timers) clearTimeout(timer);
      offStop(stop);
      stop(); // what the command left running in its group
      resolve({ ...r, timedOut, output: kept.toString('utf8') });
    };
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish({ code: e.code === 'ENOENT' ? 127 : 126, error: e.code === 'ENOENT' ? 'command not found' : e.message }),
    );
    child.on('close', (code, signal) => {
      if (signal) finish({ code: 128 + (constants.signals[signal] ?? 0), signal });
      else finish({ code: code ?? 1 });
    });
  });
