// Planning a rollback of one or many changes before anything is touched, file by file. A file's changes that
// follow each other (each one's previous bytes are what the one before it wrote, which the blob ids show without
// reading any content) are undone at once: the disk against what the newest wrote, the bytes the oldest replaced
// put back, so a thousand changes cost two versions per file, not a thousand. Changes with another writer's in
// between are walked newest first over a virtual copy of the file. Nothing here writes; a file that cannot be
// restored is a refusal, reported with the others, and then nothing is applied.
import { classifyContent, sameBytes } from '../core/content';
import { FettleError } from '../errors';
import { fileModeOf, gitModeOf, readDisk, type DiskFile } from '../io/atomic-write';
import type { Store, Target } from '../store/store';
import { mergeFile } from '../store/merge';
import { readBlobIds, readFiles, type FileEntry } from '../store/objects';
import { newestFirst, type Change } from './changes';
import { chainsOf, replacedCommit, versionsOf, writtenCommit, type Chain, type Versions } from './history';
import { diskPathOf } from './paths';

export type How = 'restored' | 'removed' | 'merged' | 'forced';

export interface Step {
  /** the newest change this step undoes */
  change: Change;
  /** every change it undoes, newest first: several when a file's consecutive changes are undone at once */
  covers: Change[];
  /** the file before this step (the disk, or the result of the step before it) */
  from: DiskFile | null;
  /** the file after it: null removes it */
  to: DiskFile | null;
  how: How;
}

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
 * Permission bits after restoring `previous`: its executable bit, unless the user changed the mode since the
 * change (then theirs); the other bits (e.g. 0600) of the file on disk are kept.
 */
const modeAfter = (current: DiskFile | null, written: FileEntry | null | undefined, previous: FileEntry): number => {
  if (!current) return fileModeOf(previous.mode);
  const now = gitModeOf(current.mode);
  if (now === previous.mode || (written && now !== written.mode)) return current.mode;
  return previous.mode === '100755' ? current.mode | ((current.mode & 0o444) >> 2) : current.mode & ~0o111;
};

const refusal = (path: string, id: string, why: string): FettleError =>
  new FettleError(
    'E_CONFLICT',
    `${path} changed after fettle wrote it (change ${id}), and ${why}. Nothing was changed.`,
    {
      hint: `Look at \`git show fettle/${id}\`; to overwrite anyway run \`fettle rollback ${id} --force\` (the current bytes are recorded first).`,
    },
  );

const mergeUndo = async (
  store: Store,
  path: string,
  id: string,
  current: DiskFile | null,
  v: Versions,
): Promise<Buffer> => {
  const { written, previous } = v;
  if (written === undefined) throw refusal(path, id, 'fettle has no record of what the write left on disk');
  if (!current || !written || !previous) throw refusal(path, id, 'the file was created or deleted since');
  if ([current.bytes, written.bytes, previous.bytes].some((b) => classifyContent(b) !== 'text'))
    throw refusal(path, id, 'binary content cannot be merged');
  const merged = await mergeFile(store, current.bytes, written.bytes, previous.bytes);
  if (!merged.clean)
    throw refusal(
      path,
      id,
      `undoing it conflicts with those edits (${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'})`,
    );
  return merged.bytes;
};

/** One change over `current`: the step, null when there is nothing to undo, or a thrown refusal. */
const planStep = async (
  store: Store,
  path: string,
  change: Change,
  over: { current: DiskFile | null; v: Versions },
  force: boolean,
): Promise<Step | null> => {
  const { current, v } = over;
  const { previous, written } = v;
  // A change of mode alone (a Bash `chmod`) is undone while the file keeps the mode it gave.
  const modeOnly =
    !!current && !!previous && !!written && written.mode !== previous.mode && gitModeOf(current.mode) === written.mode;
  if (sameBytes(current?.bytes, previous?.bytes) && !modeOnly) return null;
  const untouched = written !== undefined && sameBytes(current?.bytes, written?.bytes);
  const restore = (how: How): Step => ({
    change,
    covers: [change],
    from: current,
    to: previous ? { bytes: previous.bytes, mode: modeAfter(current, written, previous) } : null,
    how,
  });
  if (untouched) return restore(previous ? 'restored' : 'removed');
  // The file is gone (removed or moved away since): there are no bytes to lose, so it is put back.
  if (current === null && written !== undefined) return restore('restored');
  if (force) return restore('forced');
  const bytes = await mergeUndo(store, path, change.id, current, v);
  return { change, covers: [change], from: current, to: { bytes, mode: current?.mode ?? 0o644 }, how: 'merged' };
};

