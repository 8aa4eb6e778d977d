// The process edge of the hook: read stdin as bytes, run, write the outcome, exit. Nothing below this
// reads process globals.
import { cleanUpOnSignals } from '../io/cleanup';
import { armFailpoints } from '../io/failpoint';
import { block } from './outcome';
import { runHook } from './run';

/** Larger input is not a Write payload fettle can handle (Claude Code's own limits are far below this). */
const MAX_INPUT_BYTES = 256 * 1024 * 1024;

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`hook input is larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
};

export const runHookProcess = async (): Promise<void> => {
  let outcome;
  try {
    armFailpoints(process.env.FETTLE_FAILPOINTS);
    cleanUpOnSignals();
    outcome = await runHook(await readStdin(), { cwd: process.cwd(), env: process.env, script: process.argv[1] });
  } catch (error) {
    // runHook maps every expected failure itself; reaching here is a bug. Fail closed and say so.
    const detail = process.env.FETTLE_DEBUG && error instanceof Error ? `\n${error.stack}` : ` (${String((error as Error)?.message ?? error)})`;
    outcome = block(`fettle hit an internal error and blocked this write; nothing was written${detail}. Set FETTLE_DEBUG=1 for details.`);
  }
  if (outcome.stdout) process.stdout.write(outcome.stdout);
  if (outcome.stderr) process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
};
