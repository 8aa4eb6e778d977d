// Changes only a person may apply: a staged change Claude Code asked a person about, or any staged change under
// FETTLE_REVIEW=human. The model reaches fettle through its shell tool, so a `fettle confirm` run from there is
// refused. This tells the agent's shell from a person's terminal; it is a guard against the model applying what
// the person was asked about, not a security boundary against a model that rewrites its own environment.
import type { Env } from '../../config';
import { FettleError } from '../../errors';
import type { Change } from '../changes';
import type { Context } from '../context';

/** What each agent sets in the environment of its shell tool (opencode sets it in its own, which its shell inherits). */
const SHELL_MARKS: [variable: string, agent: string][] = [
  ['CLAUDECODE', 'Claude Code'],
  ['OPENCODE', 'opencode'],
];

/** The agent whose shell runs this command, or null. */
export const agentShell = (env: Env): string | null => SHELL_MARKS.find(([v]) => env[v] === '1')?.[1] ?? null;

/** `CLAUDECODE=1`: how fettle told `agent`'s shell. */
const markOf = (agent: string): string => `${SHELL_MARKS.find(([, a]) => a === agent)?.[0] ?? '?'}=1`;

/**
 * Who decides when this command applies or drops a change (the Fettle-Decided-By trailer): the model, when it runs
 * in the agent's shell, else a person at a terminal.
 */
export const commandDecider = (env: Env): 'model' | 'person' => (agentShell(env) ? 'model' : 'person');

export const needsPerson = (ctx: Context, change: Change): boolean =>
  change.fields.review === 'person' || ctx.config.review === 'human';

/** Throws when `change` needs a person and this command runs in the agent's shell. */
export const requirePerson = (ctx: Context, change: Change): void => {
  const agent = agentShell(ctx.env);
  if (!agent || !needsPerson(ctx, change)) return;
  const why =
    change.fields.review === 'person'
      ? `${agent} asked a person to approve change ${change.id}`
      : 'FETTLE_REVIEW=human is set';
  throw new FettleError(
    'E_PERSON_REQUIRED',
    `Change ${change.id} to ${change.fields.path} needs a person's approval (${why}), and this command runs in ${agent}'s shell (${markOf(agent)}). Nothing was written.`,
    {
      hint: `A person must run \`fettle confirm ${change.id}\` in their own terminal, after reviewing it with \`fettle review ${change.id}\`; the agent may only discard it.`,
    },
  );
};

/**
 * `confirm --expired` from the agent's shell is refused: the TTL is there so that an agent re-runs its Write
 * rather than applying a proposal it made long ago; a person reviewing slowly is who --expired is for.
 */
export const requirePersonForExpired = (ctx: Context, change: Change): void => {
  const agent = agentShell(ctx.env);
  if (!agent) return;
  throw new FettleError(
    'E_PERSON_REQUIRED',
    `confirm --expired applies a change past its time to confirm, and only a person may do that; this command runs in ${agent}'s shell (${markOf(agent)}). Nothing was written.`,
    { hint: `Re-run the Write to stage it again, or drop it with \`fettle discard ${change.id}\`.` },
  );
};
