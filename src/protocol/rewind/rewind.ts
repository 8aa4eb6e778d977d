// `fettle rewind --turn <n>`: the files and the conversation of an agent session back to where turn n began. The
// files go back exactly as `rollback --turn` takes them (one rollback, undone by its own id); the conversation is
// forked through the agent's own command, planned before any file changes so a refusal there costs nothing.
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import type { Change } from '../changes';
import type { Context } from '../context';
import { rollbackChanges, type RollbackOutcome } from '../history/rollback';
import { selectTurn } from '../history/rollback-selection';
import { currentSession } from '../select/names';
import { openStore, settledChanges } from '../select/open';
import { type ConversationPlan, planConversation } from './conversation';

export interface RewindOptions {
  turn: number;
  session?: string | undefined;
  files: boolean;
  conversation: boolean;
  dryRun?: boolean | undefined;
  force?: boolean | undefined;
}

export interface RewoundFiles {
  store: Store;
  changes: Change[];
  outcome: RollbackOutcome;
}

export interface RewindOutcome {
  session: string;
  turn: number;
  /** null: not asked, or nothing the session changed since the turn began is left to undo */
  files: RewoundFiles | null;
  /** null: not asked */
  conversation: ConversationPlan | null;
}

const sessionAndAgent = async (ctx: Context, named: string | undefined) => {
  const all = await settledChanges(ctx, await openStore(ctx));
  const session = named ?? (await currentSession(ctx, all));
  if (session === undefined)
    throw new FettleError('E_NOT_FOUND', 'No agent session has changes recorded here.', {
      hint: "Name one with `--session <id>` (`fettle log` shows each change's session).",
    });
  const agent = all.find((c) => c.fields.session === session && c.fields.agent !== undefined)?.fields.agent;
  return { session, agent };
};

/** What the session changed since the turn began; null when nothing is left but the conversation rewinds. */
const turnChanges = async (ctx: Context, session: string, turn: number, forked: boolean) => {
  try {
    return await selectTurn(ctx, session, turn);
  } catch (error) {
    if (forked && error instanceof FettleError && error.code === 'E_NOT_FOUND') return null;
    throw error;
  }
};

export const rewind = async (ctx: Context, o: RewindOptions): Promise<RewindOutcome> => {
  const { session, agent } = await sessionAndAgent(ctx, o.session);
  const conversation = o.conversation ? await planConversation(ctx, session, o.turn, agent) : null;
  if (conversation && !conversation.rewound && !o.files)
    throw new FettleError(
      'E_NOT_FOUND',
      `The conversation of session '${session}' cannot be rewound: ${conversation.why}.`,
      {
        hint: `${conversation.advice} Without --conversation, \`fettle rewind --turn ${o.turn}\` rewinds the files.`,
      },
    );
  const selected = o.files ? await turnChanges(ctx, session, o.turn, conversation?.rewound === true) : null;
  const files = selected && {
    ...selected,
    outcome: await rollbackChanges(ctx, selected.store, selected.changes, { force: o.force, dryRun: o.dryRun }),
  };
  return { session, turn: o.turn, files, conversation };
};
