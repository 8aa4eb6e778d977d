// Recovery of an operation a crash interrupted (its journal, journal.ts, names a process that is gone): run at
// the start of every fettle command that opens a store, and by `fettle doctor`, which reports it. The decision is
// core/recovery.ts's: completed (every ref moved) leaves only the journal to remove; not completed puts back every
// file that holds the operation's bytes, only over those bytes, and leaves a file saved since as it is.
import { join } from 'node:path';
import { planRecovery, type FileNow } from '../../core/recovery';
import { toFettleError } from '../../errors';
import { readDisk, type DiskFile } from '../../io/atomic-write';
import { withLock, withLocks } from '../../io/lock';
import { isAlive } from '../../io/pid';
import { readObjects } from '../../store/object-read';
import { sweepNewRefs } from '../../store/ref-create';
import { listRefs, updateRefs } from '../../store/refs';
import type { Store } from '../../store/store';
import { hashObject } from '../../store/tree-codec';
import { fettleDir } from '../../store/worktrees';
import { putFile } from './apply-files';
import type { Context } from '../context';
import { findJournals, removeJournal, type FoundJournal, type Journal } from './journal';
import { fileLockPath } from '../paths';

export interface Recovery {
  op: Journal['op'];
  pid: number;
  /** the changes of the interrupted operation */
  ids: string[];
  outcome: 'finished' | 'undone' | 'empty' | 'stuck';
  /** files (their paths in the store's trees) put back to the bytes they held before it */
  putBack: string[];
  /** files holding bytes saved since: left as they are */
  kept: string[];
  why?: string | undefined;
}

const fileNow = (store: Store, disk: DiskFile | null, f: Journal['files'][number]): FileNow => {
  const oid = disk ? hashObject('blob', disk.bytes, store.objectFormat) : null;
  if (oid === (f.from?.oid ?? null)) return 'from';
  return oid === (f.to?.oid ?? null) ? 'to' : 'other';
};

/**
 * Puts back, in order, each file the recovery plan restores (`restore`: indexes into `files`), only over the
 * operation's bytes; stops at the first that cannot be, saying why.
 */
const putBackFiles = async (
  store: Store,
  files: Journal['files'],
  restore: number[],
  disks: (DiskFile | null)[],
): Promise<{ putBack: string[]; why?: string }> => {
  const putBack: string[] = [];
  const restored = restore.map((n) => files[n] as Journal['files'][number]);
  const blobs = await readObjects(
    store,
    restored.flatMap((f) => (f.from ? [f.from.oid] : [])),
  );
  let b = 0;
  for (const [k, f] of restored.entries()) {
    const blob = f.from ? blobs[b++] : null;
    if (f.from && blob?.type !== 'blob') return { putBack, why: `the bytes ${f.file} held before are gone from git` };
    const previous = f.from && blob ? { bytes: blob.body, mode: f.from.mode } : null;
    try {
      await putFile(f.file, previous, disks[restore[k] as number] ?? null);
    } catch (error) {
      return { putBack, why: `${f.file} could not be put back: ${toFettleError(error).message}` };
    }
    putBack.push(f.path);
  }
  return { putBack };
};

const recoverOne = async (store: Store, found: FoundJournal, journal: Journal): Promise<Recovery> => {
  const base = {
    op: journal.op,
    pid: found.pid,
    ids: [...new Set(journal.files.map((f) => f.id))],
    putBack: [],
    kept: [],
  };
  const current = new Map(
    (
      await listRefs(
        store,
        journal.refs.map((r) => r.ref),
      )
    ).map((r) => [r.ref, r.oid]),
  );
  const disks = await Promise.all(journal.files.map((f) => readDisk(f.file)));
  const plan = planRecovery(
    journal.refs.map((r) => current.get(r.ref) !== r.old),
    journal.files.map((f, n) => fileNow(store, disks[n] ?? null, f)),
  );
  if (plan.outcome === 'stuck') return { ...base, outcome: 'stuck', why: plan.why };
  if (plan.outcome === 'finished') {
    await removeJournal(found.path);
    return { ...base, outcome: 'finished' };
  }
  const put = await putBackFiles(store, journal.files, plan.restore, disks);
  if (put.why !== undefined) return { ...base, putBack: put.putBack, outcome: 'stuck', why: put.why };
  const { putBack } = put;
  // Records of writes that did not happen go, each only if still where the operation left it.
  if (journal.drop.length > 0)
    await updateRefs(
      store,
      journal.drop.map((d) => ({ op: 'delete' as const, ref: d.ref, old: d.old })),
      `fettle: undo interrupted ${journal.op}`,
    ).catch(() => undefined);
  await removeJournal(found.path);
  const kept = plan.kept.map((n) => (journal.files[n] as Journal['files'][number]).path);
  return { ...base, outcome: putBack.length + kept.length === 0 ? 'empty' : 'undone', putBack, kept };
};

