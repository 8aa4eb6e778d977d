// The tree a write would produce, for a policy `run` rule (core/policy-run.ts): the agent session's test tree
// (test-tree.ts, the one `fettle test` uses) brought to the user's work tree as it is now (HEAD plus everything
// `git status` lists there) with the proposed bytes at the path written, and each rule's command run at its top.
// The user's work tree, index and HEAD are only read. The tree is kept for the next write or `fettle test` (which
// moves it to what it needs, writing only the paths that differ) and removed by `fettle gc` once idle.
import { failureText, invocationsFor, invocationText, passed } from '../../core/policy-run';
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

/** One file of a set as the write would leave it; `bytes` null: the write removes it. */
export interface ProposedFile {
  target: Target;
  bytes: Buffer | null;
  mode: string;
}

/** A rule to run on a set, and the paths of the set it matches: a command with `{file}` runs once for each. */
export interface RuleRun {
  rule: PolicyRule;
  paths: string[];
}

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
  const set = { files: [{ target: w.target, bytes: w.bytes, mode: w.mode }], session: w.session };
  return runOnSet(
    ctx,
    set,
    rules.map((rule) => ({ rule, paths: [w.target.treePath] })),
    files,
  );
};

/**
 * `runOnProposed` for a set of files of one work tree (the first file's; the others are left as they are): every
 * file at its proposed bytes, a removed one gone, each rule run once, or once per path for a command with `{file}`.
 */
export const runOnSet = async (
  ctx: Context,
  w: { files: ProposedFile[]; session: string | undefined },
  rules: readonly RuleRun[],
  files: Record<PolicyRule['layer'], string>,
): Promise<RunFailure[] | null> => {
  const [first] = w.files;
  if (rules.length === 0 || !first || first.target.store.kind !== 'repo') return null;
  const { store } = first.target;
  const source = workTreeOf(first.target);
  const mine = w.files.filter((f) => f.target.store.commonDir === store.commonDir && workTreeOf(f.target) === source);
  const name = testTreeName(w.session);
  const longest = Math.max(...rules.map((r) => r.rule.run?.timeoutSeconds ?? 0));
  const o = { links: linkRequests(ctx.env, []), progress: noProgress, waitMs: longest * 1000 };
  return holdingTree(store, name, o, async () => {
    const oids = await writeBlobs(
      store,
      mine.flatMap((f) => (f.bytes ? [f.bytes] : [])),
    );
    const leaves = new Map<string, Leaf>();
    for (const f of mine) leaves.set(f.target.treePath, f.bytes ? { mode: f.mode, oid: oids.shift() ?? '' } : null);
    const tree = await syncTestTree(ctx, store, { name, session: w.session, source, leaves }, o);
    const env = await commandEnv(store, ctx.env);
    const failures: RunFailure[] = [];
    for (const { rule, paths } of rules) {
      const spec = rule.run as RunSpec;
      for (const run of invocationsFor(spec, paths)) {
        const outcome = await runCaptured(run, tree.dir, env, { timeoutMs: spec.timeoutSeconds * 1000 });
        if (passed(outcome)) continue;
        const command = invocationText(run);
        const { onFail, timeoutSeconds } = spec;
        const text = failureText({ rule: ruleText(rule, files[rule.layer]), command, outcome, timeoutSeconds });
        failures.push({ rule, onFail, text });
        if (onFail === 'block') return failures;
      }
    }
    return failures.length > 0 ? failures : null;
  });
};

/** The work tree a file is in: its real path less its path in the tree. */
const workTreeOf = (t: Target): string => t.realPath.slice(0, t.realPath.length - t.treePath.length - 1);
