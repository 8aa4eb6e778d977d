// One tool call that writes several files at once (Codex's apply_patch), decided as a whole. Before the tool
// runs: the bytes of every file it touches are read, the adapter's pure function says what each will hold
// (null: removed), and the call is decided once for all of them:
//   - large (any file large on its own, or the lines changed across the files, summed, past the same thresholds
//     against those files' summed lines): every file is staged as one changeset, in one transaction, and the
//     call is refused with the diff (recordMany);
//   - small: every file's previous bytes are recorded as one changeset, in one transaction, and the tool writes;
//     the after step records what landed for each file, in one transaction (recordAfters);
//   - a large call that removes a file (a deletion, or the old path of a move) stages the removal with the rest:
//     a proposal without the file, which confirm applies with the others, all or nothing (confirm-plan.ts);
//   - the adapter cannot tell what the call leaves (unsure), or a large call's files are in more than one
//     repository (a changeset lives in one): recorded as a small one, never staged;
//   - the call would fail (a patch that does not apply): nothing is recorded, the tool reports its own error.
// Each file's record is linked to the call by a link of its own (`<tool use>#<n>`), so one settles without
// the others (settle.ts).
import { countLinesIn } from '../core/content';
import { tierFor, type Decision } from '../core/decide';
import { countChanges } from '../core/diff';
import { routeStaged } from '../core/permission';
import type { RecordFields } from '../core/record-message';
import { FettleError } from '../errors';
import { gitModeOf, isNotAFile, readDisk, type DiskFile } from '../io/atomic-write';
import { locateTarget } from '../store/locate';
import type { Store, Target } from '../store/store';
import { READ_BATCH, readFile } from '../store/object-read';
import { callName, claimCall, forgetCall } from './call-answers';
import { claimWrite, digest, rememberWrite, type Claimed } from './call-links';
import type { Context, Origin } from './context';
import { newId } from './ids';
import { planWrite, type Plan } from './plan';
import { policyFor } from './policy';
import { fieldsOf, type Fields } from './record';
import { recordAfters, recordMany, type Recorded } from './record-many';
import { housekeep } from './housekeeping';
import { currentTurn } from './turns';
import { ruledOut } from './write';

/** What a set of files will hold after the call: by the path as the call names it; null: removed. */
export type SetEffect =
  | { ok: true; files: { path: string; next: Buffer | null }[] }
  | { ok: false; why: string; unsure?: boolean | undefined };

export interface SetWrite {
  /** every path the call touches, as it names them (relative to the agent's cwd or absolute), in order */
  paths: string[];
  /** the call's input, which identifies it (one answer per tool call: call-answers.ts) */
  input: unknown;
  /** what the call leaves, from the bytes there now (null: no file); pure */
  effect: (read: (path: string) => Buffer | null) => SetEffect;
  origin: Origin;
  /** the agent's permission mode, when it maps onto core/permission.ts; undefined otherwise */
  mode?: string | undefined;
}

/** One file of a decided set: where it is, its bytes now and after, and its record's fields. */
export interface SetFile {
  target: Target;
  old: DiskFile | null;
  next: Buffer | null;
  decision: Decision;
  plan?: Plan | undefined;
}

export type SetBefore =
  | { kind: 'replay'; answer: string }
  | { kind: 'duplicate' }
  | (({ kind: 'pass' } | { kind: 'noop' } | SetStaged | SetRefused | SetBlocked) & {
      remember?: ((answer: string) => Promise<void>) | undefined;
    });

export interface SetStaged {
  kind: 'staged';
  store: Store;
  changeset: string;
  files: { id: string; file: SetFile }[];
  /** the whole set's size, summed over the files it changes */
  decision: Extract<Decision, { tier: 'staged' }>;
  /** a file that is large on its own, when that, not the sum, staged the set */
  alone?: { path: string; decision: Extract<Decision, { tier: 'staged' }> } | undefined;
  review: 'model' | 'person';
}

export interface SetRefused {
  kind: 'refused';
  decision: Extract<Decision, { tier: 'staged' }>;
}

/** A file of the set that a policy `block` rule covers: the whole call is denied with the rule's message. */
export interface SetBlocked {
  kind: 'blocked';
  path: string;
  /** how messages name the rule (ruleText) */
  ruleText: string;
  message: string;
}

const WARM = { warm: [READ_BATCH] };

