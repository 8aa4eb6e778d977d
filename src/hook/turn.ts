// UserPromptSubmit: the session's next turn starts (protocol/turns.ts). Prints nothing (Claude Code would add
// this hook's stdout to the prompt) and never blocks: exit 2 here would erase the user's prompt.
import { loadConfig } from '../config';
import { toFettleError } from '../errors';
import { startTurn } from '../protocol/turns';
import type { HookEdge } from './edge';
import { pass, warn, type HookOutcome } from './outcome';
import type { TurnPayload } from './payload';

export const countTurn = async (turn: TurnPayload, edge: HookEdge): Promise<HookOutcome> => {
  if (!turn.session) return pass();
  try {
    await startTurn(loadConfig(edge.env).dataDir, turn.session);
    return pass();
  } catch (error) {
    const e = toFettleError(error);
    return warn(
      `fettle: could not count this prompt as a new turn: ${e.message}${e.hint ? ` ${e.hint}` : ''} Writes stay protected; \`fettle rollback --turn\` may group them with the previous turn.`,
    );
  }
};
