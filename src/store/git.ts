// The single place fettle runs git. Calls are data ({args, input}); the runner adds the pinned config
// (git-config.ts), a scrubbed environment and a fixed identity, and returns bytes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { FettleError } from '../errors';
import type { Env } from '../config';
import { gitEnv } from '../io/child-env';
import { pinnedExcept } from './git-config';

export interface GitCall {
  args: readonly string[];
  input?: Buffer | string;
  /** exit codes that are answers, not failures (e.g. 1 for `merge-file` conflicts) */
  okCodes?: readonly number[];
  env?: Record<string, string>;
  /**
   * A process of its own, never one kept running (the resident server's): a kept `cat-file` still reads packs a
   * prune deleted since it opened them, so whether an object is on disk now is asked afresh.
   */
  fresh?: boolean;
  /** stdout goes here as it arrives, instead of into the result (a large diff is never held whole) */
  onStdout?: (chunk: Buffer) => void;
  /** stderr as it arrives (git's progress meter), besides being kept for the error message */
  onStderr?: (chunk: Buffer) => void;
  /**
   * Pinned settings left to the user's own config for this call: `git status` may use the fsmonitor the user
   * configured for their own status (it reads the work tree faster, and writes nothing with --no-optional-locks).
   */
  userConfig?: readonly string[];
  /** work nobody waits for (storage maintenance, retention): run at a lower CPU priority (see BACKGROUND_NICE) */
  background?: boolean;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export class GitError extends FettleError {
  readonly args: readonly string[];
  readonly exitCode: number;
  readonly stderr: string;
  constructor(args: readonly string[], exitCode: number, stderr: string, cause?: unknown) {
    const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `exit code ${exitCode}`;
    super('E_GIT', `git ${args[0] ?? ''} failed: ${first.replace(/^(fatal|error): /, '')}`, { cause });
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** A git process fed in steps (an `update-ref --stdin` transaction), reported as `run` reports one. */
export interface Conversation {
  /** writes to git's stdin, which stays open */
  write(text: string): void;
  /** ends stdin with `input`; resolves or rejects as `run` does */
  finish(input?: string): Promise<GitResult>;
  /** settles when git has exited, however it ended */
  closed: Promise<unknown>;
}

export interface GitRunner {
  /** Starts git for a conversation; its stdout goes to `onStdout` as it arrives. */
  start(args: readonly string[], onStdout?: (chunk: Buffer) => void): Conversation;
  /** Runs git in `cwd` (a work tree or git dir); rejects with GitError unless the exit code is accepted. */
  run(call: GitCall): Promise<GitResult>;
  /** stdout as trimmed text */
  text(call: GitCall): Promise<string>;
  /**
   * Starts `git <args>` now, idle on its stdin, so that a later `run` with the same args (and no env of its
   * own) finds it started: its start-up overlaps fettle's own work instead of adding to it. Only for commands
   * that do nothing before reading stdin and nothing on an empty one (`cat-file --batch`,
   * `update-ref --stdin`): one never used gets EOF when fettle exits, and exits having done nothing; or for one
   * that only reads, whose answer is wanted next (`for-each-ref`): it is kept until taken.
   */
  warm(args: readonly string[]): void;
  readonly cwd: string;
}

interface Warm {
  child: ChildProcessWithoutNullStreams;
  out: Buffer[];
  err: Buffer[];
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  failed: Error | null;
}

/** A warmed process not taken by then is ended (it would be taken within milliseconds if at all). */
const WARM_UNUSED_MS = 10_000;

/** Started processes waiting for their input, by argument list; shared by the runners of one store. */
export type WarmPool = Map<string, Warm[]>;
export const createWarmPool = (): WarmPool => new Map();

type Handle = { ref?: () => void; unref?: () => void };
const handlesOf = (child: ChildProcessWithoutNullStreams): Handle[] =>
  [child, child.stdin, child.stdout, child.stderr].filter(Boolean) as Handle[];

const collect = (
  child: ChildProcessWithoutNullStreams,
  onStdout?: (chunk: Buffer) => void,
  onStderr?: (chunk: Buffer) => void,
): Warm => {
  const warm: Warm = { child, out: [], err: [], failed: null, closed: Promise.resolve({ code: null, signal: null }) };
  // The 'error' listener comes first: a spawn that fails (EMFILE, ENOENT, EAGAIN) emits it on the next tick,
  // and leaves the stdio streams unset, so touching them first would throw past every error boundary.
  warm.closed = new Promise((resolve) => {
    child.on('error', (e) => {
      warm.failed = e;
      resolve({ code: -1, signal: null });
    });
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  child.stdout?.on('data', onStdout ?? ((c: Buffer) => warm.out.push(c)));
  child.stderr?.on('data', (c: Buffer) => {
    warm.err.push(c);
    onStderr?.(c);
  });
  // EPIPE when git exits before reading all input is reported through the exit code instead.
  child.stdin?.on('error', () => undefined);
  // A pipe that fails on its own (a read error) ends the call as a failure, never as an uncaught event.
  child.stdout?.on('error', (e) => {
    warm.failed ??= e;
  });
  child.stderr?.on('error', (e) => {
    warm.failed ??= e;
  });
  return warm;
};

/** What a failed start means for the person reading it; the errno stays in the message for searching. */
const spawnFailure = (e: NodeJS.ErrnoException): string =>
  e.code === 'EMFILE' || e.code === 'ENFILE'
    ? `${e.message}: this process is out of file descriptors (raise \`ulimit -n\` or close other programs)`
    : e.code === 'ENOENT'
      ? `${e.message}: git is not installed or not on PATH`
      : e.message;

const finish = async (warm: Warm, call: GitCall): Promise<GitResult> => {
  warm.child.stdin?.end(call.input ?? '');
  const { code, signal } = await warm.closed;
  if (warm.failed) throw new GitError(call.args, -1, `cannot run git: ${spawnFailure(warm.failed)}`, warm.failed);
  const stderr = Buffer.concat(warm.err).toString('utf8') || (signal ? `git was killed by ${signal}` : '');
  const result = { code: code ?? -1, stdout: Buffer.concat(warm.out), stderr };
  if (result.code === 0 || call.okCodes?.includes(result.code)) return result;
  throw new GitError(call.args, result.code, result.stderr);
};

/** A runner's `text`: the call's stdout as trimmed UTF-8. */
export const textOf =
  (run: GitRunner['run']): GitRunner['text'] =>
  async (call) =>
    (await run(call)).stdout.toString('utf8').trim();

/** A started process parked in the pool for a later `run` with its arguments, ended if none takes it in time. */
const keepWarm = (pool: WarmPool, key: string, warm: Warm): void => {
  // Idle, it must not keep fettle alive; `run` takes the handles back.
  for (const h of handlesOf(warm.child)) h.unref?.();
  pool.set(key, [...(pool.get(key) ?? []), warm]);
  // A hook process ends it at exit (EOF); a long-lived one must not collect processes it never used.
  setTimeout(() => {
    const waiting = pool.get(key) ?? [];
    if (!waiting.includes(warm)) return;
    pool.set(
      key,
      waiting.filter((w) => w !== warm),
    );
    warm.child.stdin?.end();
  }, WARM_UNUSED_MS).unref();
};

export const createGit = (
  cwd: string,
  env: Env,
  extraArgs: readonly string[] = [],
  pool: WarmPool = createWarmPool(),
): GitRunner => {
  const baseEnv = gitEnv(env);
  const spawnGit = (
    args: readonly string[],
    callEnv?: Record<string, string>,
    userConfig?: readonly string[],
    background = false,
  ) => {
    const child = spawn('git', [...pinnedExcept(userConfig), ...extraArgs, ...args], {
      cwd,
      env: callEnv ? { ...baseEnv, ...callEnv } : baseEnv,
      stdio: 'pipe',
    });
    if (background) lowerPriority(child.pid);
    return child;
  };
  const keyOf = (args: readonly string[]): string => [...extraArgs, ...args].join('\0');
  const run = (call: GitCall): Promise<GitResult> => {
    const own = call.env || call.onStdout || call.onStderr || call.userConfig || call.background;
    const warm = own ? undefined : pool.get(keyOf(call.args))?.shift();
    if (warm) {
      for (const h of handlesOf(warm.child)) h.ref?.();
      return finish(warm, call);
    }
    const child = spawnGit(call.args, call.env, call.userConfig, call.background);
    return finish(collect(child, call.onStdout, call.onStderr), call);
  };
  return {
    cwd,
    run,
    start: (args, onStdout) => {
      const started = collect(spawnGit(args), onStdout);
      return {
        write: (text) => void started.child.stdin?.write(text),
        finish: (input) => finish(started, { args, input }),
        closed: started.closed,
      };
    },
    text: textOf(run),
    warm: (args) => keepWarm(pool, keyOf(args), collect(spawnGit(args))),
  };
};

/**
 * How much nicer than fettle itself work nobody waits for runs. On a machine with as many busy cores as the agent, its tools and
 * fettle's server use, a roll-up's `git pack-objects` at the same priority took CPU from the next blocking hook
 * call; niced, it runs in what they leave. Raising one's own children's nice value needs no privilege.
 */
export const BACKGROUND_NICE = 10;

export const lowerPriority = (pid: number | undefined): void => {
  if (pid === undefined) return;
  try {
    setPriority(pid, Math.min(19, getPriority() + BACKGROUND_NICE));
  } catch {
    // gone already, or a platform without priorities: the work runs as it is
  }
};

/** The same runner, every call it starts marked `background` (the resident server's housekeeping). */
export const inBackground = (git: GitRunner): GitRunner => {
  const run = (call: GitCall) => git.run({ ...call, background: true });
  return { ...git, run, text: textOf(run) };
};
