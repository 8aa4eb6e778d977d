// A decision set: what a person decided about staged changes, whole or hunk by hunk, with the comments they left,
// applied in one step (`fettle confirm|discard <id> --hunks`, the interactive review, the review page). Every
// change is planned first, under its file's lock, as a whole confirm is; one refusal refuses the set. Then one
// transaction moves every ref: applied changes (some written with only their kept hunks), discarded ones, a new
// staged change per decided-in-part change holding the hunks left pending (Fettle-Split-From), and the feedback
// for each agent session; the files are replaced under confirm's journal. Nothing is ever half-applied.
import type { FeedbackItem } from '../../core/feedback';
import { plural } from '../../core/plural';
import { FettleError } from '../../errors';
import { withLocks } from '../../io/lock';
import { publish, type Written } from '../../store/publish';
import { changeRef, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { type Change, listChanges, notFound, requirePending } from '../changes';
import type { Context } from '../context';
import { commandDecider, requirePerson, requirePersonForExpired } from '../decide/person-review';
import { fileLockPath } from '../paths';
import { discardMoves } from '../record/discard';
import { feedbackUpdate } from '../record/feedback';
import { queueFeedback } from '../record/feedback-queue';
import { recordingFailure } from '../record/failed';
import { recordMany } from '../record/record-many';
import { forgetStaged } from '../record/supersede';
import { applyPlans } from './confirm';
import { feedbackBySession } from './decision-feedback';
import { counted, type Decided, noteOf, remainderItem, type Resolved } from './split-off';
import { type FilePlan, planFiles } from './confirm-plan';
import { changeHunks, hunksTrailer, pickHunks, withHunks } from '../hunks';

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

export interface SetOutcome {
  decided: Decided[];
  /** feedback commits written, by agent session */
  feedback: Map<string, string>;
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
  // What it writes to disk, should that fail: the changes it confirms in whole or part.
  const applying = set.choices
    .filter((c) => c.verdict === 'confirm' || (c.keep?.length ?? 0) > 0)
    .flatMap((c) => known.get(c.id) ?? []);
  return recordingFailure(ctx, store, { attempt: 'confirm', changes: applying }, () =>
    withLocks(
      paths.map((p) => fileLockPath(store, p)),
      () => decideLocked(ctx, store, set),
    ),
  );
};

/** Every choice resolved against its change as it is now, and the confirms planned; refusals throw, all at once. */
const planAll = async (ctx: Context, store: Store, set: DecisionSet, now: Map<string, Change>) => {
  const refusals: FettleError[] = [];
  const resolved: Resolved[] = [];
  for (const choice of set.choices) {
    try {
      const r = await resolve(store, decidable(ctx, now, choice.id, set.expired ?? false), choice);
      // Kept in part or whole, an expired change is applied: a person's to do, as `confirm --expired` is.
      if (r.verdict === 'confirm' && r.change.state === 'expired') requirePersonForExpired(ctx, r.change);
      resolved.push(r);
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      refusals.push(error);
    }
  }
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
  // A change applied in part records the hunks it took (Fettle-Hunks, its counts).
  for (const plan of planned.plans) {
    const r = confirms.find((x) => x.change.id === plan.change.id);
    if (!r?.picked) continue;
    const kept = counted(r.hunks!, r.picked.keep);
    const hunks = hunksTrailer(r.picked.keep, r.hunks!.hunks.length);
    plan.change = { ...plan.change, fields: { ...plan.change.fields, ...kept, hunks } };
  }
  return { resolved, plans: planned.plans };
};

/** The records beside the confirms: the split-off changes (objects written, refs not yet), the discards' moves. */
const besides = async (ctx: Context, store: Store, resolved: Resolved[], decidedBy: string) => {
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
      const hunks = hunksTrailer(r.picked.drop, r.hunks!.hunks.length);
      return { decidedBy, note: noteOf(r, remainderOf.get(c.id)), hunks };
    },
  );
  const creates = remainders.map((m): RefUpdate => ({ op: 'create', ref: changeRef(m.id), oid: m.tip }));
  return { remainderOf, updates: [...dropped.updates, ...creates], written: dropped.written };
};

const decidedOf = (resolved: Resolved[], plans: FilePlan[], remainderOf: Map<string, string | undefined>) =>
  resolved.map((r): Decided => {
    const plan = plans.find((p) => p.change.id === r.change.id);
    return {
      change: plan?.change ?? r.change,
      outcome: r.verdict === 'confirm' ? 'confirmed' : 'discarded',
      how: plan?.how,
      conflicts: plan?.conflicts,
      picked: r.picked && { ...r.picked, count: r.hunks?.hunks.length ?? 0 },
      remainder: remainderOf.get(r.change.id),
    };
  });

const decideLocked = async (ctx: Context, store: Store, set: DecisionSet): Promise<SetOutcome> => {
  const now = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
  const { resolved, plans } = await planAll(ctx, store, set, now);
  const decidedBy = commandDecider(ctx);
  const beside = await besides(ctx, store, resolved, decidedBy);
  const decided = decidedOf(resolved, plans, beside.remainderOf);
  const notes = feedbackBySession(decided, set.feedback ?? [], now, decidedBy);
  const feedback = [];
  for (const [session, record] of notes)
    feedback.push({ session, ...(await feedbackUpdate(store, record, ctx.now())) });
  const updates = [...beside.updates, ...feedback.map((f) => f.update)];
  const written = join([beside.written, ...feedback.map((f) => f.written), emptyWritten()]);
  // A change applied in part says where its other hunks went.
  const partly = resolved.filter((r) => r.verdict === 'confirm' && r.picked);
  const applied = new Map(partly.map((r) => [r.change.id, noteOf(r, beside.remainderOf.get(r.change.id))]));
  if (plans.length > 0) await applyPlans(ctx, store, plans, { updates, written, notes: applied });
  else await publish(store, updates, `fettle: decide ${ids(resolved)}`, written);
  for (const r of resolved) await forgetStaged(store, r.change);
  for (const f of feedback) {
    const text = notes.get(f.session)?.text ?? '';
    await queueFeedback(ctx.config.dataDir, f.session, f.commit, text).catch(() => undefined);
  }
  return { decided, feedback: new Map(feedback.map((f) => [f.session, f.commit])) };
};

const ids = (rs: Resolved[]): string => rs.map((r) => r.change.id).join(' ');

const refuseDecisions = (errors: FettleError[], total: number): FettleError => {
  if (errors.length === 1 && total === 1) return errors[0] as FettleError;
  return new FettleError(
    errors.every((e) => e.code === errors[0]?.code) ? (errors[0]?.code ?? 'E_CONFLICT') : 'E_CONFLICT',
    `${errors.length} of ${plural(total, 'change')} cannot be decided as asked, so none was. Nothing was written.`,
    { hint: errors.map((e) => `- ${e.message}${e.hint ? ` ${e.hint}` : ''}`).join('\n') },
  );
};
