// The hook's outcomes in an HTTP hook's terms (checked against Claude Code 2.1.330, docs/HOOK.md): a 2xx JSON
// body is read as a command hook's stdout; `{"decision":"block","reason"}` blocks with the reason as the tool's
// error, as exit 2 does with stderr; `systemMessage` is shown to the user and not to the model, as exit 1's
// stderr is. Any other status, a body that is not JSON, or no answer is the hook's failure: `onFailure`
// decides, and fettle installs the blocking hook with "block".
import type { HookOutcome } from './outcome';

export const answerOf = (outcome: HookOutcome): string => {
  if (outcome.exitCode === 0) return outcome.stdout ?? '';
  const text = (outcome.stderr ?? '').trimEnd();
  return JSON.stringify(outcome.exitCode === 2 ? { decision: 'block', reason: text } : { systemMessage: text });
};

/** The events whose hook can stop the write: a refused call of one of them is blocked, never let through. */
const BLOCKING = new Set(['PreToolUse']);

/** What a request with a wrong token gets: likely this user's own session, started with an old token. */
export const wrongTokenAnswer = (event: string | undefined): string =>
  BLOCKING.has(event ?? '')
    ? JSON.stringify({
        decision: 'block',
        reason:
          "fettle blocked this write: its resident server refused the hook call because this Claude Code session's FETTLE_SERVE_TOKEN is not the server's token (it was reset after the session started). Nothing was written. Tell the user to start Claude Code again from a shell that exports the current token (`fettle serve --status` shows how), or to go back to command hooks with `fettle install`.",
      })
    : JSON.stringify({
        systemMessage:
          "fettle's resident server refused this hook call: the session's FETTLE_SERVE_TOKEN is not the server's token. Start Claude Code again from a shell that exports the current one (`fettle serve --status`).",
      });

/** A command hook's result (the command path, run for a call this server must not answer itself). */
export const outcomeOfProcess = (code: number | null, stdout: string, stderr: string): HookOutcome => {
  if (code === 0 || code === 1 || code === 2) return { exitCode: code, stdout, stderr };
  return {
    exitCode: 2,
    stderr: `fettle blocked this write: the fettle it handed the call to ended without an answer (exit ${code}); nothing was written.${stderr ? ` ${stderr.trim()}` : ''}\n`,
  };
};
