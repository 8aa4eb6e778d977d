// Planning a confirm, file by file, before anything is written: what each file holds now against the base its
// proposal was staged on and the proposal itself, and from that (core/changeset.ts fileVerdict) the bytes to
// write, or why it cannot be written. Reads only: the proposals and bases in one cat-file, each file once, and a
// `git merge-file` for a file edited since it was staged.
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileVerdict, type DiskState, type FileRefusal, type FileVerdict } from '../../core/changeset';
import { classifyContent, sameBytes } from '../../core/content';
import { FettleError } from '../../errors';
import { gitModeOf, isNotAFile, readDisk, type DiskFile } from '../../io/atomic-write';
import { mergeFile } from '../../store/merge';
import { pathsPresent, readFiles, type FileEntry } from '../../store/object-read';
import type { Store } from '../../store/store';
import { requirePending, type Change } from '../changes';
import type { Context } from '../context';
import { type contractNow, requireContract } from '../contract-file';
import { diskPathOf } from '../paths';
import { plural } from '../../core/plural';

export interface FilePlan {
  change: Change;
  /** the real path written */
  file: string;
  /** what is on disk now (null: absent) */
  disk: DiskFile | null;
  /** the proposal commit's id (the tip, or the parent of the snapshot an interrupted merging confirm left) */
  proposal: string;
  how: 'written' | 'merged' | 'already-on-disk' | 'conflicts';
  /** conflict regions written with markers (`conflicts` only) */
  conflicts?: number | undefined;
  /** the bytes the file gets (null: the change removes it), and their git mode */
  bytes: Buffer | null;
  mode: string;
  /** the bytes on disk are to be committed (and the ref moved to them) before the merge replaces them */
  snapshot: boolean;
}

interface Read {
  change: Change;
  file: string;
  /** null: the proposal removes the file (a contract's delete) */
  proposal: FileEntry | null;
  base: FileEntry | null;
  /** the bytes an interrupted merging confirm committed (its tip is a snapshot) */
  snapshot: FileEntry | null | undefined;
}

const stateOf = (disk: DiskFile | null, r: Read): DiskState => {
  if (sameBytes(disk?.bytes, r.proposal?.bytes)) return 'proposal';
  if (sameBytes(disk?.bytes, r.base?.bytes)) return 'base';
  return disk === null ? 'absent' : 'other';
};

/** The file can be replaced: its owner may write it (fettle never replaces a read-only file), and its directory. */
const writable = async (file: string, disk: DiskFile | null): Promise<boolean> => {
  if (disk && (disk.mode & 0o200) === 0) return false;
  return access(dirname(file), constants.W_OK).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT', // made by the write; its parent is checked then
  );
};

const refusal = (r: Read, why: FileRefusal, conflicts = 0): FettleError => {
  const { id } = r.change;
  const path = r.file;
  const keep =
    `Nothing was written; the change stays pending. Compare the file with the proposal: \`git diff fettle/${id} -- ${r.change.fields.path}\`;` +
    ` then run \`fettle discard ${id}\` and re-run the Write.`;
  const text: Record<FileRefusal, string> = {
    deleted: `${path} was deleted after change ${id} was staged.`,
    edited: `${path} changed after change ${id} was staged to delete it; fettle does not delete a file edited since.`,
    created: `${path} was created by someone else after change ${id} was staged.`,
    binary: `${path} changed after change ${id} was staged, and binary content cannot be merged.`,
    conflict: `${path} changed after change ${id} was staged, and those edits overlap the staged ones (${plural(conflicts, 'conflict')}).`,
    'not-a-file': `${path} is no longer a regular file, so change ${id} cannot be written to it.`,
    unwritable: `${path} is read-only (or its directory is), so change ${id} cannot be written; fettle does not replace read-only files.`,
  };
  const hint =
    why === 'conflict'
      ? `${keep} Or resolve it yourself: \`fettle confirm ${id} --with-conflicts\` writes the merge with conflict markers into the file (recorded; \`fettle rollback ${id}\` undoes it).`
      : why === 'unwritable'
        ? `Nothing was written; the change stays pending. Make it writable (chmod u+w) if it should change, then run \`fettle confirm ${id}\` again.`
        : why === 'not-a-file'
          ? `Nothing was written; the change stays pending. Drop it with \`fettle discard ${id}\`.`
          : keep;
  return new FettleError('E_CONFLICT', text[why], { hint });
};

