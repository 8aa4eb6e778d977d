// `fettle apply <contract>`: the contract executor. It applies exactly the contract's edits (core/anchors.ts, pure)
// to the tree `fettle confirm` would produce for the files it names, and stages the result as one changeset for
// review, confirm or discard, each change recording the contract's hash and path.
//
// "The tree confirm would produce", for a contract, is the working tree as it is: confirm writes each proposal over
// the bytes it was staged on, so those bytes must be the disk's. A file the contract names that has a staged
// change still pending is refused rather than built on: confirming both would merge one against a base its
// reviewer never saw (the rule confirm applies to two changes of one path). Direct writes are on disk already.
//
// Nothing is staged unless every edit applies: out-of-scope edits, paths a policy rule blocks, anchors matching 0
// or 2+ times fail the whole contract before any object is written. With `test`, the changeset's objects are
// written, its checks run in the test tree (test-tree.ts) against them, and only then are its refs created, with
// the outcome in every change (Fettle-Checks and a note): no window where it is pending without it.
import { isAbsolute, join, relative, sep } from 'node:path';
import { type EditFailure, failureText, planContract, type FileResult } from '../../core/anchors';
import { missingContext, type MissingContext } from '../../core/contract-report';
import { plural } from '../../core/plural';
import { contractFiles, outOfScope } from '../../core/contract';
import { countChanges } from '../../core/diff';
import { fileDiff } from '../../core/file-diff';
import type { RecordFields } from '../../core/record-message';
import { FettleError } from '../../errors';
import { isNotAFile, readDisk, type DiskFile } from '../../io/atomic-write';
import { withLocks } from '../../io/lock';
import { noProgress, type Progress } from '../../io/progress';
import { locateTarget } from '../../store/locate';
import type { Store, Target } from '../../store/store';
import { openStore } from '../select/open';
import { listChanges } from '../changes';
import type { Context } from '../context';
import { readContract, type ContractFile } from '../contract-file';
import { newId } from '../ids';
import { fileLockPath } from '../paths';
import { policyFor } from '../decide/policy';
import { recordMany } from '../record/record-many';
import { recordFailure, recordingFailure } from '../record/failed';
import { itemsOf, type PlannedFile, unpublished } from './contract-records';
import { runChecks, type CheckRun } from './contract-checks';
import { contractRunRules } from './contract-run-rules';
import type { LinkRequest } from '../review/test-links';
import { ruledOut } from '../write/before';

export interface AppliedFile {
  path: string;
  file: string;
  op: 'create' | 'delete' | 'modify';
  added?: number | undefined;
  removed?: number | undefined;
  /** the change staged for it (none for a dry run) */
  id?: string | undefined;
}

export interface Applied {
  /** `insufficient`: the contract asked for a report (`"fallback": "report"`) and some edit cannot be placed */
  kind: 'staged' | 'dry-run' | 'noop' | 'insufficient';
  store: Store;
  contract: ContractFile;
  changeset?: string | undefined;
  files: AppliedFile[];
  /** the diff of every file, as `git diff` prints it */
  diff: string;
  checks?: CheckRun | undefined;
  /** `insufficient`: what each failed edit lacked, and what became of the failure's record */
  missing?: MissingContext[] | undefined;
  /** the same, in the words of the refusal a person gets */
  reasons?: string[] | undefined;
  recorded?: string | undefined;
}

/**
 * What `fettle apply` and any other edge (an MCP tool) pass: `applyContract` is the whole of the command but its
 * printing. The checks' own output goes to the process's stderr, never its stdout.
 */
export interface ApplyOptions {
  dryRun?: boolean | undefined;
  test?: boolean | undefined;
  links?: readonly LinkRequest[] | undefined;
  /** the test tree's progress with --test (default: none) */
  progress?: Progress | undefined;
  /** who asks, when not `fettle apply` in a shell (an MCP tool: its name and the agent) */
  origin?: Pick<RecordFields, 'tool' | 'agent'> | undefined;
}

const fail = (c: ContractFile, what: string, details: string[]): FettleError =>
  new FettleError('E_CONTRACT', `The contract ${c.source} cannot be applied as written: ${what}; nothing was staged.`, {
    hint: `${details.join('\n')}\nFix the contract, then see what it does with \`fettle apply --dry-run ${c.source}\`.`,
  });

