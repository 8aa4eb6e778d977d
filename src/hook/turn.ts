// UserPromptSubmit: the session's next turn starts (protocol/turns.ts), and the prompt is kept locally for the
// review page's timeline. Prints nothing of its own (Claude Code adds this hook's stdout to the prompt; a
// person's queued feedback goes there, hook/feedback.ts) and never blocks: exit 2 here would erase the prompt.
import { clockFrom, loadConfig } from '../config';
import { toFettleError } from '../errors';
import { startTurn } from '../protocol/turns';
import type { HookEdge } from './edge';
import { pass, warn, type HookOutcome } from './outcome';
import type { TurnPayload } from './payload';

export const countTurn = async (turn: TurnPayload, edge: HookEdge): Promise<HookOutcome> => {
  if (!turn.session) return pass();
  try {
    const said =
      turn.prompt === undefined
        ? undefined
        : { prompt: turn.prompt, at: clockFrom(edge.env)(), transcript: turn.transcript };
    await startTurn(loadConfig(edge.env).dataDir, turn.session, said);
    return pass();
  } catch (error) {
    const e = toFettleError(error);
    return warn(
      `fettle: could not count this prompt as a new turn: ${e.message}${e.hint ? ` ${e.hint}` : ''} Writes stay protected; \`fettle rollback --turn\` may group them with the previous turn.`,
    );
  }
};
