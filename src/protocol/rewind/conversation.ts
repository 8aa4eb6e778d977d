// The conversation side of `fettle rewind`: where turn n of the session began, and the agent's own command that
// continues a fork of the conversation from there. Only Claude Code offers such a command (--resume, --fork-session,
// --resume-session-at); its transcript is read, never written, and a fork is what the person runs, never fettle.
// For every other agent, and whatever fettle does not recognise, the answer says why not and what the person can do.
import { randomUUID } from 'node:crypto';
import { claudeForkArgs, claudeForkPoint } from '../../core/claude-transcript';
import { rewindAdvice } from '../../core/rewind-advice';
import { FettleError } from '../../errors';
import { openRegular } from '../../io/regular-file';
import type { Context } from '../context';
import { type KeptPrompt, promptsOf } from '../turns';

export type ConversationPlan =
  | {
      rewound: true;
      agent: 'claude';
      /** the new session the fork becomes */
      fork: string;
      /** the last message the fork keeps; null: the turn began the conversation, so nothing is kept */
      resumeAt: string | null;
      /** the prompt that began the turn, sent again by the command (edit it to ask differently) */
      prompt: string;
      /** where the command runs (the session's working directory) */
      cwd: string;
      /** the client's command, as arguments */
      args: string[];
      version: string;
    }
  | { rewound: false; agent: string | undefined; why: string; advice: string };

const AGENT_NAMES: Record<string, string> = {
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  opencode: 'opencode',
  cursor: 'Cursor',
};

const refused = (agent: string | undefined, session: string, turn: number, why: string): ConversationPlan => ({
  rewound: false,
  agent,
  why,
  advice: rewindAdvice(agent, session, turn),
});

/** The transcript the client named last for the session (each prompt's hook sends its path). */
const transcriptOf = (kept: Map<number, KeptPrompt>): string | undefined =>
  [...kept.entries()].sort(([a], [b]) => b - a).find(([, p]) => p.transcript !== undefined)?.[1].transcript;

/** The transcript, whole: a regular file only (the path came with a hook's payload), at most TRANSCRIPT_BYTES. */
const TRANSCRIPT_BYTES = 512 * 1024 * 1024;

const readTranscript = async (path: string): Promise<string | { why: string }> => {
  try {
    const { handle, info } = await openRegular(path);
    try {
      if (info.size > TRANSCRIPT_BYTES) return { why: `its transcript (${path}) is larger than fettle reads` };
      return (await handle.readFile()).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof FettleError)
      return { why: `its transcript cannot be read: ${error.message.replace(/\.$/, '')}` };
    const e = error as NodeJS.ErrnoException;
    return { why: `its transcript (${path}) cannot be read (${e.code ?? e.message})` };
  }
};

const claudePlan = async (kept: Map<number, KeptPrompt>, session: string, turn: number): Promise<ConversationPlan> => {
  const path = transcriptOf(kept);
  if (path === undefined)
    return refused('claude', session, turn, 'Claude Code did not send fettle the path of its transcript');
  const text = await readTranscript(path);
  if (typeof text !== 'string') return refused('claude', session, turn, text.why);
  const prompts = new Map([...kept.entries()].map(([k, p]) => [k, p.prompt]));
  const point = claudeForkPoint(text, session, turn, prompts);
  if (!point.ok)
    return refused(
      'claude',
      session,
      turn,
      `fettle cannot find where turn ${turn} began in its transcript (${path}): ${point.why}`,
    );
  const fork = randomUUID();
  const args = claudeForkArgs(session, fork, point);
  return { rewound: true, agent: 'claude', fork, ...point, args };
};

/** Where turn `turn` of `session` began, for `agent` (the one its changes name, if any). Reads, never writes. */
export const planConversation = async (
  ctx: Context,
  session: string,
  turn: number,
  agent: string | undefined,
): Promise<ConversationPlan> => {
  const kept = await promptsOf(ctx.config.dataDir, session);
  const claude = agent === 'claude' || (agent === undefined && transcriptOf(kept) !== undefined);
  if (claude) return claudePlan(kept, session, turn);
  const name = agent === undefined ? undefined : (AGENT_NAMES[agent] ?? agent);
  const why =
    name === undefined
      ? 'fettle does not know which agent ran this session'
      : `${name} offers no command that forks its conversation at a turn`;
  return refused(agent, session, turn, why);
};
