// `fettle confirm <id>`: write a staged change to disk, but only over the bytes fettle recorded. If the file
// changed since, merge three ways and apply only a clean result; otherwise refuse and leave it pending.
// Crash safety: the user's bytes are committed and the ref moved to them before a merge replaces the file,
// and the final ref update is locked and checked (prepared) before the write and committed after it; a confirm
// killed anywhere is resumed by running it again.
import { classifyContent, sameBytes } from '../core/content';
import { renderRecord, type RecordKind } from '../core/record-message';
import { FettleError } from '../errors';
import { fileModeOf, gitModeOf, NotDurableError, readDisk, replaceFile, type DiskFile } from '../io/atomic-write';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import type { Store } from '../store/store';
import { mergeFile } from '../store/merge';
import { commitFile, ensureObjects, readFiles, type FileEntry } from '../store/objects';
import { publish, retryMissing, type Written } from '../store/publish';
import { prepareRefs, type RefUpdate } from '../store/refs';
import { hashObject } from '../store/tree-codec';
import { loadChange, requirePending, type Change } from './changes';
import { stamp } from './ids';
import type { Context } from './context';
import { diskPathOf, fileLockPath } from './paths';
import { requirePerson, requirePersonForExpired } from './person-review';
import { retrySession, sessionStep } from './session-ref';
import { currentTurn } from './turns';

export interface ConfirmResult {
  change: Change;
  path: string;
  /** how the disk was brought to the proposal; `conflicts`: merged, with conflict markers (--with-conflicts) */
  how: 'written' | 'merged' | 'already-on-disk' | 'conflicts';
  /** conflict regions written into the file (`conflicts` only) */
  conflicts?: number;
}

export interface ConfirmOptions {
  /** apply a change past its TTL; a person only (the agent re-runs its Write) */
  expired?: boolean;
  /** when the merge with edits made since overlaps, write it with conflict markers instead of refusing */
  withConflicts?: boolean;
}

/** A new commit on a change's tip: what it records, and the file's bytes and git mode. */
interface NewRecord {
  kind: RecordKind;
  bytes: Buffer;
  mode: string;
  note?: string | undefined;
  /** the turn of the change's session it lands in (applied), when turns are counted */
  turn?: number | undefined;
}

/**
 * A commit of `bytes` on the change's tip, and the ref moved to it by `move`. A `git gc --prune=now` running
 * meanwhile can delete the new objects before the ref names them: once it has, they are checked and written again.
 */
const commitOn = async (ctx: Context, store: Store, change: Change, { kind, bytes, mode, note, turn }: NewRecord) => {
  const when = ctx.now();
  const spec = {
    parent: change.tip,
    path: change.fields.path,
    bytes,
    mode,
    message: renderRecord({ ...change.fields, kind, note, ...(turn === undefined ? {} : { turn }), ...stamp(when) }),
    when,
  };
  const { commit, written } = await commitFile(store, spec);
  const again = { oids: written, rewrite: () => commitFile(store, spec) };
  return { commit, written: again, settle: () => ensureObjects(store, again.oids, again.rewrite) };
};

interface Staged {
  proposal: FileEntry;
  base: FileEntry | null;
  /** an interrupted merging confirm already committed the user's bytes (the tip is its snapshot) */
  resuming: boolean;
}

/**
 * The proposal and its base (the proposal's parent), from a tip that is the proposal or the snapshot an
 * interrupted confirm left on top of it: one cat-file for both.
 */
export const stagedFiles = async (store: Store, change: Change): Promise<Staged> => {
  const resuming = change.fields.kind === 'snapshot';
  const proposalRev = resuming ? `${change.tip}^` : change.tip;
  const { path } = change.fields;
  const [proposal, base] = await readFiles(store, [
    { commit: proposalRev, path },
    { commit: `${proposalRev}^`, path },
  ]);
  if (!proposal) throw new FettleError('E_INTERNAL', `internal error: change ${change.id} has no proposed content`);
  return { proposal, base: base ?? null, resuming };
};

export const confirm = async (
  ctx: Context,
  store: Store,
  id: string,
  options: ConfirmOptions = {},
): Promise<ConfirmResult> => {
  const first = await loadChange(ctx, store, id);
  requirePerson(ctx, first);
  if (options.expired) requirePersonForExpired(ctx, first);
  const path = await diskPathOf(store, first.fields);
  return withLock(fileLockPath(store, first.fields.path), async () => {
    await failpoint('confirm.locked');
    // Read again under the lock: another process may have confirmed or discarded it meanwhile.
    let change = await loadChange(ctx, store, id);
    requirePending(change, ctx.now(), options);
    const { proposal, base, resuming } = await stagedFiles(store, change);
    const disk = await readDisk(path);

    let how: ConfirmResult['how'] = 'written';
    let bytes = proposal.bytes;
    let conflicts = 0;
    if (sameBytes(disk?.bytes, proposal.bytes)) how = 'already-on-disk';
    else if (!sameBytes(disk?.bytes, base?.bytes)) {
      const versions = { disk: disk?.bytes ?? null, base: base?.bytes ?? null, proposal: proposal.bytes };
      ({ bytes, conflicts } = await mergeOrRefuse(store, change, path, versions, options.withConflicts));
      how = conflicts > 0 ? 'conflicts' : 'merged';
      if (!resuming) change = await snapshotUserBytes(ctx, store, change, disk);
    }
    const mode = disk ? gitModeOf(disk.mode) : proposal.mode;
    const note =
      how === 'merged'
        ? 'Merged with edits made on disk after it was staged.'
        : how === 'conflicts'
          ? `Merged with edits made on disk after it was staged; ${conflicts} overlapping region${conflicts === 1 ? '' : 's'} written with conflict markers (--with-conflicts).`
          : undefined;
    // An applied change lands in the turn its session is in now, which may be later than the one it was staged in.
    const turn = (await currentTurn(ctx.config.dataDir, change.fields.session)) ?? change.fields.turn;
    const applied = await commitOn(ctx, store, change, { kind: 'applied', bytes, mode, note, turn });
    const landing = { commit: applied.commit, written: applied.written, bytes, mode, turn };
    const { refs, written } = await prepareLanding(ctx, store, change, landing);
    const settle = () => ensureObjects(store, written.oids, written.rewrite);
    try {
      if (how !== 'already-on-disk') {
        await replaceFile(path, bytes, {
          mode: disk?.mode ?? fileModeOf(proposal.mode),
          createOnly: disk === null,
          expect: disk?.bytes,
        });
        await failpoint('confirm.file-written');
      }
    } catch (error) {
      // Replaced but not durable: the file holds the proposal, so the ref must say applied; anything else
      // left the file as it was.
      if (error instanceof NotDurableError) {
        await refs.commit();
        await settle();
      } else await refs.abort().catch(() => undefined);
      throw error;
    }
    await refs.commit();
    await settle();
    await failpoint('confirm.ref-updated');
    return { change, path, how, ...(how === 'conflicts' ? { conflicts } : {}) };
  });
};