/** The link of the `n`th file a call touches. */
export const setLink = (toolUse: string, n: number): string => `${toolUse}#${n}`;

const unknownOld = async (path: string): Promise<DiskFile | null | undefined> =>
  readDisk(path).catch((error: unknown) => {
    if (isNotAFile(error)) return undefined;
    throw error;
  });

/** A removed file's counts: every line it had. */
const removal = (old: DiskFile): Extract<Decision, { tier: 'direct' }> => {
  const lines = countLinesIn(old.bytes);
  return { tier: 'direct', reason: 'small', added: 0, removed: lines, oldLines: lines };
};

/**
 * The set's decision: staged when one file would be on its own, or when the lines changed in the files that
 * existed, summed, pass the thresholds against their summed lines. New files count for nothing, as a new file
 * alone does (there is nothing to lose).
 */
export const decideSet = (ctx: Context, decisions: Decision[]): { decision: Decision; alone?: number } => {
  let added = 0;
  let removed = 0;
  let oldLines = 0;
  let alone: number | undefined;
  decisions.forEach((d, n) => {
    if (d.tier === 'noop' || (d.tier === 'direct' && d.reason !== 'small')) return;
    added += d.added;
    removed += d.removed;
    oldLines += d.oldLines;
    if (d.tier === 'staged') alone ??= n;
  });
  if (decisions.every((d) => d.tier === 'noop')) return { decision: { tier: 'noop' } };
  const tier = tierFor(added + removed, oldLines, ctx.config);
  if (tier !== 'direct') return { decision: { tier: 'staged', reason: tier, added, removed, oldLines } };
  const one = alone === undefined ? undefined : decisions[alone];
  if (one?.tier === 'staged')
    return { decision: { tier: 'staged', reason: one.reason, added, removed, oldLines }, alone };
  return { decision: { tier: 'direct', reason: 'small', added, removed, oldLines } };
};

/** Before the tool writes: record or stage the whole set, once per tool call (see the file comment). */
export const beforeWriteSet = async (ctx: Context, w: SetWrite): Promise<SetBefore> => {
  const targets: Target[] = [];
  for (const path of w.paths) targets.push(await locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir, WARM));
  const [first] = targets;
  if (!first) return { kind: 'pass' };
  const { toolUse, session } = w.origin;
  const claim = toolUse ? await claimCall(first.store.commonDir, callName(session, toolUse, w.input)) : null;
  if (claim?.kind === 'answered') return { kind: 'replay', answer: claim.answer };
  if (claim?.kind === 'busy') return { kind: 'duplicate' };
  try {
    return { ...(await decideBefore(ctx, w, targets)), remember: claim?.answer };
  } catch (error) {
    await claim?.release();
    throw error;
  }
};

