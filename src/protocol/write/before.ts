// The write protocol, once for every edge: the Claude Code hook, `fettle write`, and the adapters to come. An edge
// describes a write in neutral terms (a tool call or bytes, and who made it), and renders the neutral result in
// its own dialect. Before a tool writes: record the previous bytes (direct) or stage the proposal (large); here.
// After: record what landed, or settle the record after a failed call (after.ts). A write fettle performs
// itself: write-bytes.ts.
import type { Plan } from '../decide/plan';
import type { Thresholds } from '../../core/decide';
import type { RunCheck } from '../../core/messages';
import { routeStaged } from '../../core/permission';
import { ruleDecider, ruleText } from '../../core/policy';
import type { RecordFields } from '../../core/record-message';
import { type DiskFile, isNotAFile, readDisk } from '../../io/atomic-write';
import type { Target } from '../../store/store';
import type { Context, Origin } from '../context';
import { planWrite } from '../decide/plan';
import { contentFacts, writePolicy } from '../decide/call-policy';
import type { PathPolicy } from '../decide/policy';
import { predict, type SourceCounts } from '../decide/predict';
import { type Beside, fieldsOf, recordBefore } from '../record/record';
import { stage } from '../record/stage';
import { callName, claimCall } from '../record/call-answers';
import { digest, forgetWrite, rememberWrite } from '../record/call-links';
import { currentTurn } from '../turns';
import type { Before, Decided, RuledOut, Staged, ToolWrite } from './before-types';
import { checkOf, runRules, type RunVerdict } from './run-rules';
import { locateWritten } from './target';

export type { Before, Decided, RuledOut, StagedWrite, ToolWrite } from './before-types';

/** The origin with the session's current turn, read from one small file (no git). */
export const withTurn = async (ctx: Context, origin: Origin): Promise<Origin> => {
  const turn = await currentTurn(ctx.config.dataDir, origin.session);
  return turn === undefined ? origin : { ...origin, turn };
};

/**
 * Before the tool writes: the previous bytes go into git (direct), or the proposal is staged (large); once per
 * tool call (call-answers.ts).
 */
export const beforeWrite = async (ctx: Context, w: ToolWrite): Promise<Before> => {
  const target = await locateWritten(ctx, w.call.filePath, { early: true });
  const { toolUse, session } = w.origin;
  const claim = toolUse ? await claimCall(target.store.commonDir, callName(session, toolUse, w.call)) : null;
  if (claim?.kind === 'answered') return { kind: 'replay', answer: claim.answer };
  if (claim?.kind === 'busy') return { kind: 'duplicate' };
  try {
    return { ...(await decideBefore(ctx, w, target)), remember: claim?.answer };
  } catch (error) {
    await claim?.release();
    throw error;
  }
};

/** How the path's policy decides it before anything is read: blocked, ignored, or on to the write. */
export const ruledOut = (policy: PathPolicy, target: Target): RuledOut | null => {
  const { effect } = policy;
  if (effect.kind !== 'block' && effect.kind !== 'ignore') return null;
  const text = ruleText(effect.rule, policy.files[effect.rule.layer]);
  if (effect.kind === 'ignore') return { kind: 'ignored', target, rule: effect.rule, ruleText: text };
  return {
    kind: 'blocked',
    target,
    rule: effect.rule,
    ruleText: text,
    feedback: policy.feedback.map((f) => f.message),
  };
};

/**
 * A write that goes on (its previous bytes recorded as `id`), unless an `ask` rule decided it: then it is held for
 * a person, `blocked` with `ask` (an agent with no prompt denies it; the record is settled as a call that never
 * ran, or completed by the after step when the person allows it).
 */
const passOrAsk = (policy: PathPolicy, target: Target, id?: string): Decided => {
  const { effect } = policy;
  if (effect.kind !== 'ask') return id === undefined ? { kind: 'pass' } : { kind: 'pass', target, id };
  const text = ruleText(effect.rule, policy.files[effect.rule.layer]);
  const feedback = policy.feedback.map((f) => f.message);
  return { kind: 'blocked', target, rule: effect.rule, ruleText: text, feedback, ask: true };
};

/** A write a `run` rule's failed command blocks: the agent reads what it said, then what the rules say. */
const blockedByRun = (policy: PathPolicy, target: Target, v: Extract<RunVerdict, { kind: 'block' }>): Decided => {
  const { rule } = v.failure;
  const text = ruleText(rule, policy.files[rule.layer]);
  const feedback = policy.feedback.map((f) => f.message);
  return { kind: 'blocked', target, rule, ruleText: text, feedback, check: v.text };
};

/** Who decided a planned write's tier: the policy rule that did, else the thresholds. */
export const deciderOf = (plan: Plan): string =>
  plan.policy && plan.policy.effect.kind !== 'none' && 'rule' in plan.policy.effect
    ? ruleDecider(plan.policy.effect.rule)
    : 'threshold';

/** How a staged write names the rule that staged it, when one did. */
export const stagingRule = (plan: Plan): string | undefined => {
  const effect = plan.policy?.effect;
  return plan.decision.tier === 'staged' && plan.decision.reason === 'policy' && effect && 'rule' in effect
    ? ruleText(effect.rule, plan.policy?.files[effect.rule.layer] ?? '')
    : undefined;
};

/**
 * A tool call whose result fettle cannot reproduce for sure: its previous bytes are kept and the tool decides;
 * under a rule that stages every change, which cannot be kept with nothing to stage, it is denied instead.
 */
