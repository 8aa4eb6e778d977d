// What a command argument names: a change id or any fettle commit (`git log` shows them); ids win over commits.
// What `rollback` is asked to undo (files too) is history/rollback-selection.ts; what `test` is given, staged.ts.
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import { notFound, type Change } from '../changes';
import { readCommits, type ChainCommit } from '../chains';
import type { Context } from '../context';
import { isLadderSession } from '../../core/session-ladder';
import { isId } from '../ids';
import { lastPrompted } from '../turns';
import { openStore, settledChanges } from './open';

const commitNamed = async (store: Store, arg: string): Promise<ChainCommit | null> => {
  if (arg.startsWith('-') || arg.trim() === '') return null;
  const { code, stdout } = await store.git.run({
    args: ['rev-parse', '-q', '--verify', `${arg}^{commit}`],
    okCodes: [1, 128],
  });
  if (code !== 0) return null;
  const [commit] = await readCommits(store, [stdout.toString('utf8').trim()]);
  return commit?.fields ? commit : null;
};

/**
 * A change whose ref retention has removed, rebuilt from one of its commits. Only a commit holding what was
 * written says enough to undo it.
 */
const changeFromCommit = (commit: ChainCommit): Change => {
  const fields = commit.fields;
  if (!fields || (fields.kind !== 'after' && fields.kind !== 'applied')) {
    throw new FettleError(
      'E_NOT_FOUND',
      `Commit ${commit.oid.slice(0, 12)} belongs to change ${fields?.id ?? '?'}, which is no longer in fettle's history.`,
      {
        hint: `Name the commit of what it wrote instead (its \`write\` or \`apply\` commit), e.g. from \`git log --all --grep='Fettle-Id: ${fields?.id ?? ''}'\`.`,
      },
    );
  }
  return {
    id: fields.id,
    ref: '',
    tip: commit.oid,
    parents: commit.parents,
    fields,
    state: 'applied',
    at: new Date(commit.time * 1000),
  };
};

/** The change an id or a fettle commit names; null when the argument is neither. */
export const findChange = async (store: Store, all: Change[], arg: string): Promise<Change | null> => {
  const byId = isId(arg) ? all.find((c) => c.id === arg) : undefined;
  if (byId) return byId;
  const commit = await commitNamed(store, arg);
  if (!commit?.fields) return null;
  const id = commit.fields.id;
  return all.find((c) => c.id === id) ?? changeFromCommit(commit);
};

/** `show`, `review`, `test`: an id or a fettle commit, in the repository the command runs in. */
export const resolveChange = async (
  ctx: Context,
  arg: string,
  warn?: (message: string) => void,
): Promise<{ store: Store; change: Change; all: Change[] }> => {
  const store = await openStore(ctx);
  const all = await settledChanges(ctx, store, warn);
  const change = await findChange(store, all, arg);
  if (!change)
    throw notFound(
      arg,
      all.map((c) => c.id),
    );
  return { store, change, all };
};

/**
 * The agent session a command means when none is named (the agent's shell has no session id of its own to pass):
 * FETTLE_SESSION when set; else, of the sessions with changes recorded here, the one a person prompted last, so one
 * MCP call or one hand-fed payload does not take its place; else the session of the newest change. The sessions
 * the ladder gives an MCP server or a command outside any agent (core/session-ladder.ts) are not an agent's.
 */
export const currentSession = async (ctx: Context, changes: Change[]): Promise<string | undefined> => {
  if (ctx.env.FETTLE_SESSION) return ctx.env.FETTLE_SESSION;
  const sessions = changes.flatMap((c) =>
    c.fields.session === undefined || isLadderSession(c.fields.session) ? [] : [c.fields.session],
  );
  return (await lastPrompted(ctx.config.dataDir, sessions)) ?? sessions[0];
};