/**
 * Recovers every interrupted operation in the store (a journal whose process is gone), under a lock of its own
 * and each operation's file locks. Nothing is read past one readdir when there is no journal.
 */
export const recoverInterrupted = async (store: Store): Promise<Recovery[]> => {
  const gone = (j: FoundJournal) => j.pid !== process.pid && !isAlive(j.pid);
  if (!(await findJournals(store)).some(gone)) return [];
  return withLock(join(fettleDir(store), 'locks', 'journal.lock'), async () => {
    const done: Recovery[] = [];
    for (const found of (await findJournals(store)).filter(gone)) {
      const { journal } = found;
      if (!journal) {
        // Cut short while it was written: no file had been replaced yet.
        await removeJournal(found.path);
        done.push({ op: 'confirm', pid: found.pid, ids: [], outcome: 'empty', putBack: [], kept: [] });
        continue;
      }
      const locks = journal.files.map((f) => fileLockPath(store, f.path));
      done.push(await withLocks(locks, () => recoverOne(store, found, journal)));
    }
    return done;
  });
};

const list = (items: string[]): string => (items.length > 3 ? `${items.length} files` : items.join(', '));

/** What a recovery did, in a sentence or two; empty when there is nothing to say. */
export const recoveryText = (r: Recovery): string => {
  const changes = r.ids.length === 1 ? `change ${r.ids[0]}` : `${r.ids.length} changes (${list(r.ids)})`;
  const what = `${r.op === 'write' ? 'a write recorded as' : 'a confirm of'} ${changes} interrupted by the end of process ${r.pid}`;
  switch (r.outcome) {
    case 'empty':
      return '';
    case 'finished':
      return `fettle: ${what} had completed; its journal was removed.`;
    case 'stuck':
      return `fettle: ${what} can be neither finished nor undone: ${r.why}.`;
    case 'undone': {
      const back = r.putBack.length > 0 ? ` ${list(r.putBack)} put back to the bytes held before it.` : '';
      const kept = r.kept.length > 0 ? ` ${list(r.kept)} kept as saved since.` : '';
      const next =
        r.op === 'write'
          ? 'Its records were dropped: run the write again.'
          : `The changes stay pending: run \`fettle confirm ${r.ids.join(' ')}\` again.`;
      return `fettle: ${what} was undone:${back}${kept} ${next}`;
    }
  }
};

/**
 * For commands: recover first, say what was done, and go on; a failure is said, not thrown. True when refs may
 * have moved meanwhile (a recovery ran, here or in another process).
 */
export const recoverQuietly = async (ctx: Context, store: Store): Promise<boolean> => {
  await sweepNewRefs(store.commonDir);
  try {
    const done = await recoverInterrupted(store);
    for (const r of done) {
      const text = recoveryText(r);
      if (text) ctx.notice?.(r.outcome === 'stuck' ? `${text} Run \`fettle doctor\` for what to do.` : text);
    }
    return done.length > 0;
  } catch (error) {
    const e = toFettleError(error);
    // another command is recovering it now, and may move refs meanwhile
    if (e.code === 'E_LOCKED') return true;
    ctx.notice?.(`fettle: could not recover an interrupted confirm: ${e.message} Run \`fettle doctor\`.`);
    return true;
  }
};
