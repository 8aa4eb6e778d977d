// Several files written as one changeset, by fettle itself (`fettle write --from <dir> <file>...`; later, the
// files one shell command or one patch changed). The unit is the set: if any file is a large change, every
// changed file is staged, one proposal each, under one changeset id and in one transaction, so the set is
// reviewed, confirmed or discarded as one. Otherwise all are written directly, as one operation: recorded first
// (one transaction), then replaced through the journaled applier, then the landed bytes recorded. Policy rules
// apply per file: a `block` refuses the set, a `stage` stages it, a `thresholds` rule decides its file, and a file
// a rule `ignore`s is left out of the set and written as it is, without a record. The `run` rules of the files
// that change run once on the tree the whole set would produce (run-rules.ts): a blocking failure refuses the set,
// a staging one stages it.
import type { Decision } from '../../core/decide';
import { type RunCheck, type SetFile, summarize } from '../../core/messages';
import { type PolicyRule, ruleDecider, ruleText } from '../../core/policy';
import { FettleError } from '../../errors';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gitModeOf, readDisk, replaceFile } from '../../io/atomic-write';
import { withLocks } from '../../io/lock';
import { locateTarget } from '../../store/locate';
import { changeRef } from '../../store/refs';
import type { Store, Target } from '../../store/store';
import { hashObject } from '../../store/tree-codec';
import { applyFiles, type Replacement } from '../journal/apply-files';
import type { Context, Origin } from '../context';
import { newId } from '../ids';
import { fileLockPath } from '../paths';
import { planWrite, type Plan } from '../decide/plan';
import { type PathPolicy, policyFor } from '../decide/policy';
import { recoverQuietly } from '../journal/recover';
import { fieldsOf } from '../record/record';
import { recordAfters, recordMany, type Recorded } from '../record/record-many';
import { housekeep } from '../retention/housekeeping';
import { deciderOf, ruledOut, type RuledOut } from './before';
import { blockedError } from './write-bytes';
import { runBlockedError, runSetRules, type SetMember } from './run-rules';

export interface ManyWritten {
  kind: 'noop' | 'staged' | 'written';
  store: Store;
  /** the changeset of the changes made (none for a no-op) */
  changeset: string | undefined;
  /** each file that changed, in the order given */
  files: { id: string; target: Target; decision: Exclude<Decision, { tier: 'noop' }> }[];
  /** files a policy rule ignores: written as given, not recorded (with how messages name the rule) */
  ignored: { target: Target; ruleText: string }[];
  /** what the failed commands of `run` rules that stage said; `staged`: they alone staged the set */
  check?: (RunCheck & { rule: string }) | undefined;
}

/** The files of a changeset as the texts list them (core/messages.ts renderSetStaged, renderSetWritten). */
export const setFiles = (result: ManyWritten): SetFile[] =>
  result.files.map((f) => ({
    id: f.id,
    path: f.target.treePath,
    summary: summarize(f.decision.reason, f.decision.added, f.decision.removed),
    large: f.decision.tier === 'staged',
  }));

const sameStore = (targets: Target[]): Store => {
  const [first] = targets;
  if (!first) throw new FettleError('E_USAGE', 'Name at least one file to write.');
  const other = targets.find((t) => t.store.commonDir !== first.store.commonDir);
  if (other)
    throw new FettleError(
      'E_USAGE',
      `${other.realPath} is in another repository than ${first.realPath}; a changeset lives in one repository.`,
      { hint: 'Write the files of each repository with a command of its own.' },
    );
  return first.store;
};

const changed = (plans: Plan[]) =>
  plans.flatMap((p) => (p.decision.tier === 'noop' ? [] : [{ plan: p, decision: p.decision }]));