const unpredicted = async (
  ctx: Context,
  target: Target,
  u: { policy: PathPolicy; old: DiskFile | null; origin: Origin; link: Beside | undefined; why: string },
): Promise<Decided> => {
  const { policy, old, origin, link, why } = u;
  // A `run` rule's command needs the bytes the write leaves: unknown, so it is refused as a `stage` rule's is.
  const rule = policy.effect.kind === 'stage' ? policy.effect.rule : policy.runs[0];
  if (rule) {
    const runs = policy.effect.kind !== 'stage';
    return { kind: 'unstageable', target, rule, ruleText: ruleText(rule, policy.files[rule.layer]), why, runs };
  }
  if (!old) return passOrAsk(policy, target);
  const note = `fettle could not predict the result: ${why}.`;
  const fields = { tier: 'direct' as const, path: target.treePath, file: target.realPath, reason: 'unsure', note };
  const recorded = await recordBefore(ctx, target, old, { ...fields, ...origin }, { beside: link });
  return passOrAsk(policy, target, recorded.id);
};

/** A planned write the thresholds or a rule stage: refused where the agent cannot hold it, else staged for review. */
const stageWrite = async (
  ctx: Context,
  w: ToolWrite,
  plan: Plan,
  s: {
    decision: Staged;
    origin: Origin;
    decidedBy: string;
    thresholds: Thresholds;
    rule: string | undefined;
    remember: Remember;
    check: RunCheck | undefined;
  },
): Promise<Decided> => {
  const { decision, origin, decidedBy, thresholds, rule, remember, check } = s;
  const { target } = plan;
  const route = routeStaged({ mode: w.mode, review: ctx.config.review, inProject: w.inProject });
  if (route === 'refuse') return { kind: 'refused', target, decision, thresholds, rule, check };
  const staging = { ...origin, decidedBy, ...(route === 'person' ? { review: 'person' as const } : {}) };
  const staged = await stage(ctx, plan, staging);
  // A person answers the agent's prompt; if they allow it, the tool writes and the after step marks it applied.
  if (route === 'person' && w.asks !== false) await remember(staged);
  return {
    kind: 'staged',
    target,
    decision,
    id: staged.id,
    diff: plan.diff,
    review: route,
    supersedes: staged.supersedes,
    thresholds,
    rule,
    check,
  };
};

const decideBefore = async (ctx: Context, w: ToolWrite, target: Target): Promise<Decided> => {
  const { call } = w;
  const { early, later } = writePolicy(ctx, target, { tool: w.origin.tool ?? call.tool, session: w.origin.session });
  const earlyRuled = early && ruledOut(early, target);
  if (earlyRuled) return earlyRuled;
  const origin = await withTurn(ctx, w.origin);
  // Not a file (a directory, a device, below a file): the tool will fail on its own and say why. One open and
  // fstat decides it and reads the bytes.
  const old = await readDisk(target.realPath).catch((error: unknown) => {
    if (isNotAFile(error)) return undefined;
    throw error;
  });
  if (old === undefined) return { kind: 'pass' };
  await target.store.ready;
  const proposed = w.predict ? w.predict(old) : predict(call, old);
  // What fettle predicts will land (and the lines it modifies in place, for the note); the after step keeps the
  // predicted counts only if exactly this landed. Hashed only for a record the after step will complete: a
  // staged change the model is told about needs none.
  const expected = () =>
    proposed.exact ? { expect: digest(proposed.next, proposed.randomSpan), random: proposed.randomSpan } : {};
  const remember = (modified?: number) => async (record: { id: string; tip: string; fields: RecordFields }) => {
    if (origin.toolUse)
      await rememberWrite(target.store, origin.toolUse, { ...record, file: target.realPath, ...expected(), modified });
  };
  const { toolUse } = origin;
  const link = (modified?: number) =>
    toolUse ? { write: remember(modified), undo: () => forgetWrite(target.store, toolUse) } : undefined;
  const policy = later(proposed.exact ? contentFacts(old, proposed.next) : {});
  const ruled = early ? null : ruledOut(policy, target);
  if (ruled) return ruled;
  if (!proposed.exact) return unpredicted(ctx, target, { policy, old, origin, link: link(), why: proposed.why });
  const { next, counts } = proposed;
  return goOn(ctx, w, { target, old, next, counts, policy, origin, remember, link });
};

type Remember = (record: { id: string; tip: string; fields: RecordFields }) => Promise<void>;

/** A write whose result is known, planned and checked by the `run` rules: recorded and let through, or staged. */
const goOn = async (
  ctx: Context,
  w: ToolWrite,
  p: {
    target: Target;
    old: DiskFile | null;
    next: Buffer;
    counts: SourceCounts | undefined;
    policy: PathPolicy;
    origin: Origin;
    remember: (modified?: number) => Remember;
    link: (modified?: number) => Beside | undefined;
  },
): Promise<Decided> => {
  const { target, old, policy, origin, remember, link } = p;
  const planned = await planWrite(ctx, target, old, p.next, { source: p.counts, policy });
  const checked = await runRules(ctx, planned, policy, { session: origin.session, source: p.counts });
  if (checked.kind === 'block') return blockedByRun(policy, target, checked);
  const { plan } = checked;
  // Staged by the run rule itself, or (by size, or a `stage` rule) anyway, with what its command said.
  const check = checkOf(checked);
  const decision = plan.decision;
  const { thresholds } = policy;
  const rule = stagingRule(plan);
  if (decision.tier === 'noop') return { kind: 'noop', target };
  const decidedBy = deciderOf(plan);
  if (decision.tier === 'direct') {
    const recorded = await recordBefore(
      ctx,
      target,
      old,
      { ...fieldsOf(plan, origin), decidedBy },
      { stored: plan.stored?.old, beside: link(decision.modified) },
    );
    return passOrAsk(policy, target, recorded.id); // the tool now writes through the agent's own permission flow
  }
  const staging = { decision, origin, decidedBy, thresholds, rule, remember: remember(decision.modified), check };
  return stageWrite(ctx, w, plan, staging);
};
