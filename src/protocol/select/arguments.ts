// What a command argument names: a change id or any fettle commit (`git log` shows them), and for `fettle test` a
// changeset id; ids win over changeset ids, and those over commits.
// Also the store and the changes a command works on. What `rollback` is asked to undo (files too) is
// rollback-selection.ts.
import { resolveName } from '../../core/changeset';
import { FettleError, toFettleError } from '../../errors';
import { locateTarget, openStoreAt } from '../../store/locate';
import type { Store, Target } from '../../store/store';
import { listChanges, newestFirst, notFound, type Change } from '../changes';
import type { Context } from '../context';
import { readCommits, type ChainCommit } from '../chains';
import { isId } from '../ids';
import { recoverQuietly } from '../journal/recover';
import { settleMet } from '../record/settle';

export interface Selection {
  store: Store;
  /** newest first */
  changes: Change[];
}

/** Written to disk and not undone since; rollbacks themselves are undone by naming them explicitly. */
export const inEffect = (c: Change): boolean => c.state === 'applied' && !c.revertedBy && !c.fields.reverts;

/**
 * The store of the repository the command runs in (or the private store outside any repository). An operation a
 * crash interrupted there is recovered first (recover.ts), unless the caller reports it itself (`fettle doctor`).
 */
export const storeOf = async (ctx: Context, o: { recover?: boolean } = {}): Promise<Store> => {
  const store = await openStoreAt(ctx.cwd, ctx.env, ctx.config.dataDir);
  if (o.recover !== false) await recoverQuietly(ctx, store);
  return store;
};

/** Where a path argument lives: its store and its path in that store's trees (recovered first, as storeOf). */
export const targetOf = async (ctx: Context, path: string): Promise<Target> => {
  const target = await locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir);
  await recoverQuietly(ctx, target.store);
  return target;
};

/**
 * Every change, newest first; records left open whose result the disk proves are settled first. A command that
 * only reads (status, log, show) passes `warn`: if settling fails (a read-only repository), it is told why and
 * lists the records as they are; without `warn` the failure is the command's.
 */
export const changesOf = async (ctx: Context, store: Store, warn?: (message: string) => void): Promise<Change[]> => {
  const all = await listChanges(ctx, store);
  try {
    return (await settleMet(ctx, store, all)) ? listChanges(ctx, store) : all;
  } catch (error) {
    if (!warn) throw error;
    warn(`fettle: could not record the result of open records from the disk: ${toFettleError(error).message}`);
    return all;
  }
};

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
  const store = await storeOf(ctx);
  const all = await changesOf(ctx, store, warn);
  const change = await findChange(store, all, arg);
  if (!change)
    throw notFound(
      arg,
      all.map((c) => c.id),
    );
  return { store, change, all };
};

/**
 * The agent session a command means when none is named: FETTLE_SESSION when set, else the session of the newest
 * change recorded here (the agent's shell has no session id of its own to pass).
 */
export const currentSession = (ctx: Context, changes: Change[]): string | undefined =>
  ctx.env.FETTLE_SESSION || changes.find((c) => c.fields.session !== undefined)?.fields.session;

/** A changeset `fettle test` was given: the members it leaves out, as confirm of the changeset would. */
export interface TestedSet {
  id: string;
  size: number;
  /** confirmed already: their bytes are in the working tree, so in the test tree too */
  applied: Change[];
  /** discarded, or left unfinished by an interrupted operation: confirm would skip them, so the test tree too */
  dropped: Change[];
}

const testable = (c: Change): boolean => c.fields.tier === 'staged' && (c.state === 'pending' || c.state === 'expired');

/**
 * A changeset id's staged members still undecided: the ones `fettle confirm <changeset>` would write. A changeset
 * with none left refuses, saying what became of its members.
 */
const changesetToTest = (id: string, members: Change[]): { changes: Change[]; set: TestedSet } => {
  const changes = members.filter(testable);
  const applied = members.filter((c) => !testable(c) && c.state === 'applied');
  const dropped = members.filter((c) => !testable(c) && c.state !== 'applied');
  if (changes.length === 0) {
    const direct = applied.filter((c) => c.fields.tier !== 'staged').length;
    const what =
      direct === members.length
        ? 'were written directly, never staged'
        : `are all decided (${applied.length} confirmed, ${dropped.length} discarded)`;
    throw new FettleError(
      'E_USAGE',
      `Changeset ${id} has no staged change left to test: its ${members.length} changes ${what}.`,
      {
        hint:
          applied.length > 0
            ? `What was applied is in your working tree now: run the command there. \`fettle show ${id}\` lists its changes.`
            : `\`fettle show ${id}\` lists its changes.`,
      },
    );
  }
  return { changes, set: { id, size: members.length, applied, dropped } };
};

/**
 * The changes one argument names: an id or a fettle commit names one change, a changeset id the members confirm
 * would write (ids win over changeset ids, as everywhere).
 */
const namedChanges = async (
  store: Store,
  all: Change[],
  arg: string,
): Promise<{ changes: Change[]; set?: TestedSet }> => {
  const found = resolveName(
    arg,
    all.map((c) => ({ id: c.id, changeset: c.fields.changeset })),
  );
  if (found.kind === 'changeset')
    return changesetToTest(
      found.id,
      all.filter((c) => found.members.includes(c.id)),
    );
  const change = await findChange(store, all, arg);
  if (!change) throw notFound(arg, found.kind === 'unknown' && found.near ? [found.near] : []);
  return { changes: [change] };
};

/**
 * `test <id...> [--session <id>]`: the changes named, and with --session every pending staged change of that
 * agent session; each once, oldest first (the order confirming them one by one would apply them).
 */
export const selectStaged = async (
  ctx: Context,
  args: string[],
  session: string | undefined,
): Promise<Selection & { sets: TestedSet[] }> => {
  const store = await storeOf(ctx);
  const all = await changesOf(ctx, store);
  const picked = new Map<string, Change>();
  const sets: TestedSet[] = [];
  for (const arg of args) {
    const named = await namedChanges(store, all, arg);
    if (named.set) sets.push(named.set);
    for (const change of named.changes) picked.set(change.id, change);
  }
  if (session !== undefined) {
    const staged = all.filter((c) => c.fields.session === session && c.state === 'pending');
    if (staged.length === 0)
      throw new FettleError('E_NOT_FOUND', `Session '${session}' has no staged change waiting for confirmation.`, {
        hint: 'Run `fettle status` to list pending changes, and `fettle log --session <id>` for what a session did.',
      });
    for (const change of staged) picked.set(change.id, change);
  }
  if (picked.size === 0)
    throw new FettleError('E_USAGE', 'Name the staged change(s) to test, or --session <id>.', {
      hint: 'For example: `fettle test <id> -- npm test` (`fettle status` lists pending changes).',
    });
  return { store, changes: [...picked.values()].sort(newestFirst).reverse(), sets };
};
