// The policy `run` rules of one tool call that writes several files (write-set.ts): each rule a changed file
// matches runs once on the tree the whole call would produce (run-rules.ts runSetRules); a blocking failure denies
// the call, a staging one stages it as a large call is staged.
import type { Decision } from '../../core/decide';
import { ruleText, type PolicyRule } from '../../core/policy';
import { gitModeOf } from '../../io/atomic-write';
import type { Context } from '../context';
import type { PathPolicy } from '../decide/policy';
import { runSetRules } from './run-rules';
import type { SetFile } from './write-set-record';

/** A file of the set that a policy `block` rule covers: the whole call is denied with the rule's message. */
export interface SetBlocked {
  kind: 'blocked';
  path: string;
  /** how messages name the rule (ruleText) */
  ruleText: string;
  message: string;
  /** a `run` rule's failed command blocks it: what the command said (the `path` is then every file it changes) */
  check?: string | undefined;
  /** a `run` rule matches, and what the call leaves cannot be computed: why (the `path` is every file it names) */
  unsure?: string | undefined;
}

/** A set's size as a staged decision (a run rule's failure stages a set the thresholds let through). */
export const stagedDecision = (d: Decision): Extract<Decision, { tier: 'staged' }> =>
  d.tier === 'staged'
    ? d
    : d.tier === 'noop'
      ? { tier: 'staged', reason: 'policy', added: 0, removed: 0, oldLines: 0 }
      : { tier: 'staged', reason: 'policy', added: d.added, removed: d.removed, oldLines: d.oldLines };

export type SetCheck = { kind: 'stage'; rule: PolicyRule; ruleText: string; text: string };

/**
 * The set's `run` rules on the tree the whole call would produce: undefined when every command passes (or none
 * matches); the whole call denied by a blocking failure; else the rule that stages it, and what its command said.
 */
export const checkSet = async (
  ctx: Context,
  files: SetFile[],
  policies: PathPolicy[],
  session: string | undefined,
): Promise<SetBlocked | SetCheck | undefined> => {
  const members = files.map((f, n) => {
    const policy = policies[n] as PathPolicy;
    const mode = f.old ? gitModeOf(f.old.mode) : '100644';
    const changes = f.decision.tier !== 'noop' && policy.effect.kind !== 'ignore';
    return { target: f.target, next: f.next, mode, policy, changes };
  });
  const v = await runSetRules(ctx, members, session);
  if (v.kind === 'pass') return undefined;
  if (v.kind === 'stage') return { ...v, ruleText: ruleText(v.rule, v.files[v.rule.layer]) };
  const { rule } = v.failure;
  const paths = members.flatMap((m) => (m.changes ? [m.target.treePath] : [])).join(', ');
  const message = v.feedback.join('\n');
  return { kind: 'blocked', path: paths, ruleText: ruleText(rule, v.files[rule.layer]), message, check: v.text };
};