const decideBefore = async (
  ctx: Context,
  w: SetWrite,
  targets: Target[],
): Promise<{ kind: 'pass' } | { kind: 'noop' } | SetStaged | SetRefused | SetBlocked> => {
  // Policy decides per file, as for a single write: one blocked file denies the call; `stage` and thresholds
  // rules decide each file's plan, and so the set's. An `ignore` rule's file is recorded with the rest.
  const policies = targets.map((t) => policyFor(ctx, t));
  for (const [n, policy] of policies.entries()) {
    const ruled = ruledOut(policy, targets[n] as Target);
    if (ruled?.kind === 'blocked')
      return {
        kind: 'blocked',
        path: ruled.target.treePath,
        ruleText: ruled.ruleText,
        message: ruled.rule.message ?? '',
      };
  }
  const turn = await currentTurn(ctx.config.dataDir, w.origin.session);
  const origin: Origin = turn === undefined ? w.origin : { ...w.origin, turn };
  const olds = await Promise.all(targets.map((t) => unknownOld(t.realPath)));
  const byPath = new Map(w.paths.map((p, n) => [p, olds[n]]));
  const distinct = new Set(targets.map((t) => t.realPath)).size === targets.length;
  const effect = distinct
    ? w.effect((path) => byPath.get(path)?.bytes ?? null)
    : ({ ok: false, why: 'the call names one file twice', unsure: true } as const);
  // Something in the way that is not a file (a directory): the tool fails on its own.
  if (olds.some((o) => o === undefined)) return { kind: 'pass' };
  if (!effect.ok && !effect.unsure) return { kind: 'pass' };
  if (!effect.ok) {
    const note = `fettle could not predict the result: ${effect.why}.`;
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: { reason: 'unsure', note }, origin });
    return { kind: 'pass' };
  }
  const files: SetFile[] = [];
  for (const [n, target] of targets.entries()) {
    const old = olds[n] as DiskFile | null;
    const next = effect.files[n]?.next ?? null;
    if (next === null) {
      files.push({ target, old, next, decision: old ? removal(old) : { tier: 'noop' } });
      continue;
    }
    const plan = await planWrite(ctx, target, old, next, { policy: policies[n] });
    files.push({ target, old, next, decision: plan.decision, plan });
  }
  const { decision, alone } = decideSet(
    ctx,
    files.map((f) => f.decision),
  );
  if (decision.tier === 'noop') return { kind: 'noop' };
  if (decision.tier === 'direct') {
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: {}, origin, planned: files });
    return { kind: 'pass' };
  }
  const stores = new Set(targets.map((t) => t.store.commonDir));
  if (stores.size > 1) {
    const note = 'A large change, recorded and not staged: its files are in more than one repository.';
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: { note }, origin, planned: files });
    return { kind: 'pass' };
  }
  const route = routeStaged({ mode: w.mode, review: ctx.config.review, inProject: true });
  if (route === 'refuse') return { kind: 'refused', decision };
  const large = alone === undefined ? undefined : files[alone];
  const staged = await stageSet(
    ctx,
    files,
    route === 'person' ? { ...origin, review: 'person' } : origin,
    decision,
    route,
  );
  return large?.decision.tier === 'staged'
    ? { ...staged, alone: { path: large.target.treePath, decision: large.decision } }
    : staged;
};

const changedOnly = (files: SetFile[]) => files.filter((f) => f.decision.tier !== 'noop');

/** Every touched file's previous bytes as one changeset, each linked to the call for its after step. */
interface SetRecord {
  targets: Target[];
  olds: (DiskFile | null)[];
  /** fields every record gets (a note, the reason) */
  extra: Partial<Fields>;
  origin: Origin;
  /** each file's plan, when the set's effect is known */
  planned?: SetFile[] | undefined;
}

const recordSet = async (ctx: Context, { targets, olds, extra, origin, planned }: SetRecord): Promise<void> => {
  const changeset = newId();
  const groups = new Map<string, { store: Store; n: number[] }>();
  targets.forEach((t, n) => {
    if (planned && planned[n]?.decision.tier === 'noop') return;
    // A file that did not exist and will not (an unsure call's new file) has nothing to keep.
    if (!planned && olds[n] === null) return;
    const group = groups.get(t.store.commonDir) ?? { store: t.store, n: [] };
    group.n.push(n);
    groups.set(t.store.commonDir, group);
  });
  for (const { store, n } of groups.values()) {
    const items = n.map((i) => ({
      old: olds[i] as DiskFile | null,
      fields: setFields(targets[i] as Target, planned?.[i], origin, { changeset, ...extra }),
    }));
    const records = await recordMany(ctx, store, items);
    if (!origin.toolUse) continue;
    for (const [k, record] of records.entries()) {
      const i = n[k] as number;
      const next = planned?.[i]?.next;
      const expect = next === undefined ? {} : { expect: digest(next ?? Buffer.alloc(0)) };
      await rememberWrite(store, setLink(origin.toolUse, i), {
        ...record,
        file: (targets[i] as Target).realPath,
        // A removal is predicted as no file: the after step sees none and keeps the counts.
        ...(next === null ? { expect: 'removed' } : expect),
      });
    }
  }
};

const setFields = (target: Target, file: SetFile | undefined, origin: Origin, extra: Partial<Fields>): Fields => {
  if (file?.plan) return { ...fieldsOf(file.plan, origin), tier: 'direct', ...extra };
  const d = file?.decision;
  const counted = d && d.tier !== 'noop' ? { added: d.added, removed: d.removed } : {};
  return {
    tier: 'direct',
    path: target.treePath,
    file: target.realPath,
    reason: file ? 'small' : 'unsure',
    ...counted,
    ...origin,
    ...extra,
  };
};