/** Each file the contract names, located in the repository: its own path, no symlink leading elsewhere. */
const targetsOf = async (ctx: Context, store: Store, c: ContractFile): Promise<Target[]> => {
  const targets: Target[] = [];
  for (const path of contractFiles(c.contract)) {
    const t = await locateTarget(join(store.workTree, ...path.split('/')), ctx.cwd, ctx.env, ctx.config.dataDir);
    if (t.store.commonDir !== store.commonDir || t.treePath !== path)
      throw fail(c, `${path} is a symbolic link (to ${t.realPath})`, [
        `A contract names files by their own paths: name ${t.treePath} instead.`,
      ]);
    targets.push(t);
  }
  return targets;
};

/** The contract's own checks before anything is read: scope, policy blocks, staged changes pending on its files. */
const refuseEarly = async (ctx: Context, store: Store, c: ContractFile, targets: Target[]): Promise<void> => {
  const outside = outOfScope(c.contract);
  if (outside.length > 0)
    throw fail(
      c,
      `${outside.length === 1 ? 'an edit is' : `${outside.length} edits are`} outside its scope (${c.contract.scope.join(', ')})`,
      outside.map(([n, file]) => `edit ${n + 1} (${c.contract.edits[n]?.op} ${file}) is outside the scope`),
    );
  const blocked = targets.flatMap((t) => {
    const r = ruledOut(policyFor(ctx, t), t);
    return r?.kind === 'blocked' ? [`${t.treePath}: policy rule ${r.ruleText} blocks it: ${r.rule.message ?? ''}`] : [];
  });
  if (blocked.length > 0)
    throw new FettleError(
      'E_BLOCKED',
      `The contract ${c.source} edits paths a policy rule blocks; nothing was staged.`,
      {
        hint: blocked.join('\n'),
      },
    );
  const paths = new Set(targets.map((t) => t.treePath));
  const open = (await listChanges(ctx, store)).filter(
    (ch) =>
      paths.has(ch.fields.path) && (ch.state === 'pending' || ch.state === 'expired') && ch.fields.tier === 'staged',
  );
  if (open.length > 0)
    throw fail(
      c,
      `${open.length === 1 ? 'a file it edits has' : 'files it edits have'} a staged change not yet decided`,
      open.map(
        (ch) =>
          `${ch.fields.path} has staged change ${ch.id}: \`fettle confirm ${ch.id}\` or \`fettle discard ${ch.id}\` first.`,
      ),
    );
};

const opOf = (r: FileResult): AppliedFile['op'] =>
  r.before === null ? 'create' : r.after === null ? 'delete' : 'modify';

/**
 * The contract's edits applied, in memory, to each file as it is on disk now; one edit that fails fails them all:
 * thrown, or with `"fallback": "report"` given back as data (core/contract-report.ts).
 */
const planEdits = async (c: ContractFile, targets: Target[]): Promise<PlannedFile[] | { failures: EditFailure[] }> => {
  const disks = new Map<string, DiskFile | null>();
  for (const t of targets) {
    const disk = await readDisk(t.realPath).catch((error: unknown) => {
      if (isNotAFile(error))
        throw fail(c, `${t.treePath} is not a regular file`, ['A contract edits regular files only.']);
      throw error;
    });
    disks.set(t.treePath, disk);
  }
  const plan = planContract(c.contract, new Map([...disks].map(([p, d]) => [p, d?.bytes ?? null])));
  const n = plan.failures.length;
  if (n > 0 && c.contract.fallback === 'report') return { failures: plan.failures };
  if (n > 0)
    throw fail(
      c,
      `${n === 1 ? 'an edit fails' : `${n} edits fail`}`,
      plan.failures.map((f) => failureText(f, c.contract)),
    );
  const byPath = new Map(targets.map((t) => [t.treePath, t]));
  return plan.changed.map((result) => ({
    result,
    target: byPath.get(result.file) as Target,
    disk: disks.get(result.file) ?? null,
  }));
};

