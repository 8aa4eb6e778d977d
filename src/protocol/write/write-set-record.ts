// Recording a set of files decided by write-set.ts. Small: every touched file's previous bytes as one changeset,
// in one transaction per repository, each file's record linked to the call by a link of its own
// (`<tool use>#<n>`) for its after step (write-set-after.ts). Large: every file staged as one changeset, in one
// transaction, and nothing written; a removed file is a proposal without it.
import type { Decision } from '../../core/decide';
import type { RunCheck } from '../../core/messages';
import { FettleError } from '../../errors';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import type { Store, Target } from '../../store/store';
import { digest, rememberWrite } from '../record/call-links';
import type { Context, Origin } from '../context';
import { newId } from '../ids';
import type { Plan } from '../decide/plan';
import { fieldsOf, type Fields } from '../record/record';
import { recordMany, type Recorded } from '../record/record-many';
import { housekeep } from '../retention/housekeeping';

/** One file of a decided set: where it is, its bytes now and after, and its record's fields. */
export interface SetFile {
  target: Target;
  old: DiskFile | null;
  next: Buffer | null;
  decision: Decision;
  plan?: Plan | undefined;
  /** what a `run` rule's failed command said of the set, for a staged file's record */
  note?: string | undefined;
}

export interface SetStaged {
  kind: 'staged';
  store: Store;
  changeset: string;
  files: { id: string; file: SetFile }[];
  /** the whole set's size, summed over the files it changes */
  decision: Extract<Decision, { tier: 'staged' }>;
  /** a file that is large on its own, when that, not the sum, staged the set */
  alone?: { path: string; decision: Extract<Decision, { tier: 'staged' }> } | undefined;
  review: 'model' | 'person';
  /** what the failed commands of `run` rules that stage said; `staged`: they alone staged the set, by `rule` */
  check?: (RunCheck & { rule: string }) | undefined;
}

/** The link of the `n`th file a call touches. */
export const setLink = (toolUse: string, n: number): string => `${toolUse}#${n}`;

const changedOnly = (files: SetFile[]) => files.filter((f) => f.decision.tier !== 'noop');

/** Every touched file's previous bytes as one changeset, each linked to the call for its after step. */
export interface SetRecord {
  targets: Target[];
  olds: (DiskFile | null)[];
  /** fields every record gets (a note, the reason) */
  extra: Partial<Fields>;
  origin: Origin;
  /** each file's plan, when the set's effect is known */
  planned?: SetFile[] | undefined;
}

export const recordSet = async (ctx: Context, { targets, olds, extra, origin, planned }: SetRecord): Promise<void> => {
  const changeset = newId();
  const groups = new Map<string, { store: Store; n: number[] }>();
  targets.forEach((t, n) => {
    if (planned && planned[n]?.decision.tier === 'noop') return;
    // A file that did not exist and will not (an unsure call's new file) has nothing to keep.
    if (!planned && olds[n] === null) return;
    const group = groups.get(t.store.commonDir) ?? { store: t.store, n: [] };
    group.n.push(n);
    groups.set(t.store.commonDir, group);
  });
  for (const { store, n } of groups.values()) {
    const items = n.map((i) => ({
      old: olds[i] as DiskFile | null,
      fields: setFields(targets[i] as Target, planned?.[i], origin, { changeset, ...extra }),
    }));
    const records = await recordMany(ctx, store, items);
    if (!origin.toolUse) continue;
    for (const [k, record] of records.entries()) {
      const i = n[k] as number;
      const next = planned?.[i]?.next;
      const expect = next === undefined ? {} : { expect: digest(next ?? Buffer.alloc(0)) };
      const decision = planned?.[i]?.decision;
      await rememberWrite(store, setLink(origin.toolUse, i), {
        ...record,
        file: (targets[i] as Target).realPath,
        modified: decision && decision.tier !== 'noop' ? decision.modified : undefined,
        // A removal is predicted as no file: the after step sees none and keeps the counts.
        ...(next === null ? { expect: 'removed' } : expect),
      });
    }
  }
};

const setFields = (target: Target, file: SetFile | undefined, origin: Origin, extra: Partial<Fields>): Fields => {
  if (file?.plan) return { ...fieldsOf(file.plan, origin), tier: 'direct', ...extra };
  const d = file?.decision;
  const counted = d && d.tier !== 'noop' ? { added: d.added, removed: d.removed } : {};
  return {
    tier: 'direct',
    path: target.treePath,
    file: target.realPath,
    reason: file ? 'small' : 'unsure',
    ...counted,
    ...origin,
    ...extra,
  };
};

/** A staged file's record fields: its plan's, or for a removal (no plan), every line it had as removed. */
const stagedFields = (f: SetFile, origin: Origin): Fields => {
  if (f.plan) return fieldsOf(f.plan, origin);
  const d = f.decision;
  const counts = d.tier === 'noop' ? {} : { added: d.added, removed: d.removed };
  return { tier: 'staged', path: f.target.treePath, file: f.target.realPath, reason: 'deleted', ...counts, ...origin };
};

/** Every file of the set staged as one changeset, in one transaction: nothing is written. */
export const stageSet = async (
  ctx: Context,
  files: SetFile[],
  origin: Origin,
  decision: Extract<Decision, { tier: 'staged' }>,
  review: 'model' | 'person',
): Promise<SetStaged> => {
  const changed = changedOnly(files);
  const [first] = changed;
  if (!first) throw new FettleError('E_INTERNAL', 'a staged set with no changed file');
  const { store } = first.target;
  const changeset = newId();
  const items = changed.map((f) => ({
    old: f.old,
    fields: { ...stagedFields(f, origin), tier: 'staged' as const, changeset, ...(f.note ? { note: f.note } : {}) },
    // null: a proposal without the file, which confirm removes
    next: f.next === null ? null : { bytes: f.next, mode: f.old ? gitModeOf(f.old.mode) : '100644' },
  }));
  const records = await recordMany(ctx, store, items);
  await housekeep(ctx, store);
  return {
    kind: 'staged',
    store,
    changeset,
    files: changed.map((file, n) => ({ id: (records[n] as Recorded).id, file })),
    decision,
    review,
  };
};
