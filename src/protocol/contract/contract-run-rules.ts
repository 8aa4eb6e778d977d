// A contract's policy `run` rules (docs/POLICY.md): each rule a file of the contract matches runs once on the tree
// the whole contract would produce (write/run-rules.ts runSetRules), a command with `{file}` once per such file.
// A blocking failure refuses the contract, nothing staged; a staging one goes into every change's note (a
// contract is staged anyway).
import { gitModeOf } from '../../io/atomic-write';
import type { Context } from '../context';
import { policyFor } from '../decide/policy';
import { runBlockedError, runSetRules } from '../write/run-rules';
import type { PlannedFile } from './contract-records';

/** What the failed commands of `run` rules that stage said, for the records' note; undefined when none failed. */
export const contractRunRules = async (
  ctx: Context,
  changed: readonly PlannedFile[],
  session: string | undefined,
): Promise<string | undefined> => {
  const members = changed.map(({ result, target, disk }) => ({
    target,
    next: result.after,
    mode: disk ? gitModeOf(disk.mode) : '100644',
    policy: policyFor(ctx, target),
    changes: true,
  }));
  const v = await runSetRules(ctx, members, session);
  if (v.kind === 'pass') return undefined;
  if (v.kind === 'block') throw runBlockedError(members.map((m) => m.target.treePath).join(', '), v.text, v.feedback);
  return v.text;
};
