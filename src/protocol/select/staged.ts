// What `fettle test` is given: change ids, fettle commits or changeset ids (ids win over changeset ids, and those
// over commits), and every pending staged change of a session.
import { resolveName } from '../../core/changeset';
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import { newestFirst, notFound, type Change } from '../changes';
import type { Context } from '../context';
import { findChange } from './names';
import { openStore, settledChanges, type Selection } from './open';

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
  const store = await openStore(ctx);
  const all = await settledChanges(ctx, store);
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
