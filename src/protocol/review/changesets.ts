// Which changes a command means when it is given ids, changeset ids, `--session <s>` or `--all`. Every command
// that takes an id takes a changeset id and expands it to its members (core/changeset.ts resolves the names);
// confirm and discard of several decide all or nothing, so here every change that stops the set is reported
// with why, in the words the single-change commands use.
import { planSet, resolveName, type Candidate, type SetRefusal, type Verdict } from '../../core/changeset';
import { FettleError } from '../../errors';
import type { Store } from '../../store/store';
import { settledChanges } from '../select/open';
import { findChange } from '../select/names';
import { notFound, requirePending, type Change } from '../changes';
import type { Context } from '../context';
import { isPerson, needsPerson, requirePerson } from '../decide/person-review';
import { plural } from '../../core/plural';

export interface DecideRequest {
  /** change ids and changeset ids */
  names: string[];
  /** every undecided change of this agent session */
  session?: string | undefined;
  /** every undecided change */
  all?: boolean | undefined;
  /** confirm: expired changes too (a person only) */
  expired?: boolean | undefined;
  /** confirm: an overlapping merge is written with conflict markers instead of refused */
  withConflicts?: boolean | undefined;
}

export interface DecideSet {
  /** the changes to decide, in lock order */
  changes: Change[];
  /** members already decided, left out */
  skipped: Change[];
  /** the changeset, when the request named exactly one and nothing else */
  changeset?: string | undefined;
}

const changesetOf = (c: Change): string | undefined => c.fields.changeset;

/** The request of a confirm or discard command line; names with --all is a usage error, as is nothing at all. */
export const decideRequest = (
  verb: 'confirm' | 'discard',
  names: string[],
  o: {
    session?: string | undefined;
    all?: boolean | undefined;
    expired?: boolean | undefined;
    withConflicts?: boolean | undefined;
  },
): DecideRequest => {
  if (o.all && (names.length > 0 || o.session !== undefined))
    throw new FettleError('E_USAGE', `--all already names every staged change: give no ids or --session with it.`);
  if (!o.all && names.length === 0 && o.session === undefined)
    throw new FettleError('E_USAGE', `Name what to ${verb}: change ids or changeset ids, --session <id>, or --all.`, {
      hint: 'Run `fettle status` to list pending changes.',
    });
  return { names, session: o.session, all: o.all, expired: o.expired, withConflicts: o.withConflicts };
};

/** A request that names exactly one change or changeset, nothing else: its reply keeps the one-change form. */
export const namesOne = (r: DecideRequest): boolean => r.names.length === 1 && r.session === undefined && !r.all;

/** A change named on the command line: an id, else a changeset id; unknown names are not-found, with a guess. */
export const expandName = (all: Change[], name: string): { changes: Change[]; changeset?: string } => {
  const found = resolveName(
    name,
    all.map((c) => ({ id: c.id, changeset: changesetOf(c) })),
  );
  if (found.kind === 'change') return { changes: all.filter((c) => c.id === found.id) };
  if (found.kind === 'changeset')
    return { changes: all.filter((c) => found.members.includes(c.id)), changeset: found.id };
  throw notFound(name, found.near ? [found.near] : []);
};

const refusalOf = (ctx: Context, r: DecideRequest, change: Change, why: SetRefusal, other?: Change): FettleError => {
  const caught = (f: () => void): FettleError => {
    try {
      f();
    } catch (error) {
      if (error instanceof FettleError) return error;
      throw error;
    }
    return new FettleError('E_INTERNAL', `internal error: change ${change.id} was refused without a reason`);
  };
  if (why === 'person') return caught(() => requirePerson(ctx, change));
  if (why === 'same-path')
    return new FettleError(
      'E_CONFLICT',
      `${change.fields.path} has two staged changes in this set, ${other?.id ?? '?'} and ${change.id}; each was staged on the bytes the other replaces.`,
      {
        hint: `Keep one: \`fettle discard ${other?.id ?? '<id>'}\` or \`fettle discard ${change.id}\`, then run the command again.`,
      },
    );
  return caught(() => requirePending(change, ctx.now(), { expired: r.expired }));
};

/** Several refusals as one error: every file and why, and that nothing was done. */
export const refuseSet = (d: Verdict, errors: FettleError[], total: number): FettleError => {
  if (errors.length === 1 && total === 1) return errors[0] as FettleError;
  const verb = d === 'confirm' ? 'confirmed' : 'discarded';
  const nothing = d === 'confirm' ? 'Nothing was written; every change stays pending.' : 'Nothing was discarded.';
  return new FettleError(
    errors.every((e) => e.code === errors[0]?.code) ? (errors[0]?.code ?? 'E_CONFLICT') : 'E_CONFLICT',
    `${errors.length} of ${plural(total, 'change')} cannot be ${verb}, so none was. ${nothing}`,
    { hint: errors.map((e) => `- ${e.message}${e.hint ? ` ${e.hint}` : ''}`).join('\n') },
  );
};