/** Every file of the set staged as one changeset, in one transaction: nothing is written. */
/** A staged file's record fields: its plan's, or for a removal (no plan), every line it had as removed. */
const stagedFields = (f: SetFile, origin: Origin): Fields => {
  if (f.plan) return fieldsOf(f.plan, origin);
  const d = f.decision;
  const counts = d.tier === 'noop' ? {} : { added: d.added, removed: d.removed };
  return { tier: 'staged', path: f.target.treePath, file: f.target.realPath, reason: 'deleted', ...counts, ...origin };
};

const stageSet = async (
  ctx: Context,
  files: SetFile[],
  origin: Origin,
  decision: Extract<Decision, { tier: 'staged' }>,
  review: 'model' | 'person',
): Promise<SetStaged> => {
  const changed = changedOnly(files);
  const [first] = changed;
  if (!first) throw new FettleError('E_INTERNAL', 'a staged set with no changed file');
  const { store } = first.target;
  const changeset = newId();
  const items = changed.map((f) => ({
    old: f.old,
    fields: { ...stagedFields(f, origin), tier: 'staged' as const, changeset },
    // null: a proposal without the file, which confirm removes
    next: f.next === null ? null : { bytes: f.next, mode: f.old ? gitModeOf(f.old.mode) : '100644' },
  }));
  const records = await recordMany(ctx, store, items);
  await housekeep(ctx, store);
  return {
    kind: 'staged',
    store,
    changeset,
    files: changed.map((file, n) => ({ id: (records[n] as Recorded).id, file })),
    decision,
    review,
  };
};

export type SetAfter =
  | { kind: 'none' }
  | { kind: 'recorded'; store: Store; files: { id: string; path: string; file: string; fields: RecordFields }[] };

/** After the tool wrote: what landed in each file the before step recorded, one transaction per repository. */
export const afterWriteSet = async (
  ctx: Context,
  paths: string[],
  input: unknown,
  origin: Origin,
): Promise<SetAfter> => {
  const { toolUse } = origin;
  if (!toolUse) return { kind: 'none' };
  const claimed: { store: Store; realPath: string; link: Claimed }[] = [];
  let forgotten = false;
  for (const [n, path] of paths.entries()) {
    const target = await locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir, WARM).catch(() => null);
    if (!target) continue;
    if (!forgotten) await forgetCall(target.store.commonDir, callName(origin.session, toolUse, input));
    forgotten = true;
    const link = await claimWrite(target.store, setLink(toolUse, n));
    if (!link) continue;
    if (link.pending.file !== target.realPath || !link.pending.tip || !link.pending.fields) {
      await link.restore();
      continue;
    }
    claimed.push({ store: target.store, realPath: target.realPath, link });
  }
  if (claimed.length === 0) return { kind: 'none' };
  const recorded: { id: string; path: string; file: string; fields: RecordFields }[] = [];
  try {
    const byStore = new Map<string, typeof claimed>();
    for (const c of claimed) byStore.set(c.store.commonDir, [...(byStore.get(c.store.commonDir) ?? []), c]);
    for (const group of byStore.values()) {
      const items = [];
      for (const c of group) {
        const pending = c.link.pending;
        const landed = await readDisk(c.realPath);
        const previous = { id: pending.id, tip: pending.tip as string, fields: pending.fields as RecordFields };
        const predicted =
          pending.expect === 'removed' ? landed === null : landed !== null && pending.expect === digest(landed.bytes);
        const fields = predicted ? previous.fields : { ...previous.fields, ...(await landedCounts(c, landed)) };
        items.push({ previous: { ...previous, fields }, landed });
        recorded.push({ id: pending.id, path: fields.path, file: c.realPath, fields });
      }
      await recordAfters(ctx, (group[0] as (typeof claimed)[number]).store, items);
      await housekeep(ctx, (group[0] as (typeof claimed)[number]).store);
    }
  } catch (error) {
    await Promise.all(claimed.map((c) => c.link.restore()));
    throw error;
  }
  await Promise.all(claimed.map((c) => c.link.release()));
  return { kind: 'recorded', store: (claimed[0] as (typeof claimed)[number]).store, files: recorded };
};

/** Counts against the recorded previous bytes, when what landed is not what was predicted. */
const landedCounts = async (
  c: { store: Store; realPath: string; link: Claimed },
  landed: DiskFile | null,
): Promise<Partial<RecordFields>> => {
  const fields = c.link.pending.fields as RecordFields;
  const old = await readFile(c.store, c.link.pending.tip as string, fields.path);
  return countChanges(old?.bytes ?? null, landed?.bytes ?? null);
};
