// A hook call that may run out of memory runs in a child process of its own; this one only waits for its answer.
// Running out of memory cannot be caught in the process it happens in: V8 aborts (exit 134, a native stack on
// stderr), which the client reads as a non-blocking error, and the write would go through unrecorded. A child's
// death is caught here instead, and the call blocked with one line. Supervised: a large input, and every call
// under an address-space limit (`ulimit -v`), where node itself aborts at random when a thread's malloc arena
// or a heap page no longer fits. Other calls, nearly all, run in process: a second process start would cost
// more than they take.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { HAND_OFF_MAX } from '../core/command-call';
import { sniffEvent } from '../core/hook-event';
import { block, replayed, type HookOutcome } from './outcome';

export { sniffEvent };

/**
 * Inputs from this size run in a child (the 5 MB writes of the benchmark still run in process); a command hook
 * keeps them from the resident server too (the same size).
 */
export const SUPERVISE_FROM = HAND_OFF_MAX;

/** Whether `limits` (/proc/<pid>/limits) sets an address-space or data-size limit: `ulimit -v`, `ulimit -d`. */
export const memoryLimited = (limits: string): boolean => /^Max (address space|data size) +\d/m.test(limits);

/** This process's limits, as Linux shows them; elsewhere none (macOS does not enforce `ulimit -v`). */
export const ownLimits = (): string => {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
};

/** Set in the child's environment: it writes its outcome as JSON on stdout, and this process renders it. */
export const CHILD_MARK = 'FETTLE_HOOK_CHILD';

export interface Supervision {
  /** how fettle was started (cli.js, or the plugin's bin/fettle) */
  script: string;
  agent: string | undefined;
  env: NodeJS.ProcessEnv;
  debug: boolean;
}

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** One line for a child that gave no answer: blocked (exit 2), whatever the event. */
export const unfinished = (input: Buffer, why: string, detail = ''): HookOutcome => {
  const event = sniffEvent(input);
  const size = `${Math.round(input.length / (1 << 20))} MB`;
  const before = event === undefined || /^(Pre|Before)/.test(event);
  return block(
    before
      ? `fettle blocked this tool call: its hook ${why} on a ${size} input before it could record anything; nothing was written.${detail}`
      : `fettle could not record this ${event}: its hook ${why} on a ${size} input; nothing was recorded.${detail}`,
  );
};

const describeEnd = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal ? `ran out of memory or was killed (${signal})` : `ended without an answer (exit ${code})`;

/** Runs the hook for `input` in a child, and answers with its outcome; a child that gives none blocks the call. */
export const superviseHook = (input: Buffer, o: Supervision): Promise<HookOutcome> =>
  new Promise((resolve) => {
    const args = [o.script, 'hook', ...(o.agent === undefined ? [] : ['--agent', o.agent])];
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, args, { env: { ...o.env, [CHILD_MARK]: '1' }, stdio: 'pipe' });
    } catch (error) {
      resolve(unfinished(input, `could not start (${(error as Error).message})`));
      return;
    }
    // Told to stop (the client's timeout), this process passes it on: the child must not record after that.
    const forward = SIGNALS.map((signal) => {
      const pass = () => child.kill(signal);
      process.prependOnceListener(signal, pass);
      return () => process.removeListener(signal, pass);
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.stdin?.on('error', () => undefined); // a child that died before reading it all: its end says why
    const done = (answer: HookOutcome) => {
      for (const stop of forward) stop();
      resolve(answer);
    };
    child.on('error', (error) => done(unfinished(input, `could not start (${error.message})`)));
    child.on('close', (code, signal) => {
      const answer = replayed(Buffer.concat(out).toString('utf8'));
      const detail = o.debug ? `\n${Buffer.concat(err).toString('utf8').slice(-4000)}` : '';
      done(answer ?? unfinished(input, describeEnd(code, signal), detail));
    });
    child.stdin?.end(input);
  });
