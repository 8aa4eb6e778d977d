// Planning a rollback of one or many changes before anything is touched, file by file. A file's changes that
// follow each other (each one's previous bytes are what the one before it wrote, which the blob ids show without
// reading any content) are undone at once: the disk against what the newest wrote, the bytes the oldest replaced
// put back, so a thousand changes cost two versions per file, not a thousand. Changes with another writer's in
// between are walked newest first over a virtual copy of the file. Nothing here writes; a file that cannot be
// restored is a refusal, reported with the others, and then nothing is applied. Which changes form a run is
// rollback-runs.ts; one change undone over one file is rollback-step.ts.
import { sameBytes } from '../../core/content';
import { FettleError } from '../../errors';
import type { DiskFile } from '../../io/atomic-write';
import { readFiles, type FileEntry } from '../../store/object-read';
import type { Store, Target } from '../../store/store';
import { newestFirst, type Change } from '../changes';
import { versionsOf, type Versions } from '../chains';
import { diskPathOf } from '../paths';
import { asRun, consecutive, type Ids, idsOf, type Member } from './rollback-runs';
import { type Claimed, planStep, readForPlan, type Step } from './rollback-step';
import type { WhoWrote } from './later-writers';

/** Who wrote a file since the changes undone, for its merges and refusals (later-writers.ts). */
export type WhoWroteOf = (path: string) => WhoWrote;

export interface FilePlan {
  target: Target;
  /** what is on disk now */
  original: DiskFile | null;
  /** what the rollback leaves on disk */
  final: DiskFile | null;
  steps: Step[];
  /** changes whose previous bytes the file already holds: nothing to do */
  skipped: Change[];
}

/**
 * Which change to undo next. Changes recorded in the same second have no order in time, so: the one whose
 * written bytes the file holds now; else one no other change was written on top of; else the newest.
 */
export const pickNext = (remaining: Change[], current: DiskFile | null, versions: Map<string, Versions>): number => {
  const written = (c: Change) => versions.get(c.id)?.written;
  const holds = remaining.findIndex((c) => written(c) !== undefined && sameBytes(current?.bytes, written(c)?.bytes));
  if (holds >= 0) return holds;
  const builtOn = (c: Change) =>
    written(c) !== undefined &&
    remaining.some((other) => other !== c && sameBytes(versions.get(other.id)?.previous?.bytes, written(c)?.bytes));
  const top = remaining.findIndex((c) => !builtOn(c));
  return top >= 0 ? top : 0;
};

/** Changes to one file, newest first, over a virtual copy of it. */
const planFile = async (
  store: Store,
  changes: Change[],
  versions: Map<string, Versions>,
  o: { force: boolean; who?: WhoWrote | undefined; claimed?: Claimed | undefined },
): Promise<FilePlan> => {
  const first = changes[0] as Change;
  const target: Target = { store, realPath: await diskPathOf(store, first.fields), treePath: first.fields.path };
  const original = await readForPlan(target.realPath, first.id);
  const plan: FilePlan = { target, original, final: original, steps: [], skipped: [] };
  const remaining = [...changes];
  while (remaining.length > 0) {
    const current = plan.final;
    const [change] = remaining.splice(pickNext(remaining, current, versions), 1) as [Change];
    const over = { current, v: versions.get(change.id) as Versions, who: o.who, claimed: o.claimed };
    const step = await planStep(store, target.realPath, change, over, o.force);
    if (!step) plan.skipped.push(change);
    else {
      plan.steps.push(step);
      plan.final = step.to;
    }
  }
  return plan;
};

export const refuseAll = (errors: FettleError[]): FettleError => {
  if (errors.length === 1) return errors[0] as FettleError;
  return new FettleError(
    'E_CONFLICT',
    `${errors.length} files cannot be rolled back, so none was. Nothing was changed.`,
    {
      hint: errors.map((e) => `${e.message}${e.hint ? ` ${e.hint}` : ''}`).join('\n'),
    },
  );
};

const readTarget = async (store: Store, first: Change): Promise<{ target: Target; original: DiskFile | null }> => {
  const target: Target = { store, realPath: await diskPathOf(store, first.fields), treePath: first.fields.path };
  return { target, original: await readForPlan(target.realPath, first.id) };
};