export const applyContract = async (ctx: Context, given: string, o: ApplyOptions): Promise<Applied> => {
  const c = await readContract(ctx.cwd, given);
  const store = await openStore(ctx);
  if (store.kind !== 'repo')
    throw new FettleError('E_USAGE', `fettle apply works in a git repository, and ${ctx.cwd} is in none.`, {
      hint: 'Run it in the repository the contract is for, or name it with -C <dir>.',
    });
  if (o.test && c.contract.checks.length === 0)
    throw new FettleError('E_USAGE', `The contract ${c.source} has no "checks" for --test to run.`, {
      hint: 'Add "checks": [["npm", "test"]] (each a command as a list of its arguments), or leave out --test.',
    });
  // A dry run tries nothing: its failure is the answer asked for, not an attempt that failed.
  const inTree = relative(store.workTree, c.path);
  const treePath = inTree.startsWith('..') || isAbsolute(inTree) ? undefined : inTree.split(sep).join('/');
  const attempt = o.dryRun
    ? undefined
    : { attempt: 'apply' as const, contract: { path: c.path, treePath, hash: c.hash } };
  const applied = await recordingFailure(ctx, store, attempt, () => applyOpen(ctx, store, c, o));
  // A report is an answer, not an error, and still an attempt that failed: recorded as one.
  if (applied.kind !== 'insufficient' || !attempt) return applied;
  const reasons = applied.reasons ?? [];
  const reason = fail(c, `${plural(reasons.length, 'edit')} cannot be placed (a report was asked for)`, reasons);
  return { ...applied, recorded: await recordFailure(ctx, store, attempt, reason) };
};

const applyOpen = async (ctx: Context, store: Store, c: ContractFile, o: ApplyOptions): Promise<Applied> => {
  const targets = await targetsOf(ctx, store, c);
  await refuseEarly(ctx, store, c, targets);
  const changeset = newId();
  const ids = contractFiles(c.contract).map(() => newId());
  const { planned, records, failures, ran } = await withLocks(
    targets.map((t) => fileLockPath(store, t.treePath)),
    async () => {
      const changed = await planEdits(c, targets);
      if ('failures' in changed) return { planned: [], records: undefined, failures: changed.failures };
      if (o.dryRun || changed.length === 0) return { planned: changed, records: undefined };
      const ran = await contractRunRules(ctx, changed, ctx.env.FETTLE_SESSION || undefined);
      // Staged under the locks, over the bytes just read; with checks to run, only once they have run (below).
      if (o.test) return { planned: changed, records: undefined, ran };
      const extra = { changeset, ...o.origin, note: ran };
      return {
        planned: changed,
        records: await recordMany(ctx, store, await itemsOf(ctx, c, changed, extra), { ids }),
      };
    },
  );
  const files: AppliedFile[] = planned.map(({ result, target }) => ({
    path: target.treePath,
    file: target.realPath,
    op: opOf(result),
    ...countChanges(result.before, result.after),
  }));
  const diff = planned.map((p) => fileDiff(p.target.treePath, p.result.before, p.result.after)).join('\n');
  if (failures) {
    const reasons = failures.map((f) => failureText(f, c.contract));
    return {
      kind: 'insufficient',
      store,
      contract: c,
      files,
      diff,
      missing: missingContext(c.contract, failures),
      reasons,
    };
  }
  if (planned.length === 0) return { kind: 'noop', store, contract: c, files, diff };
  if (o.dryRun && !o.test) return { kind: 'dry-run', store, contract: c, files, diff };
  let checks: CheckRun | undefined;
  let made = records;
  if (!made) {
    const items = await itemsOf(ctx, c, planned, { changeset, ...o.origin });
    const tested = await recordMany(ctx, store, items, { ids, publish: false });
    checks = await runChecks(ctx, store, unpublished(ctx, tested), c.contract.checks, {
      links: o.links ?? [],
      progress: o.progress ?? noProgress,
    });
    if (o.dryRun) return { kind: 'dry-run', store, contract: c, files, diff, checks };
    const note = [ran, checks.note].filter(Boolean).join('\n\n') || undefined;
    const outcome = { changeset, checks: checks.outcome, note, ...o.origin };
    made = await recordMany(ctx, store, await itemsOf(ctx, c, planned, outcome), { ids });
  }
  const staged = files.map((f, n) => ({ ...f, id: made?.[n]?.id }));
  return { kind: 'staged', store, contract: c, changeset, files: staged, diff, checks };
};
