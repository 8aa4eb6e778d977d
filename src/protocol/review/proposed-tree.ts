// The tree a write would produce, for a policy `run` rule (core/policy-run.ts): the agent session's test tree
// (test-tree.ts, the one `fettle test` uses) brought to the user's work tree as it is now (HEAD plus everything
// `git status` lists there) with the proposed bytes at the path written, and each rule's command run at its top.
// The user's work tree, index and HEAD are only read. The tree is kept for the next write or `fettle test` (which
// moves it to what it needs, writing only the paths that differ) and removed by `fettle gc` once idle.
import { failureText, invocationText, passed, runInvocation } from '../../core/policy-run';
import { ruleText, type PolicyRule, type RunSpec } from '../../core/policy';
import { gitModeOf, readDisk } from '../../io/atomic-write';
import { noProgress } from '../../io/progress';
import { writeBlobs } from '../../store/objects';
import type { Target } from '../../store/store';
import type { Leaf } from '../../store/tree-write';
import type { Context } from '../context';
import { linkRequests } from './test-links';
import { commandEnv, runCaptured } from './test-run';
import { holdingTree, syncTestTree, testTreeName } from './test-tree';

/** A run rule whose command failed: the rule, and what the agent (or the staged record) reads of it. */
export interface RunFailure {
  rule: PolicyRule;
  onFail: RunSpec['onFail'];
  text: string;
}

export interface ProposedWrite {
  target: Target;
  bytes: Buffer;
  /** git's mode of the file written: its own when it exists */
  mode: string;
  session: string | undefined;
}

/**
 * A write of `bytes` (else of the file as it is, for `fettle policy check --run`) to `target`, in the file's mode;
 * null when there is neither.
 */
export const writeOf = async (
  target: Target,
  bytes: Buffer | null,
  session: string | undefined,
): Promise<ProposedWrite | null> => {
  const current = await readDisk(target.realPath).catch(() => null);
  const next = bytes ?? current?.bytes;
  if (!next) return null;
  return { target, bytes: next, mode: current ? gitModeOf(current.mode) : '100644', session };
};

/**
 * Runs the rules' commands, in turn, in the tree the write would produce: null when every one passes; else the
 * failures, up to the first of a rule that blocks (the rest are not run). A write outside any repository has no
 * such tree: the rules do not apply to it.
 */
export const runOnProposed = async (
  ctx: Context,
  w: ProposedWrite,
  rules: readonly PolicyRule[],
  files: Record<PolicyRule['layer'], string>,
): Promise<RunFailure[] | null> => {
  const { store, realPath, treePath } = w.target;
  if (rules.length === 0 || store.kind !== 'repo') return null;
  const source = realPath.slice(0, realPath.length - treePath.length - 1);
  const name = testTreeName(w.session);
  const longest = Math.max(...rules.map((r) => r.run?.timeoutSeconds ?? 0));
  const o = { links: linkRequests(ctx.env, []), progress: noProgress, waitMs: longest * 1000 };
  return holdingTree(store, name, o, async () => {
    const [oid = ''] = await writeBlobs(store, [w.bytes]);
    const leaves = new Map<string, Leaf>([[treePath, { mode: w.mode, oid }]]);
    const tree = await syncTestTree(ctx, store, { name, session: w.session, source, leaves }, o);
    const env = await commandEnv(store, ctx.env);
    const failures: RunFailure[] = [];
    for (const rule of rules) {
      const spec = rule.run as RunSpec;
      const run = runInvocation(spec, treePath);
      const outcome = await runCaptured(run, tree.dir, env, { timeoutMs: spec.timeoutSeconds * 1000 });
      if (passed(outcome)) continue;
      const command = invocationText(run);
      const { onFail, timeoutSeconds } = spec;
      const text = failureText({ rule: ruleText(rule, files[rule.layer]), command, outcome, timeoutSeconds });
      failures.push({ rule, onFail, text });
      if (onFail === 'block') break;
    }
    return failures.length > 0 ? failures : null;
  });
};
