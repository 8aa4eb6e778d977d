// Several files written as one changeset, by fettle itself (`fettle write --from <dir> <file>...`; later, the
// files one shell command or one patch changed). The unit is the set: if any file is a large change, every
// changed file is staged, one proposal each, under one changeset id and in one transaction, so the set is
// reviewed, confirmed or discarded as one. Otherwise all are written directly, as one operation: recorded first
// (one transaction), then replaced through the journaled applier, then the landed bytes recorded. Policy rules
// apply per file: a `block` refuses the set, a `stage` stages it, a `thresholds` rule decides its file, and a file
// a rule `ignore`s is left out of the set and written as it is, without a record.
import type { Decision } from '../../core/decide';
import { type SetFile, summarize } from '../../core/messages';
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
import { policyFor } from '../decide/policy';
import { recoverQuietly } from '../journal/recover';
import { fieldsOf } from '../record/record';
import { recordAfters, recordMany, type Recorded } from '../record/record-many';
import { housekeep } from '../retention/housekeeping';
import { deciderOf, ruledOut } from './before';
import { blockedError } from './write-bytes';

export interface ManyWritten {
  kind: 'noop' | 'staged' | 'written';
  store: Store;
  /** the changeset of the changes made (none for a no-op) */
  changeset: string | undefined;
  /** each file that changed, in the order given */
  files: { id: string; target: Target; decision: Exclude<Decision, { tier: 'noop' }> }[];
  /** files a policy rule ignores: written as given, not recorded (with how messages name the rule) */
  ignored: { target: Target; ruleText: string }[];
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
      const plans: Plan[] = [];
      const ignored: ManyWritten['ignored'] = [];
      for (const [n, t] of targets.entries()) {
        const bytes = (files[n] as { bytes: Buffer }).bytes;
        const rule = ruled[n];
        if (rule) {
          if (await writeUnrecorded(t, bytes)) ignored.push({ target: t, ruleText: rule.ruleText });
        } else plans.push(await planWrite(ctx, t, await readDisk(t.realPath), bytes, { policy: policies[n] }));
      }
      const todo = changed(plans);
      if (todo.length === 0) return { kind: 'noop', store, changeset: undefined, files: [], ignored };
      const staged = todo.some((t) => t.decision.tier === 'staged');
      const items = todo.map(({ plan }) => {
        const fields = {
          ...fieldsOf(plan, origin),
          changeset,
          decidedBy: deciderOf(plan),
          ...(staged ? { tier: 'staged' as const } : {}),
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
      return { kind: staged ? 'staged' : 'written', store, changeset, files: made, ignored };
    },
  );
  await housekeep(ctx, store);
  return result;
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
