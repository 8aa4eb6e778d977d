// The process edge of the hook: read stdin as bytes, run, write the outcome, exit. Nothing below this
// reads process globals.
import { isFettleError } from '../errors';
import { startServerInBackground } from '../protocol/serve/autostart';
import { servePaths } from '../protocol/serve/serve-paths';
import { cleanUpOnSignals } from '../io/cleanup';
import { armFailpoints } from '../io/failpoint';
import { selfCommand, spellCommands } from '../io/self';
import { readStdin } from '../io/stdin';
import type { AgentAdapters } from './edge';
import { emit } from './emit';
import { block, type HookOutcome } from './outcome';
import { auditHook, auditing } from './audit';
import { runHook } from './run';
import { CHILD_MARK, memoryLimited, ownLimits, SUPERVISE_FROM, superviseHook } from './supervise';

/** A failure no handler mapped: blocked. `debug`: FETTLE_DEBUG of the call, for the stack. */
export const internalError = (error: unknown, debug = Boolean(process.env.FETTLE_DEBUG)): HookOutcome => {
  const detail =
    debug && error instanceof Error ? `\n${error.stack}` : ` (${String((error as Error)?.message ?? error)})`;
  // A failure fettle knows (git could not start, the disk said no) is named as one; anything else is a bug.
  if (isFettleError(error) && error.code !== 'E_INTERNAL')
    return block(`fettle blocked this write because it failed before deciding; nothing was written${detail}.`);
  return block(
    `fettle hit an internal error and blocked this write; nothing was written${detail}. Set FETTLE_DEBUG=1 for details.`,
  );
};

/**
 * An error that escapes every await (an event a stream or child emits later) must not end the process with
 * Node's exit 1, which the client reads as "go ahead": before the outcome is decided it blocks like any
 * internal error; after, the decided exit code stands (a block stays a block) and only FETTLE_DEBUG hears of it.
 */
const guardLateErrors = (decided: () => HookOutcome | undefined): void => {
  const onLate = (error: unknown) => {
    const outcome = decided();
    if (outcome) {
      if (process.env.FETTLE_DEBUG) emit(2, `fettle: after deciding: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(outcome.exitCode);
    }
    const failed = internalError(error);
    if (failed.stderr) emit(2, failed.stderr);
    process.exit(failed.exitCode);
  };
  process.on('uncaughtException', onLate);
  process.on('unhandledRejection', onLate);
};

/** The hook for `input`, in process, or for a large input in a child (supervise.ts). */
const decide = async (input: Buffer, child: boolean, agent?: string, adapters?: AgentAdapters) => {
  const script = process.argv[1] ?? '';
  if (!child && (input.length >= SUPERVISE_FROM || memoryLimited(ownLimits())))
    return superviseHook(input, { script, agent, env: process.env, debug: Boolean(process.env.FETTLE_DEBUG) });
  const raw = input.toString('utf8');
  const edge = { cwd: process.cwd(), env: process.env, script, agent, adapters, facts: {} };
  const decided = await runHook(raw, edge);
  if (auditing(process.env)) await auditHook(raw, decided, edge);
  return decided;
};

/**
 * `agent`: the name `fettle hook --agent <name>` gives, if any; `adapters`: the other agents', in their bundle;
 * `read`: stdin, when the entry read it already (a call the resident server did not take, hook/thin.ts).
 */
export const runHookProcess = async (
  agent?: string,
  adapters?: AgentAdapters,
  read: () => Promise<Buffer> = readStdin,
): Promise<void> => {
  let outcome: HookOutcome | undefined;
  guardLateErrors(() => outcome);
  let decided: HookOutcome;
  // Not passed on: what this process starts (git, maintenance, a server) is no supervised hook.
  const child = process.env[CHILD_MARK] === '1';
  delete process.env[CHILD_MARK];
  try {
    armFailpoints(process.env.FETTLE_FAILPOINTS);
    cleanUpOnSignals();
    decided = await decide(await read(), child, agent, adapters);
  } catch (error) {
    // runHook maps every expected failure itself; reaching here is a bug. Fail closed and say so.
    decided = internalError(error);
  }
  outcome = decided;
  process.exitCode = decided.exitCode;
  // A supervised child: its outcome goes to the process that started it, which renders it.
  if (child) return emit(1, JSON.stringify(decided));
  try {
    if (decided.stdout) emit(1, decided.stdout);
  } catch (error) {
    // The reader went away (EPIPE): a deny or ask it never read would let the client write. Block instead,
    // which needs no stdout; a note it never read is simply lost.
    if (!decided.stops) return;
    outcome = block(`fettle could not deliver its answer (${(error as Error).message}); nothing was written.`);
    process.exitCode = outcome.exitCode;
    emit(2, outcome.stderr ?? '');
    return;
  }
  // fettle's own messages (never a file's content: a diff goes to stdout) name commands the reader can run as printed.
  if (decided.stderr) emit(2, spellCommands(decided.stderr, selfCommand(process.env, process.argv[1])));
};

/**
 * After a call answered in process because no resident server runs: start one in the background, so the next
 * calls are handed to it (docs/RESIDENT.md, "Started by the first hook call").
 */
export const autostartServer = (): void => {
  startServerInBackground(servePaths(process.env), process.env, process.argv[1] ?? '', Date.now());
};