/** `member`: brought in by a changeset named (its decided members are reported as left out), not --session/--all. */
type Chosen = Candidate & { change: Change; member: boolean };

const candidateOf = (ctx: Context, change: Change, named: boolean, member = false): Chosen => ({
  change,
  member,
  id: change.id,
  path: change.fields.path,
  state: change.state,
  staged: change.fields.tier === 'staged',
  named,
  personOnly: !isPerson(ctx) && needsPerson(ctx, change),
});

const describe = (r: DecideRequest): string =>
  [...r.names, ...(r.session === undefined ? [] : [`session ${r.session}`]), ...(r.all ? ['--all'] : [])].join(', ');

/** What a request names, resolved once: every change it involves, and the changeset when it named one alone. */
export interface Selection {
  decision: Verdict;
  request: DecideRequest;
  candidates: Chosen[];
  changeset: string | undefined;
}

/**
 * Resolves a confirm or discard request to the changes it involves; unknown names are not-found. Nothing is
 * refused yet: the caller takes the files' locks (`lockedChanges`) and calls `decidedSet` under them.
 */
export const selectDecision = async (
  ctx: Context,
  store: Store,
  decision: Verdict,
  request: DecideRequest,
): Promise<Selection> => {
  const all = await settledChanges(ctx, store);
  const candidates: Chosen[] = [];
  let changeset: string | undefined;
  for (const name of request.names) {
    const found = expandName(all, name);
    changeset = found.changeset;
    const byId = found.changeset === undefined;
    for (const c of found.changes) candidates.push(candidateOf(ctx, c, byId, !byId));
  }
  if (request.session !== undefined)
    for (const c of all.filter((x) => x.fields.session === request.session))
      candidates.push(candidateOf(ctx, c, false));
  if (request.all) for (const c of all) candidates.push(candidateOf(ctx, c, false));
  return { decision, request, candidates, changeset: namesOne(request) ? changeset : undefined };
};

/** The changes whose files a decision locks: those it takes or refuses (skipped ones are left alone). */
export const lockedChanges = (s: Selection): Change[] => {
  const plan = planSet(s.decision, s.candidates, { expired: s.request.expired });
  return [...plan.take, ...plan.refusals.map((r) => r.change)].map((c) => c.change);
};

/**
 * The set to decide, from the changes as they are now (read again under the locks): every change that stops it
 * is reported with why, in the words the one-change commands use, and nothing is decided.
 */
export const decidedSet = (ctx: Context, s: Selection, now: Map<string, Change>): DecideSet => {
  // A change gone from every ref meanwhile (retention) is as decided as a discarded one.
  const fresh = (c: Change): Change => now.get(c.id) ?? { ...c, state: 'discarded' };
  const plan = planSet(
    s.decision,
    s.candidates.map((c) => candidateOf(ctx, fresh(c.change), c.named, c.member)),
    { expired: s.request.expired },
  );
  if (plan.refusals.length > 0) {
    const total = plan.take.length + plan.refusals.filter((x) => !plan.take.includes(x.change)).length;
    throw refuseSet(
      s.decision,
      plan.refusals.map((x) => refusalOf(ctx, s.request, x.change.change, x.why, x.other?.change)),
      total,
    );
  }
  if (plan.take.length === 0) {
    const what = s.decision === 'confirm' && !s.request.expired ? 'pending' : 'pending or expired';
    throw new FettleError('E_NOT_FOUND', `No ${what} staged change in ${describe(s.request)}.`, {
      hint: 'Run `fettle status` to list pending changes.',
    });
  }
  return {
    changes: plan.take.map((c) => c.change),
    skipped: plan.skipped.filter((c) => c.member).map((c) => c.change),
    changeset: s.changeset,
  };
};

/**
 * `show`, `review`: an id, a changeset id or a fettle commit. A changeset comes back with its members, newest
 * first; anything else as the one change it names.
 */
export const resolveShown = async (
  ctx: Context,
  store: Store,
  arg: string,
  warn?: (message: string) => void,
): Promise<{ all: Change[]; change?: Change; changeset?: { id: string; members: Change[] } }> => {
  const all = await settledChanges(ctx, store, warn);
  const found = resolveName(
    arg,
    all.map((c) => ({ id: c.id, changeset: changesetOf(c) })),
  );
  if (found.kind === 'changeset')
    return { all, changeset: { id: found.id, members: all.filter((c) => found.members.includes(c.id)) } };
  const change = await findChange(store, all, arg);
  if (!change) throw notFound(arg, found.kind === 'unknown' && found.near ? [found.near] : []);
  return { all, change };
};
