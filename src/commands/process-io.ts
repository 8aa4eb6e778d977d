// What a command process gets from Node and how its failure is said, for both programs: the full one (index.ts,
// commander and every command) and the glance (glance.ts, `status` and `log` without commander).
import { isatty } from 'node:tty';
import { exitCodeFor, toFettleError } from '../errors';
import { cleanUpOnSignals } from '../io/cleanup';
import { armFailpoints } from '../io/failpoint';
import { readStdin } from '../io/stdin';
import { page } from './pager';
import { spelled, type Edge, type Io } from './edge';

export const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

export const defaultIo = (): Io => ({
  out,
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  stdin: readStdin,
  script: process.argv[1],
  isTTY: Boolean(process.stdout.isTTY),
  // isatty, not process.stdin.isTTY: building process.stdin turns a piped descriptor non-blocking (io/stdin.ts).
  // stdout first: with stdout not a terminal, a glance never loads node:tty (scripts/lazy-builtins.mjs).
  terminal: Boolean(process.stdout.isTTY) && isatty(0),
  page: (text) => (process.stdout.isTTY ? page(text, process.env, out) : out(text)),
  errWrite: (raw) => process.stderr.write(raw),
  errTTY: Boolean(process.stderr.isTTY),
  columns: process.stderr.columns,
});

let signalsHandled = false;

/**
 * A reader that stops reading (`fettle log | head`) makes the next write to stdout fail with EPIPE, an 'error'
 * event Node reports with a stack when nobody listens. Nothing failed that the person asked for, and a command
 * that changes something must not stop halfway because its output is unread: the rest of the output is dropped,
 * the command runs to its end and exits with its own code. Any other error on stdout stays an error.
 */
const dropOnClosedReader = (error: NodeJS.ErrnoException): void => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
};

/**
 * Before a command runs: failpoints armed (tests), temp files cleaned up on a signal, and output to a closed
 * reader dropped; once a process.
 */
export const startCommand = (edge: Edge): void => {
  armFailpoints(edge.env.FETTLE_FAILPOINTS);
  if (!signalsHandled) {
    cleanUpOnSignals();
    process.stdout.on('error', dropOnClosedReader);
  }
  signalsHandled = true;
};

/**
 * A command's failure, said once: the message and the next command to run (each spelled for the caller's shell,
 * run in `dir`), as JSON too under --json, a stack only with FETTLE_DEBUG. Returns the exit code.
 */
export const reportFailure = (edge: Edge, argv: readonly string[], dir: string | undefined, error: unknown): number => {
  const e = toFettleError(error);
  const message = spelled(edge, dir, e.message);
  const hint = e.hint === undefined ? undefined : spelled(edge, dir, e.hint);
  if (argv.includes('--json')) edge.io.out(JSON.stringify({ error: { code: e.code, message, hint } }));
  edge.io.err(`fettle: ${message}${hint ? `\n${hint}` : ''}`);
  if (edge.env.FETTLE_DEBUG && error instanceof Error) edge.io.err(String(error.stack));
  return exitCodeFor(e);
};