/**
 * Locks the change's ref (to move it to `applied`) and, for a change of an agent session, the session's ref (to
 * add the change's commit) in one prepared transaction; a race on the session ref reads it again.
 */
const prepareLanding = async (
  ctx: Context,
  store: Store,
  change: Change,
  applied: { commit: string; written: Written; bytes: Buffer; mode: string; turn: number | undefined },
) => {
  const { session, path, added, removed } = change.fields;
  const { turn } = applied;
  const own: RefUpdate = { op: 'update', ref: change.ref, oid: applied.commit, old: change.tip };
  const reason = `fettle: confirm ${change.id}`;
  if (session === undefined)
    return {
      refs: await retryMissing(() => prepareRefs(store, [own], reason), applied.written),
      written: applied.written,
    };
  const leaf = { mode: applied.mode, oid: hashObject('blob', applied.bytes, store.objectFormat) };
  return retrySession(true, async () => {
    const landing = { path, leaf, change: change.id, event: 'apply' as const, turn, added, removed };
    const step = await sessionStep(store, session, [landing], ctx.now());
    const written = {
      oids: [...applied.written.oids, ...step.written.oids],
      rewrite: async () => {
        await applied.written.rewrite();
        await step.written.rewrite();
      },
    };
    return { refs: await retryMissing(() => prepareRefs(store, [own, step.update], reason), written), written };
  });
};

/** Commits the bytes on disk on top of the proposal and moves the ref there, before anything replaces them. */
const snapshotUserBytes = async (
  ctx: Context,
  store: Store,
  change: Change,
  disk: DiskFile | null,
): Promise<Change> => {
  const snapshot = await commitOn(ctx, store, change, {
    kind: 'snapshot',
    bytes: disk?.bytes ?? Buffer.alloc(0),
    mode: gitModeOf(disk?.mode ?? 0o644),
  });
  await publish(
    store,
    [{ op: 'update', ref: change.ref, oid: snapshot.commit, old: change.tip }],
    `fettle: confirm ${change.id} (snapshot)`,
    snapshot.written,
  );
  await failpoint('confirm.snapshot-written');
  return { ...change, tip: snapshot.commit, parents: [change.tip], fields: { ...change.fields, kind: 'snapshot' } };
};

/** The three versions a merging confirm reconciles: what is on disk, what was staged on, what was proposed. */
interface ThreeWay {
  disk: Buffer | null;
  base: Buffer | null;
  proposal: Buffer;
}

/** The merged bytes, and how many conflict regions they hold (never more than 0 unless `withConflicts`). */
export const mergeOrRefuse = async (
  store: Store,
  change: Change,
  path: string,
  { disk, base, proposal }: ThreeWay,
  withConflicts = false,
): Promise<{ bytes: Buffer; conflicts: number }> => {
  const keep =
    `Nothing was written; the change stays pending. Compare the file with the proposal: \`git diff fettle/${change.id} -- ${change.fields.path}\`;` +
    ` then run \`fettle discard ${change.id}\` and re-run the Write.`;
  if (disk === null)
    throw new FettleError('E_CONFLICT', `${path} was deleted after change ${change.id} was staged.`, { hint: keep });
  if (base === null)
    throw new FettleError('E_CONFLICT', `${path} was created by someone else after change ${change.id} was staged.`, {
      hint: keep,
    });
  if ([disk, base, proposal].some((b) => classifyContent(b) !== 'text')) {
    throw new FettleError(
      'E_CONFLICT',
      `${path} changed after change ${change.id} was staged, and binary content cannot be merged.`,
      { hint: keep },
    );
  }
  const merged = await mergeFile(store, disk, base, proposal);
  if (!merged.clean && !withConflicts) {
    throw new FettleError(
      'E_CONFLICT',
      `${path} changed after change ${change.id} was staged, and those edits overlap the staged ones (${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'}).`,
      {
        hint: `${keep} Or resolve it yourself: \`fettle confirm ${change.id} --with-conflicts\` writes the merge with conflict markers into the file (recorded; \`fettle rollback ${change.id}\` undoes it).`,
      },
    );
  }
  return { bytes: merged.bytes, conflicts: merged.clean ? 0 : merged.conflicts };
};
