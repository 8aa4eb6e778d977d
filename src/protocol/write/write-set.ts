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
//   - the call would fail (a patch that does not apply): nothing is recorded, the tool reports its own error;
//   - policy `run` rules of the files it changes run once on the tree the whole call would produce: a blocking
//     failure denies the call, a staging one stages it as a large call is; an unsure call they match is denied.
// Each file's record is linked to the call by a link of its own (`<tool use>#<n>`), so one settles without
// the others (settle.ts). Recording and staging the set: write-set-record.ts; the after step: write-set-after.ts.
import { countLinesIn } from '../../core/content';
import { tierFor, type Decision } from '../../core/decide';
import { routeStaged } from '../../core/permission';
import { ruleDecider, ruleText } from '../../core/policy';
import { isNotAFile, readDisk, type DiskFile } from '../../io/atomic-write';
import type { Target } from '../../store/store';
import { callName, claimCall } from '../record/call-answers';
import { locateWritten } from './target';
import type { Context, Origin } from '../context';
import { planWrite } from '../decide/plan';
import { type PathPolicy, policyFor } from '../decide/policy';
import { currentTurn } from '../turns';
import { ruledOut } from './before';
import { checkSet, type SetBlocked, type SetCheck, stagedDecision } from './write-set-run';
import { recordSet, stageSet, type SetFile, type SetStaged } from './write-set-record';

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

export type SetBefore =
  | { kind: 'replay'; answer: string }
  | { kind: 'duplicate' }
  | (({ kind: 'pass' } | { kind: 'noop' } | SetStaged | SetRefused | SetBlocked) & {
      remember?: ((answer: string) => Promise<void>) | undefined;
    });

export interface SetRefused {
  kind: 'refused';
  decision: Extract<Decision, { tier: 'staged' }>;
}

export type { SetBlocked } from './write-set-run';

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
  for (const path of w.paths) targets.push(await locateWritten(ctx, path));
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

/** The first file of the set a policy `block` rule covers: it denies the whole call. */
const blockedFile = (policies: PathPolicy[], targets: Target[]): SetBlocked | null => {
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
  return null;
};

/** Each file's plan, one after another: a removed file counts every line it had; an absent one, nothing. */
const planFiles = async (
  ctx: Context,
  targets: Target[],
  p: { olds: (DiskFile | null)[]; effect: Extract<SetEffect, { ok: true }>; policies: PathPolicy[] },
): Promise<SetFile[]> => {
  const files: SetFile[] = [];
  for (const [n, target] of targets.entries()) {
    const old = p.olds[n] as DiskFile | null;
    const next = p.effect.files[n]?.next ?? null;
    if (next === null) {
      files.push({ target, old, next, decision: old ? removal(old) : { tier: 'noop' } });
      continue;
    }
    const plan = await planWrite(ctx, target, old, next, { policy: p.policies[n] });
    files.push({ target, old, next, decision: plan.decision, plan });
  }
  return files;
};

const decideBefore = async (
  ctx: Context,
  w: SetWrite,
  targets: Target[],
): Promise<{ kind: 'pass' } | { kind: 'noop' } | SetStaged | SetRefused | SetBlocked> => {
  // Policy decides per file, as for a single write: one blocked file denies the call; `stage` and thresholds
  // rules decide each file's plan, and so the set's. An `ignore` rule's file is recorded with the rest.
  const policies = targets.map((t) => policyFor(ctx, t));
  const blocked = blockedFile(policies, targets);
  if (blocked) return blocked;
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
    // A `run` rule's command needs the bytes the call leaves: unknown, so it is refused (before.ts `unpredicted`).
    const run = policies.flatMap((p) => (p.effect.kind === 'ignore' ? [] : p.runs))[0];
    if (run) {
      const rule = ruleText(run, (policies[0] as PathPolicy).files[run.layer]);
      return {
        kind: 'blocked',
        path: [...new Set(w.paths)].join(', '),
        ruleText: rule,
        message: '',
        unsure: effect.why,
      };
    }
    const note = `fettle could not predict the result: ${effect.why}.`;
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: { reason: 'unsure', note }, origin });
    return { kind: 'pass' };
  }
  const files = await planFiles(ctx, targets, { olds: olds as (DiskFile | null)[], effect, policies });
  const { decision, alone } = decideSet(
    ctx,
    files.map((f) => f.decision),
  );
  if (decision.tier === 'noop') return { kind: 'noop' };
  const checked = await checkSet(ctx, files, policies, w.origin.session);
  if (checked?.kind === 'blocked') return checked;
  if (decision.tier === 'direct' && !checked) {
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: {}, origin, planned: files });
    return { kind: 'pass' };
  }
  const stores = new Set(targets.map((t) => t.store.commonDir));
  if (stores.size > 1) {
    const what = decision.tier === 'direct' ? "A change a run rule's failed command stages" : 'A large change';
    const note = `${what}, recorded and not staged: its files are in more than one repository.`;
    await recordSet(ctx, { targets, olds: olds as (DiskFile | null)[], extra: { note }, origin, planned: files });
    return { kind: 'pass' };
  }
  return stageChecked(ctx, w, { files, origin, decision, alone, check: checked });
};

/** A set staged: by its size, a `stage` rule, or a `run` rule's failed command (`check`). */
const stageChecked = async (
  ctx: Context,
  w: SetWrite,
  s: { files: SetFile[]; origin: Origin; decision: Decision; alone?: number | undefined; check?: SetCheck },
): Promise<SetStaged | SetRefused> => {
  const { files, origin, alone, check } = s;
  const byRun = check !== undefined && s.decision.tier !== 'staged';
  const decision = stagedDecision(s.decision);
  const route = routeStaged({ mode: w.mode, review: ctx.config.review, inProject: true });
  if (route === 'refuse') return { kind: 'refused', decision };
  const large = alone === undefined ? undefined : files[alone];
  const decided = byRun ? { decidedBy: ruleDecider(check.rule) } : {};
  const staging = { ...origin, ...decided, ...(route === 'person' ? { review: 'person' as const } : {}) };
  const noted = check ? files.map((f) => ({ ...f, note: check.text })) : files;
  const staged = await stageSet(ctx, noted, staging, decision, route);
  const shown = check && { text: check.text, staged: byRun, rule: check.ruleText };
  return large?.decision.tier === 'staged' && !byRun
    ? { ...staged, alone: { path: large.target.treePath, decision: large.decision }, check: shown }
    : { ...staged, check: shown };
};