/** Writes `files` (path, new bytes) as one changeset: staged together, or written together (see the file comment). */
export const writeMany = async (
  ctx: Context,
  files: { file: string; bytes: Buffer }[],
  origin: Origin,
): Promise<ManyWritten> => {
  const targets: Target[] = [];
  for (const f of files) targets.push(await locateTarget(f.file, ctx.cwd, ctx.env, ctx.config.dataDir));
  const store = sameStore(targets);
  await recoverQuietly(ctx, store);
  if (new Set(targets.map((t) => t.treePath)).size !== targets.length)
    throw new FettleError('E_USAGE', 'A file is named twice; each file of a changeset is written once.');
  const policies = targets.map((t) => policyFor(ctx, t));
  const ruled = policies.map((p, n) => ruledOut(p, targets[n] as Target));
  for (const r of ruled) if (r?.kind === 'blocked') throw blockedError(r.target.treePath, r);
  const changeset = newId();
  const result = await withLocks(
    targets.map((t) => fileLockPath(store, t.treePath)),
    async (): Promise<ManyWritten> => {
      const { plans, members, ignoring } = await planAll(ctx, targets, files, { ruled, policies });
      const todo = changed(plans);
      const checked = todo.length === 0 ? null : await checkSet(ctx, members, origin.session);
      const ignored: ManyWritten['ignored'] = [];
      for (const i of ignoring)
        if (await writeUnrecorded(i.target, i.bytes)) ignored.push({ target: i.target, ruleText: i.ruleText });
      if (todo.length === 0) return { kind: 'noop', store, changeset: undefined, files: [], ignored };
      const byRun = checked !== null && todo.every((t) => t.decision.tier !== 'staged');
      const staged = byRun || todo.some((t) => t.decision.tier === 'staged');
      const items = todo.map(({ plan }) => {
        const fields = {
          ...fieldsOf(plan, origin),
          changeset,
          decidedBy: byRun && checked ? ruleDecider(checked.rule) : deciderOf(plan),
          ...(staged ? { tier: 'staged' as const } : {}),
          ...(checked ? { note: checked.text } : {}),
        };
        const next = staged ? { bytes: plan.next, mode: plan.old ? gitModeOf(plan.old.mode) : '100644' } : undefined;
        return { old: plan.old, fields, next };
      });
      const records = await recordMany(ctx, store, items);
      const made = todo.map((t, n) => ({
        id: (records[n] as Recorded).id,
        target: t.plan.target,
        decision: t.decision,
      }));
      if (!staged)
        await writeRecorded(
          ctx,
          store,
          todo.map((t) => t.plan),
          records,
        );
      const check = checked && { text: checked.text, staged: byRun, rule: ruleText(checked.rule, checked.file) };
      return { kind: staged ? 'staged' : 'written', store, changeset, files: made, ignored, check: check ?? undefined };
    },
  );
  await housekeep(ctx, store);
  return result;
};

/** Each file's plan (none for one a rule ignores), and each file as the set's run rules see it. */
const planAll = async (
  ctx: Context,
  targets: Target[],
  files: { bytes: Buffer }[],
  p: { ruled: (RuledOut | null)[]; policies: PathPolicy[] },
) => {
  const plans: Plan[] = [];
  const members: SetMember[] = [];
  const ignoring: { target: Target; bytes: Buffer; ruleText: string }[] = [];
  for (const [n, target] of targets.entries()) {
    const bytes = (files[n] as { bytes: Buffer }).bytes;
    const [rule, policy] = [p.ruled[n], p.policies[n] as PathPolicy];
    const old = await readDisk(target.realPath);
    const plan = rule ? undefined : await planWrite(ctx, target, old, bytes, { policy });
    const mode = old ? gitModeOf(old.mode) : '100644';
    const changes = plan !== undefined && plan.decision.tier !== 'noop';
    members.push({ target, next: bytes, mode, policy, changes });
    if (rule) ignoring.push({ target, bytes, ruleText: rule.ruleText });
    if (plan) plans.push(plan);
  }
  return { plans, members, ignoring };
};

/**
 * The set's run rules on the tree the whole set would produce (ignored files at their bytes too): null when every
 * command passes; a blocking failure refuses the set, nothing written; a staging one, its rule and output.
 */
const checkSet = async (
  ctx: Context,
  members: SetMember[],
  session: string | undefined,
): Promise<{ rule: PolicyRule; text: string; file: string } | null> => {
  const v = await runSetRules(ctx, members, session);
  if (v.kind === 'pass') return null;
  const paths = members.flatMap((m) => (m.changes ? [m.target.treePath] : [])).join(', ');
  if (v.kind === 'block') throw runBlockedError(paths, v.text, v.feedback);
  return { rule: v.rule, text: v.text, file: v.files[v.rule.layer] };
};

/** A file a policy rule ignores, written as fettle would without one: atomically, over what it read. */
const writeUnrecorded = async (t: Target, bytes: Buffer): Promise<boolean> => {
  const now = await readDisk(t.realPath);
  if (now?.bytes.equals(bytes)) return false;
  await mkdir(dirname(t.realPath), { recursive: true });
  await replaceFile(t.realPath, bytes, { createOnly: now === null, expect: now?.bytes });
  return true;
};

/** The recorded files replaced as one journaled operation; their `after` records are its commit. */
const writeRecorded = async (ctx: Context, store: Store, plans: Plan[], records: Recorded[]): Promise<void> => {
  const blob = (bytes: Buffer) => hashObject('blob', bytes, store.objectFormat);
  const files = plans.map(
    (p, n): Replacement => ({
      id: (records[n] as Recorded).id,
      file: p.target.realPath,
      path: p.target.treePath,
      from: p.old,
      fromOid: p.old ? blob(p.old.bytes) : null,
      to: { bytes: p.next, mode: p.old?.mode ?? 0o644 },
      toOid: blob(p.next),
    }),
  );
  const moves = records.map((r) => ({ ref: changeRef(r.id), old: r.tip }));
  await applyFiles(store, { op: 'write', files, refs: moves, drop: moves }, async () => {
    const landed = await Promise.all(plans.map((p) => readDisk(p.target.realPath)));
    await recordAfters(
      ctx,
      store,
      records.map((previous, n) => ({ previous, landed: landed[n] ?? null })),
    );
  });
};