/**
 * A file's consecutive changes undone at once: what the newest wrote against the disk, the bytes the oldest
 * replaced put back (merged three ways if the file was edited since, unless --force).
 */
const planEnds = async (
  store: Store,
  newestFirst: Change[],
  ends: { previous: FileEntry | null; written: FileEntry | null },
  o: { force: boolean; who?: WhoWrote | undefined; claimed?: Claimed | undefined },
): Promise<FilePlan> => {
  const newest = newestFirst[0] as Change;
  const { target, original } = await readTarget(store, newest);
  const plan: FilePlan = { target, original, final: original, steps: [], skipped: [] };
  const v: Versions = { chain: { commits: [], base: null }, previous: ends.previous, written: ends.written };
  const step = await planStep(
    store,
    target.realPath,
    newest,
    { current: original, v, who: o.who, claimed: o.claimed },
    o.force,
  );
  if (!step) plan.skipped.push(...newestFirst);
  else {
    plan.steps.push({ ...step, covers: newestFirst });
    plan.final = step.to;
  }
  return plan;
};

export interface RollbackPlan {
  /** one per file, in the order of the changes given */
  plans: FilePlan[];
  /** files that cannot be rolled back, each with why; when there is one, nothing may be applied */
  refusals: FettleError[];
}

/** What one change puts back: the bytes it replaced, or what `--hunks` said instead. */
type Instead = (c: Change, previous: FileEntry | null) => FileEntry | null;

/** The bytes of the two ends of each consecutive run, in one cat-file. */
const runEnds = async (store: Store, net: Member[][], instead: Instead) => {
  const ends = await readFiles(
    store,
    net.flatMap((g) => {
      const oldest = (g[0] as Member).ids;
      const newest = (g[g.length - 1] as Member).ids;
      return [
        { commit: oldest.previous, path: oldest.path },
        { commit: newest.written as string, path: newest.path },
      ];
    }),
  );
  return new Map(
    net.map((g, n) => [
      g,
      { previous: instead((g[0] as Member).change, ends[2 * n] ?? null), written: ends[2 * n + 1] ?? null },
    ]),
  );
};

/** Every file planned before anything is written; a file that cannot be restored is a refusal, not a throw. */
export const planRollback = async (
  store: Store,
  changes: Change[],
  options: {
    force?: boolean;
    /** by change id: what to put back instead of the bytes it replaced (its other hunks kept: `--hunks`) */
    instead?: ReadonlyMap<string, FileEntry>;
    who?: WhoWroteOf;
    claimed?: Claimed;
  } = {},
): Promise<RollbackPlan> => {
  const force = options.force ?? false;
  const instead: Instead = (c, previous) => options.instead?.get(c.id) ?? previous;
  const ids = await idsOf(store, changes);
  const byPath = new Map<string, Member[]>();
  changes.forEach((change, n) => {
    const group = byPath.get(change.fields.path) ?? [];
    group.push({ change, ids: ids[n] as Ids });
    byPath.set(change.fields.path, group);
  });
  // Oldest first; a consecutive run in the order that makes it one.
  const groups = [...byPath.values()].map((g) => {
    const sorted = g.sort((a, b) => newestFirst(b.change, a.change));
    return asRun(sorted) ?? sorted;
  });
  const endsOf = await runEnds(
    store,
    groups.filter((g) => consecutive(g.map((x) => x.ids))),
    instead,
  );
  const plans: FilePlan[] = [];
  const refusals: FettleError[] = [];
  for (const group of groups) {
    const newestFirstChanges = group.map((x) => x.change).reverse();
    const o = { force, who: options.who?.((group[0] as Member).change.fields.path), claimed: options.claimed };
    try {
      const known = endsOf.get(group);
      if (known) plans.push(await planEnds(store, newestFirstChanges, known, o));
      else {
        const all = await versionsOf(store, newestFirstChanges);
        const versions = new Map(
          newestFirstChanges.map((c, n) => {
            const v = all[n] as Versions;
            return [c.id, { ...v, previous: instead(c, v.previous) }];
          }),
        );
        plans.push(await planFile(store, newestFirstChanges, versions, o));
      }
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      refusals.push(error);
    }
  }
  return { plans, refusals };
};