/** Reads every change's proposal and base (and snapshot) in one cat-file. */
const readStaged = async (store: Store, changes: { change: Change; file: string }[]): Promise<Read[]> => {
  const revs = changes.map(({ change }) => {
    const resuming = change.fields.kind === 'snapshot';
    return { proposal: resuming ? `${change.tip}^` : change.tip, resuming };
  });
  const files = await readFiles(
    store,
    changes.flatMap(({ change }, n) => {
      const { path } = change.fields;
      const { proposal, resuming } = revs[n] as (typeof revs)[number];
      return [
        { commit: proposal, path },
        { commit: `${proposal}^`, path },
        ...(resuming ? [{ commit: change.tip, path }] : []),
      ];
    }),
  );
  let i = 0;
  const read = changes.map(({ change, file }, n) => {
    const proposal = files[i++] ?? null;
    const base = files[i++] ?? null;
    const snapshot = revs[n]?.resuming ? (files[i++] ?? null) : undefined;
    return { change, file, proposal, base, snapshot, at: (revs[n] as (typeof revs)[number]).proposal };
  });
  // A proposal without the file removes it, but only when its tree has no such entry: one whose blob is missing
  // from the store must never read as a deletion.
  const absent = read.filter((r) => r.proposal === null);
  const kept = await pathsPresent(
    store,
    absent.map((r) => ({ commit: r.at, path: r.change.fields.path })),
  );
  absent.forEach((r, n) => {
    if (kept[n])
      throw new FettleError('E_GIT', `the proposed content of change ${r.change.id} is missing from git's store`);
    if (r.base === null)
      throw new FettleError('E_INTERNAL', `internal error: change ${r.change.id} has no proposed content`);
  });
  return read;
};

const verdictOf = async (
  store: Store,
  r: Read,
  disk: DiskFile | null,
  withConflicts: boolean,
): Promise<{ v: FileVerdict; bytes: Buffer | null }> => {
  const facts = {
    withConflicts,
    disk: stateOf(disk, r),
    baseExists: r.base !== null,
    writable: await writable(r.file, disk),
    removes: r.proposal === null,
    text: [disk?.bytes, r.base?.bytes, r.proposal?.bytes].every(
      (b) => b !== undefined && classifyContent(b) === 'text',
    ),
  };
  const first = fileVerdict(facts);
  if (!('merge' in first)) return { v: first, bytes: r.proposal?.bytes ?? null };
  const proposal = r.proposal as FileEntry;
  const merged = await mergeFile(store, (disk as DiskFile).bytes, (r.base as FileEntry).bytes, proposal.bytes);
  return { v: fileVerdict({ ...facts, merge: merged }), bytes: merged.bytes };
};

/** Every file planned; a change that cannot be confirmed is a refusal, reported with the others. */
export const planFiles = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  options: {
    expired?: boolean | undefined;
    withConflicts?: boolean | undefined;
    /** by change id: bytes to write instead of its proposal (some of its hunks), planned the same way */
    instead?: ReadonlyMap<string, Buffer> | undefined;
  } = {},
): Promise<{ plans: FilePlan[]; refusals: FettleError[] }> => {
  const refusals: FettleError[] = [];
  const located: { change: Change; file: string }[] = [];
  const contracts = new Map<string, Awaited<ReturnType<typeof contractNow>>>();
  for (const change of changes) {
    try {
      requirePending(change, ctx.now(), { expired: options.expired });
      // A contract's change is what its reviewer saw only while the contract file still hashes the same.
      await requireContract(change, contracts);
      located.push({ change, file: await diskPathOf(store, change.fields) });
    } catch (error) {
      if (!(error instanceof FettleError)) throw error;
      refusals.push(error);
    }
  }
  const plans: FilePlan[] = [];
  for (const read of await readStaged(store, located)) {
    const instead = options.instead?.get(read.change.id);
    const r = instead && read.proposal ? { ...read, proposal: { ...read.proposal, bytes: instead } } : read;
    const disk = await readDisk(r.file).catch((error: unknown) => {
      if (isNotAFile(error)) return undefined;
      throw error;
    });
    if (disk === undefined) {
      refusals.push(refusal(r, 'not-a-file'));
      continue;
    }
    const { v, bytes } = await verdictOf(store, r, disk, options.withConflicts === true);
    if ('refuse' in v) refusals.push(refusal(r, v.refuse, v.conflicts));
    else if ('how' in v) {
      const resuming = r.snapshot !== undefined;
      plans.push({
        change: r.change,
        file: r.file,
        disk,
        proposal: resuming ? (r.change.parents[0] ?? r.change.tip) : r.change.tip,
        how: v.how,
        conflicts: v.how === 'conflicts' ? v.conflicts : undefined,
        bytes,
        mode: disk ? gitModeOf(disk.mode) : (r.proposal?.mode ?? '100644'),
        // A merge replaces bytes only git can give back once they are committed; a resumed one already did,
        // unless the file was saved again since.
        snapshot:
          (v.how === 'merged' || v.how === 'conflicts') && !(resuming && sameBytes(disk?.bytes, r.snapshot?.bytes)),
      });
    }
  }
  return { plans, refusals };
};

/**
 * One change over `disk` (the file as earlier changes of a test left it, or as it is): the bytes confirm would
 * write and how, or confirm's own refusal, thrown. `fettle test` applies a session's changes this way.
 */
export const planOver = async (
  store: Store,
  change: Change,
  file: string,
  disk: DiskFile | null,
): Promise<{ how: FilePlan['how']; bytes: Buffer | null; proposal: FileEntry | null }> => {
  const [r] = await readStaged(store, [{ change, file }]);
  if (!r) throw new FettleError('E_INTERNAL', `internal error: change ${change.id} has no proposed content`);
  const { v, bytes } = await verdictOf(store, r, disk, false);
  if ('refuse' in v) throw refusal(r, v.refuse, v.conflicts);
  if (!('how' in v)) throw new FettleError('E_INTERNAL', `internal error: change ${change.id} was not planned`);
  return { how: v.how, bytes, proposal: r.proposal };
};
