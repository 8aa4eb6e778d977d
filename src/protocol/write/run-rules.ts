// A policy's `run` rules on a write that goes on (direct, staged, or asked about): each matching rule's command
// runs on the tree the write would produce (review/proposed-tree.ts). A failure of a rule that blocks denies the
// write, the agent told the command, how it ended and the end of its output; a failure of a rule that stages
// stages it (a write the thresholds let through is planned again as the rule's), that output in its record.
import { gitModeOf } from '../../io/atomic-write';
import { planWrite, type Plan } from '../decide/plan';
import type { PathPolicy } from '../decide/policy';
import type { SourceCounts } from '../decide/predict';
import { type ProposedFile, type RuleRun, runOnProposed, runOnSet, type RunFailure } from '../review/proposed-tree';
import type { Target } from '../../store/store';
import type { Context } from '../context';
import type { RunCheck } from '../../core/messages';
import { FettleError } from '../../errors';

export type RunVerdict =
  | { kind: 'pass'; plan: Plan }
  /** denied: `failure` is the rule that blocks; `text`, what every failed command said */
  | { kind: 'block'; failure: RunFailure; text: string }
  /** `plan`, staged, its note the failures */
  | { kind: 'stage'; plan: Plan; text: string };

/** The plan a write goes on with after the run rules, or the rule whose failed command blocks it. */
export const runRules = async (
  ctx: Context,
  plan: Plan,
  policy: PathPolicy,
  w: { session: string | undefined; source?: SourceCounts | undefined },
): Promise<RunVerdict> => {
  if (policy.runs.length === 0 || plan.decision.tier === 'noop') return { kind: 'pass', plan };
  const mode = plan.old ? gitModeOf(plan.old.mode) : '100644';
  const proposed = { target: plan.target, bytes: plan.next, mode, session: w.session };
  const failures = await runOnProposed(ctx, proposed, policy.runs, policy.files);
  if (!failures) return { kind: 'pass', plan };
  const text = failures.map((f) => f.text).join('\n\n');
  const blocking = failures.find((f) => f.onFail === 'block');
  if (blocking) return { kind: 'block', failure: blocking, text };
  const rule = (failures[0] as RunFailure).rule;
  const staged =
    plan.decision.tier === 'staged'
      ? plan
      : await planWrite(ctx, plan.target, plan.old, plan.next, {
          source: w.source,
          policy: { ...policy, effect: { kind: 'stage', rule } },
        });
  return { kind: 'stage', plan: { ...staged, note: text }, text };
};

/** What the agent reads of failed commands that stage a write; `staged`: the run rule alone staged it. */
export const checkOf = (v: RunVerdict): RunCheck | undefined => {
  if (v.kind !== 'stage') return undefined;
  const effect = v.plan.policy?.effect;
  return { text: v.text, staged: effect?.kind === 'stage' && effect.rule.action === 'run' };
};

/** A write fettle itself would make (`fettle write`, MCP, `fettle apply`) that a run rule's failed command blocks. */
export const runBlockedError = (path: string, check: string, feedback: readonly string[]): FettleError =>
  new FettleError('E_BLOCKED', [check.trim(), ...feedback.map((f) => f.trim()).filter(Boolean)].join('\n'), {
    hint: `Nothing was written to ${path}. Fix what it reports, then write again.`,
  });

/** A file of a set, for its run rules: where, what it will hold (null: removed), its policy, and whether it changes. */
export interface SetMember {
  target: Target;
  next: Buffer | null;
  mode: string;
  policy: PathPolicy;
  changes: boolean;
}

export type SetRunVerdict =
  | { kind: 'pass' }
  /** `feedback`: every matching rule's message, of the files that change */
  | { kind: 'block'; failure: RunFailure; text: string; files: PathPolicy['files']; feedback: string[] }
  /** the set is staged by `rule`, its note the failures */
  | { kind: 'stage'; rule: RunFailure['rule']; text: string; files: PathPolicy['files'] };

/**
 * The run rules of a set of files (Codex's apply_patch, `fettle write --from`, `fettle apply`), on the tree the
 * whole set would produce: each rule a changed file matches runs once, a command with `{file}` once per such file.
 */
export const runSetRules = async (
  ctx: Context,
  members: readonly SetMember[],
  session: string | undefined,
): Promise<SetRunVerdict> => {
  const rules = new Map<string, RuleRun>();
  for (const m of members) {
    if (!m.changes) continue;
    for (const rule of m.policy.runs) {
      const key = `${rule.layer}#${rule.index}`;
      const entry = rules.get(key) ?? { rule, paths: [] };
      entry.paths.push(m.target.treePath);
      rules.set(key, entry);
    }
  }
  const [first] = members;
  if (rules.size === 0 || !first) return { kind: 'pass' };
  const proposed: ProposedFile[] = members.map((m) => ({ target: m.target, bytes: m.next, mode: m.mode }));
  const failures = await runOnSet(ctx, { files: proposed, session }, [...rules.values()], first.policy.files);
  if (!failures) return { kind: 'pass' };
  const text = failures.map((f) => f.text).join('\n\n');
  const blocking = failures.find((f) => f.onFail === 'block');
  const { files: names } = first.policy;
  if (!blocking) return { kind: 'stage', rule: (failures[0] as RunFailure).rule, text, files: names };
  const feedback = [...new Set(members.flatMap((m) => (m.changes ? m.policy.feedback.map((f) => f.message) : [])))];
  return { kind: 'block', failure: blocking, text, files: names, feedback };
};
