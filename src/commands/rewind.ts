// `fettle rewind --turn <n>`: an agent session's files and conversation back to where turn n began. The files as
// `rollback --turn` takes them back (one rollback, which `fettle rollback <id>` undoes), the conversation as a fork
// the agent's own command continues (printed, never run): protocol/rewind/.
import { realpathSync } from 'node:fs';
import { EXIT, exitCodeFor, FettleError } from '../errors';
import { invocationFor, selfCommand, shellQuote, spellCommands } from '../io/self';
import { refuseAll } from '../protocol/history/rollback-plan';
import { rewind } from '../protocol/rewind/rewind';
import { shellDialect } from '../render/dialect';
import { clientCommand, rewindDryRunText, rewoundJson, rewoundText } from '../render/rewound';
import { contextFor, type Edge } from './edge';

export interface RewindOptions {
  turn?: string;
  session?: string;
  files?: boolean;
  conversation?: boolean;
  both?: boolean;
  dryRun?: boolean;
  force?: boolean;
  json?: boolean;
}

const turnOf = (text: string | undefined): number => {
  if (text === undefined)
    throw new FettleError('E_USAGE', 'fettle rewind needs --turn <n>: the turn to go back to the start of.', {
      hint: 'Run `fettle log --session <id>` to see the turns of a session.',
    });
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw new FettleError('E_USAGE', `--turn takes a turn number (1 for the first prompt), got '${text}'.`, {
      hint: 'Run `fettle log --session <id>` to see the turns of a session.',
    });
  return Number(text);
};

/** --files, --conversation or --both (the default), one of them. */
const scopeOf = (o: RewindOptions): { files: boolean; conversation: boolean } => {
  const given = [o.files, o.conversation, o.both].filter(Boolean).length;
  if (given > 1) throw new FettleError('E_USAGE', 'Give one of --files, --conversation and --both.');
  return { files: o.conversation !== true, conversation: o.files !== true };
};

const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

export const rewindCommand = async (edge: Edge, dir: string | undefined, o: RewindOptions): Promise<number> => {
  const turn = turnOf(o.turn);
  const ctx = contextFor(edge, dir);
  const scope = scopeOf(o);
  const outcome = await rewind(ctx, { turn, session: o.session, ...scope, dryRun: o.dryRun, force: o.force });
  const command = clientCommand(outcome.conversation, real(edge.cwd), shellQuote);
  const store = outcome.files?.store;
  const invoke = store
    ? invocationFor(
        selfCommand(edge.env, edge.io.script),
        edge.cwd,
        store,
        outcome.files?.changes[0]?.fields.file ?? edge.cwd,
      )
    : selfCommand(edge.env, edge.io.script);
  if (o.json) edge.io.out(JSON.stringify(rewoundJson(outcome, command, o.dryRun === true)));
  else if (o.dryRun) edge.io.out(spellCommands(rewindDryRunText(outcome, command), invoke));
  else edge.io.out(rewoundText(outcome, command, shellDialect(invoke)));
  const refusals = outcome.files?.outcome.refusals ?? [];
  return o.dryRun && refusals.length > 0 ? exitCodeFor(refuseAll(refusals)) : EXIT.ok;
};
