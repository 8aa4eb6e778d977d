// A decision set: what a person decided about staged changes, whole or hunk by hunk, with the comments they left,
// applied in one step (`fettle confirm|discard <id> --hunks`, the interactive review, the review page). Every
// change is planned first, under its file's lock, as a whole confirm is; one refusal refuses the set. Then one
// transaction moves every ref: applied changes (some written with only their kept hunks), discarded ones, a new
// staged change per decided-in-part change holding the hunks left pending (Fettle-Split-From), and the feedback
// for each agent session; the files are replaced under confirm's journal. Nothing is ever half-applied.
import { type DecisionNote, type FeedbackItem, feedbackText } from '../../core/feedback';
import { hunkListText } from '../../core/hunks';
import { plural } from '../../core/plural';
import { FettleError } from '../../errors';
import { withLocks } from '../../io/lock';
import { publish, type Written } from '../../store/publish';
import { changeRef, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { type Change, listChanges, notFound, requirePending } from '../changes';
import type { Context } from '../context';
import { commandDecider, requirePerson } from '../decide/person-review';
import { fileLockPath } from '../paths';
import { discardMoves } from '../record/discard';
import { feedbackUpdate } from '../record/feedback';
import { queueFeedback } from '../record/feedback-queue';
import { recordMany } from '../record/record-many';
import { forgetStaged } from '../record/supersede';
import { applyPlans, type Confirmed } from './confirm';
import { planFiles } from './confirm-plan';
import { type ChangeHunks, changeHunks, hunksTrailer, type Picked, pickHunks, withHunks } from '../hunks';

/** One change's decision: whole, or some hunks kept and some dropped (the others stay pending). */
export interface Choice {
  id: string;
  verdict?: 'confirm' | 'discard' | undefined;
  keep?: number[] | undefined;
  drop?: number[] | undefined;
}

export interface DecisionSet {
  choices: Choice[];
  /** comments, and the reasons for what was dropped: for the agent sessions that made the changes */
  feedback?: FeedbackItem[] | undefined;
  withConflicts?: boolean | undefined;
  expired?: boolean | undefined;
}

export interface Decided {
  change: Change;
  outcome: 'confirmed' | 'discarded';
  /** a confirm: how the file was brought to it */
  how?: Confirmed['how'] | undefined;
  conflicts?: number | undefined;
  /** decided in part: which hunks, of how many */
  picked?: (Picked & { count: number }) | undefined;
  /** the new staged change holding the hunks left pending */
  remainder?: string | undefined;
}

export interface SetOutcome {
  decided: Decided[];
  /** feedback commits written, by agent session */
  feedback: Map<string, string>;
}

/** A choice resolved against the change's hunks: whole, or in part with the bytes each side gets. */
interface Resolved {
  change: Change;
  verdict: 'confirm' | 'discard';
  hunks?: ChangeHunks | undefined;
  picked?: Picked | undefined;
}

const resolve = async (store: Store, change: Change, c: Choice): Promise<Resolved> => {
  const some = (c.keep?.length ?? 0) + (c.drop?.length ?? 0) > 0;
  if (c.verdict && some) throw new FettleError('E_USAGE', `Change ${c.id}: decide it whole or by hunks, not both.`);
  if (!some) {
    if (!c.verdict) throw new FettleError('E_USAGE', `Nothing was decided for change ${c.id}.`);
    return { change, verdict: c.verdict };
  }
  const hunks = await changeHunks(store, change);
  const picked = pickHunks(hunks, c.keep ?? [], c.drop ?? []);
  const count = hunks.hunks.length;
  if (picked.keep.length === count) return { change, verdict: 'confirm' };
  if (picked.drop.length === count) return { change, verdict: 'discard' };
  return { change, verdict: picked.keep.length > 0 ? 'confirm' : 'discard', hunks, picked };
};

/** The hunks' counts, summed: what a record's Fettle-Stat says of part of a change. */
const counted = (h: ChangeHunks, indexes: number[]) => ({
  added: h.hunks.filter((x) => indexes.includes(x.index)).reduce((s, x) => s + x.added, 0),
  removed: h.hunks.filter((x) => indexes.includes(x.index)).reduce((s, x) => s + x.removed, 0),
});

/** The change a decided-in-part change leaves: its pending hunks, staged on what the decision wrote (or on its base). */
const remainderItem = (r: Resolved, decidedBy: string) => {
  const h = r.hunks as ChangeHunks;
  const p = r.picked as Picked;
  const mode = h.to?.mode ?? '100644';
  const start = p.keep.length > 0 ? withHunks(h, p.keep) : (h.from?.bytes ?? null);
  const { session, tool, agent, turn, review, changeset, path, file } = r.change.fields;
  const verb =
    p.keep.length > 0
      ? `${plural(p.keep.length, 'other was', 'others were')} applied`
      : `${p.drop.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(p.drop)} ${p.drop.length === 1 ? 'was' : 'were'} dropped`;
  return {
    old: start && { bytes: start, mode: mode === '100755' ? 0o755 : 0o644 },
    fields: {
      tier: 'staged' as const,
      path,
      file,
      ...{ session, tool, agent, turn, review, changeset },
      reason: 'split',
      splitFrom: r.change.id,
      decidedBy,
      note: `${p.rest.length === 1 ? 'Hunk' : 'Hunks'} ${hunkListText(p.rest)} of the ${h.hunks.length} of change ${r.change.id}, left pending when the ${verb}.`,
      ...counted(h, p.rest),
    },
    next: { bytes: withHunks(h, [...p.keep, ...p.rest]), mode },
  };
};

const noteOf = (r: Resolved, remainder: string | undefined): string => {
  const p = r.picked as Picked;
  const count = r.hunks?.hunks.length ?? 0;
  const which = (list: number[]) => `${list.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(list)}`;
  const taken = r.verdict === 'confirm' ? `kept ${which(p.keep)} of ${count}` : '';
  const dropped = p.drop.length > 0 ? `dropped ${which(p.drop)}${taken ? '' : ` of ${count}`}` : '';
  const rest = remainder ? `the other ${plural(p.rest.length, 'hunk')} stay pending as change ${remainder}` : '';
  const text = [taken, dropped, rest].filter(Boolean).join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};

/** Refreshes a change under the locks and checks it may be decided here; a refusal names it. */
const decidable = (ctx: Context, now: Map<string, Change>, id: string, expired: boolean): Change => {
  const change = now.get(id);
  if (!change) throw notFound(id);
  requirePending(change, ctx.now(), { expired });
  requirePerson(ctx, change);
  return change;
};

const emptyWritten = (): Written => ({ oids: [], rewrite: async () => undefined });
const join = (all: Written[]): Written => ({
  oids: all.flatMap((w) => w.oids),
  rewrite: async () => {
    for (const w of all) await w.rewrite();
  },
});

/** Applies a decision set, all or nothing (see the file comment). */
export const decideSet = async (ctx: Context, store: Store, set: DecisionSet): Promise<SetOutcome> => {
  const ids = set.choices.map((c) => c.id);
  if (new Set(ids).size !== ids.length) throw new FettleError('E_USAGE', 'A change is decided twice in one set.');
  if (ids.length === 0 && !set.feedback?.length) throw new FettleError('E_USAGE', 'Nothing was decided.');
  const known = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
  const paths = [...new Set(set.choices.map((c) => known.get(c.id)?.fields.path ?? ''))].filter(Boolean);
  return withLocks(
    paths.map((p) => fileLockPath(store, p)),
    () => decideLocked(ctx, store, set),
  );
};

const decideLocked = async (ctx: Context, store: Store, set: DecisionSet): Promise<SetOutcome> => {
  const now = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
  const refusals: FettleError[] = [];
  const resolved: Resolved[] = [];
  for (const choice of set.choices) {
    try {
      resolved.push(await resolve(store, decidable(ctx, now, choice.id, set.expired ?? false), choice));
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      refusals.push(error);
    }
  }
  const decidedBy = commandDecider(ctx.env);
  const confirms = resolved.filter((r) => r.verdict === 'confirm');
  const instead = new Map(
    confirms.filter((r) => r.picked).map((r) => [r.change.id, withHunks(r.hunks!, r.picked!.keep)]),
  );
  const planned = await planFiles(
    ctx,
    store,
    confirms.map((r) => r.change),
    { expired: set.expired, withConflicts: set.withConflicts, instead },
  );
  refusals.push(...planned.refusals);
  if (refusals.length > 0) throw refuseDecisions(refusals, set.choices.length);

  const partial = resolved.filter((r) => r.picked && r.picked.rest.length > 0);
  const remainders = await recordMany(
    ctx,
    store,
    partial.map((r) => remainderItem(r, decidedBy)),
    { publish: false },
  );
  const remainderOf = new Map(partial.map((r, n) => [r.change.id, remainders[n]?.id]));
  const discards = resolved.filter((r) => r.verdict === 'discard');
  const dropped = await discardMoves(
    ctx,
    store,
    discards.map((r) => r.change),
    (c) => {
      const r = discards.find((x) => x.change.id === c.id) as Resolved;
      if (!r.picked) return { decidedBy };
      return {
        decidedBy,
        note: noteOf(r, remainderOf.get(c.id)),
        hunks: hunksTrailer(r.picked.drop, r.hunks!.hunks.length),
      };
    },
  );
  // A change applied in part records the hunks it took, and says where the others went.
  for (const plan of planned.plans) {
    const r = confirms.find((x) => x.change.id === plan.change.id);
    if (!r?.picked) continue;
    const kept = counted(r.hunks!, r.picked.keep);
    plan.change = {
      ...plan.change,
      fields: { ...plan.change.fields, ...kept, hunks: hunksTrailer(r.picked.keep, r.hunks!.hunks.length) },
    };
  }
  const decided = resolved.map((r): Decided => {
    const plan = planned.plans.find((p) => p.change.id === r.change.id);
    return {
      change: plan?.change ?? r.change,
      outcome: r.verdict === 'confirm' ? 'confirmed' : 'discarded',
      how: plan?.how,
      conflicts: plan?.conflicts,
      picked: r.picked && { ...r.picked, count: r.hunks?.hunks.length ?? 0 },
      remainder: remainderOf.get(r.change.id),
    };
  });
  const notes = feedbackBySession(decided, set.feedback ?? [], now, decidedBy);
  const feedback = [];
  for (const [session, record] of notes)
    feedback.push({ session, ...(await feedbackUpdate(store, record, ctx.now())) });

  const updates: RefUpdate[] = [
    ...dropped.updates,
    ...remainders.map((m): RefUpdate => ({ op: 'create', ref: changeRef(m.id), oid: m.tip })),
    ...feedback.map((f) => f.update),
  ];
  const written = join([dropped.written, ...feedback.map((f) => f.written), emptyWritten()]);
  const appliedNotes = new Map(
    confirms.filter((r) => r.picked).map((r) => [r.change.id, noteOf(r, remainderOf.get(r.change.id))]),
  );
  if (planned.plans.length > 0) await applyPlans(ctx, store, planned.plans, { updates, written, notes: appliedNotes });
  else await publish(store, updates, `fettle: decide ${ids(resolved)}`, written);
  for (const r of resolved) await forgetStaged(store, r.change);
  for (const f of feedback) {
    const text = notes.get(f.session)?.text ?? '';
    await queueFeedback(ctx.config.dataDir, f.session, f.commit, text).catch(() => undefined);
  }
  return { decided, feedback: new Map(feedback.map((f) => [f.session, f.commit])) };
};

const ids = (rs: Resolved[]): string => rs.map((r) => r.change.id).join(' ');

/** Per agent session: what was decided about its changes and what the person said, as the agent will read it. */
const feedbackBySession = (decided: Decided[], items: FeedbackItem[], now: Map<string, Change>, decidedBy: string) => {
  const bySession = new Map<string, { decisions: DecisionNote[]; items: FeedbackItem[] }>();
  const of = (session: string) => {
    const entry = bySession.get(session) ?? { decisions: [], items: [] };
    bySession.set(session, entry);
    return entry;
  };
  for (const d of decided) {
    const { session, path } = d.change.fields;
    if (session === undefined) continue;
    of(session).decisions.push({
      change: d.change.id,
      path,
      verdict: d.outcome,
      kept: d.picked?.keep,
      dropped: d.picked?.drop,
      count: d.picked?.count,
      remainder: d.remainder,
    });
  }
  for (const item of items) {
    const change = now.get(item.change);
    const session = change?.fields.session;
    if (session !== undefined) of(session).items.push({ ...item, path: item.path || (change?.fields.path ?? '') });
  }
  // The model that decided knows what it did; a person's decisions are news to it, and so is anything said.
  return new Map(
    [...bySession]
      .filter(([, e]) => e.items.length > 0 || (decidedBy === 'person' && e.decisions.length > 0))
      .map(([session, e]) => [session, { session, ...e, text: feedbackText(e.decisions, e.items) }]),
  );
};

const refuseDecisions = (errors: FettleError[], total: number): FettleError => {
  if (errors.length === 1 && total === 1) return errors[0] as FettleError;
  return new FettleError(
    errors.every((e) => e.code === errors[0]?.code) ? (errors[0]?.code ?? 'E_CONFLICT') : 'E_CONFLICT',
    `${errors.length} of ${plural(total, 'change')} cannot be decided as asked, so none was. Nothing was written.`,
    { hint: errors.map((e) => `- ${e.message}${e.hint ? ` ${e.hint}` : ''}`).join('\n') },
  );
};
