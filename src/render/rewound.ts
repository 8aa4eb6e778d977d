// What `fettle rewind` says it did or would do, for every edge: the files (as a rollback says it), then the
// conversation: the agent's own command that continues from where the turn began, or plainly that it was not
// rewound, why, and what the person can do. `command`: the client's command as the reader runs it (the edge spells it).
import type { ConversationPlan } from '../protocol/rewind/conversation';
import type { RewindOutcome } from '../protocol/rewind/rewind';
import type { Dialect } from './dialect';
import { dryRunText, fileRows, notKeptRows, rolledBackText, skippedRows, undoOf } from './rolled-back';

/**
 * The client's command as a shell in `here` runs it (`quote`: the edge's quoting for that shell): from the session's
 * directory, where the client's resume looks the session up.
 */
export const clientCommand = (plan: ConversationPlan | null, here: string, quote: (word: string) => string): string => {
  if (!plan?.rewound) return '';
  const line = plan.args.map(quote).join(' ');
  return here === plan.cwd ? line : `cd ${quote(plan.cwd)} && ${line}`;
};

const since = (o: RewindOutcome): string => `since turn ${o.turn} began`;

const nothingLeft = (o: RewindOutcome): string =>
  `Files: nothing session ${o.session} changed ${since(o)} is left to undo.`;

const conversationLines = (plan: ConversationPlan, turn: number, command: string, dryRun: boolean): string[] => {
  if (!plan.rewound) return [`Conversation: not rewound: ${plan.why}.`, plan.advice];
  const keeps =
    plan.resumeAt === null
      ? `nothing, as turn ${turn} began the conversation`
      : `everything before turn ${turn} (up to message ${plan.resumeAt})`;
  return [
    `Conversation: ${dryRun ? 'this command would continue it' : 'continue it with this command'} from where turn ${turn} began, in a new session ${plan.fork} that keeps ${keeps}; the original session stays as it was:`,
    `  ${command}`,
    `It sends turn ${turn}'s prompt again: edit the text after -p to ask differently. Then \`claude --resume ${plan.fork}\` goes on in the terminal.`,
  ];
};

export const rewoundText = (o: RewindOutcome, command: string, dialect: Dialect): string => {
  const lines = [`Rewound session ${o.session} to where turn ${o.turn} began.`];
  if (o.files) {
    const label = ` of session ${o.session} ${since(o)}`;
    lines.push(`Files: ${rolledBackText(o.files.outcome, { one: false, label }, dialect)}`);
  } else if (o.conversation?.rewound) lines.push(nothingLeft(o));
  if (o.conversation) lines.push(...conversationLines(o.conversation, o.turn, command, false));
  return lines.join('\n');
};

export const rewindDryRunText = (o: RewindOutcome, command: string): string => {
  const lines = [`Dry run: rewinding session ${o.session} to where turn ${o.turn} began; nothing was changed.`];
  if (o.files)
    lines.push(`Files: ${dryRunText(o.files.outcome).replace(/^Dry run: (.*?)(; n|\. N)othing was changed\./, '$1.')}`);
  else if (o.conversation?.rewound) lines.push(nothingLeft(o));
  if (o.conversation) lines.push(...conversationLines(o.conversation, o.turn, command, true));
  return lines.join('\n');
};

const conversationJson = (plan: ConversationPlan | null, command: string) => {
  if (plan === null) return null;
  if (!plan.rewound) return { rewound: false, agent: plan.agent ?? null, why: plan.why, advice: plan.advice };
  const { rewound, agent, fork, resumeAt, prompt, cwd, args, version } = plan;
  return { rewound, agent, fork, resumeAt, prompt, cwd, clientVersion: version, args, command };
};

export const rewoundJson = (o: RewindOutcome, command: string, dryRun: boolean) => {
  const out = o.files?.outcome;
  const files = out && {
    ...(dryRun
      ? { files: fileRows(out.plans), refused: out.refusals.map((e) => ({ message: e.message, hint: e.hint ?? null })) }
      : {
          changes: out.done.map((d) => ({ id: d.change.id, path: d.change.fields.path, how: d.how, undoId: d.undoId })),
          undo: undoOf(out).undo,
        }),
    skipped: skippedRows(out.plans),
    notKept: notKeptRows(out),
  };
  return {
    dryRun,
    session: o.session,
    turn: o.turn,
    files: files ?? null,
    conversation: conversationJson(o.conversation, command),
  };
};