/** A path fettle cannot read as a file (a directory now, a parent replaced by a file) is a refusal, not a crash. */
const readForPlan = async (path: string, id: string): Promise<DiskFile | null> => {
  try {
    return await readDisk(path);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
        ? 'a parent directory is now a file'
        : 'it is no longer a regular file';
    throw new FettleError('E_CONFLICT', `${path} cannot be restored (change ${id}): ${why}. Nothing was changed.`, {
      cause: error,
    });
  }
};

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
  force: boolean,
): Promise<FilePlan> => {
  const first = changes[0] as Change;
  const target: Target = { store, realPath: await diskPathOf(store, first.fields), treePath: first.fields.path };
  const original = await readForPlan(target.realPath, first.id);
  const plan: FilePlan = { target, original, final: original, steps: [], skipped: [] };
  const remaining = [...changes];
  while (remaining.length > 0) {
    const current = plan.final;
    const [change] = remaining.splice(pickNext(remaining, current, versions), 1) as [Change];
    const over = { current, v: versions.get(change.id) as Versions };
    const step = await planStep(store, target.realPath, change, over, force);
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

/** Each change's previous commit and written commit (if any), and the blob ids at its path: no content read. */
const idsOf = async (store: Store, changes: Change[]) => {
  const chains = await chainsOf(
    store,
    changes.map((c) => c.tip),
  );
  const commits = changes.map((c, n) => {
    const chain = chains[n] as Chain;
    return { previous: replacedCommit(chain), written: writtenCommit(chain), path: c.fields.path };
  });
  const specs = commits.flatMap((c) => [`${c.previous}:${c.path}`, ...(c.written ? [`${c.written}:${c.path}`] : [])]);
  const oids = await readBlobIds(store, specs);
  let i = 0;
  return commits.map((c) => {
    const previous = oids[i++] ?? null;
    const written = c.written ? (oids[i++] ?? null) : undefined;
    return { ...c, previousOid: previous, writtenOid: written };
  });
};

type Ids = Awaited<ReturnType<typeof idsOf>>[number];

/** Whether each change's previous bytes are what the one before it wrote: then only the ends matter. */
const consecutive = (run: Ids[]): boolean =>
  run.every((c, n) => c.writtenOid !== undefined && (n === 0 || c.previousOid === run[n - 1]?.writtenOid));

type Member = { change: Change; ids: Ids };

/**
 * A file's changes, oldest first, as one consecutive run if they form one: in time order, or else (records of
 * different processes in the same millisecond have no order in time) by following each change's written bytes
 * to the change that replaced them, when that leads one way only. Null when they do not form one run.
 */
const asRun = (group: Member[]): Member[] | null => {
  if (consecutive(group.map((m) => m.ids))) return group;
  const left = new Set(group);
  const produced = new Set(group.map((m) => m.ids.writtenOid));
  const starts = group.filter((m) => !produced.has(m.ids.previousOid));
  if (starts.length !== 1) return null;
  const run: Member[] = [];
  for (let at: Member | undefined = starts[0]; at; ) {
    run.push(at);
    left.delete(at);
    const next: Member[] = [...left].filter((m) => m.ids.previousOid === at?.ids.writtenOid);
    if (next.length > 1) return null;
    at = next[0];
  }
  return left.size === 0 && consecutive(run.map((m) => m.ids)) ? run : null;
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
  force: boolean,
): Promise<FilePlan> => {
  const newest = newestFirst[0] as Change;
  const { target, original } = await readTarget(store, newest);
  const plan: FilePlan = { target, original, final: original, steps: [], skipped: [] };
  const v: Versions = { chain: { commits: [], base: null }, previous: ends.previous, written: ends.written };
  const step = await planStep(store, target.realPath, newest, { current: original, v }, force);
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

/** Every file planned before anything is written; a file that cannot be restored is a refusal, not a throw. */
export const planRollback = async (
  store: Store,
  changes: Change[],
  options: { force?: boolean } = {},
): Promise<RollbackPlan> => {
  const force = options.force ?? false;
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
  const net = groups.filter((g) => consecutive(g.map((x) => x.ids)));
  // The bytes of the two ends of each consecutive run, in one cat-file.
  const ends = await readFiles(
    store,
    net.flatMap((g) => {
      const oldest = (g[0] as (typeof g)[number]).ids;
      const newest = (g[g.length - 1] as (typeof g)[number]).ids;
      return [
        { commit: oldest.previous, path: oldest.path },
        { commit: newest.written as string, path: newest.path },
      ];
    }),
  );
  const endsOf = new Map(net.map((g, n) => [g, { previous: ends[2 * n] ?? null, written: ends[2 * n + 1] ?? null }]));
  const plans: FilePlan[] = [];
  const refusals: FettleError[] = [];
  for (const group of groups) {
    const newestFirstChanges = group.map((x) => x.change).reverse();
    try {
      const known = endsOf.get(group);
      if (known) plans.push(await planEnds(store, newestFirstChanges, known, force));
      else {
        const all = await versionsOf(store, newestFirstChanges);
        const versions = new Map(newestFirstChanges.map((c, n) => [c.id, all[n] as Versions]));
        plans.push(await planFile(store, newestFirstChanges, versions, force));
      }
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      refusals.push(error);
    }
  }
  return { plans, refusals };
};
