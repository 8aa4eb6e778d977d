// A policy's `run` rules on a write that goes on (direct, staged, or asked about): each matching rule's command
// runs on the tree the write would produce (review/proposed-tree.ts). A failure of a rule that blocks denies the
// write, the agent told the command, how it ended and the end of its output; a failure of a rule that stages
// stages it (a write the thresholds let through is planned again as the rule's), that output in its record.
import { gitModeOf } from '../../io/atomic-write';
import { planWrite, type Plan } from '../decide/plan';
import type { PathPolicy } from '../decide/policy';
import type { SourceCounts } from '../decide/predict';
import { runOnProposed, type RunFailure } from '../review/proposed-tree';
import type { Context } from '../context';

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
