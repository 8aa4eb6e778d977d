// Replacing several of the user's files as one operation, in one place with one error boundary: a journal first
// (journal.ts), then each file replaced atomically over the bytes the caller planned on (a person's save
// meanwhile is never overwritten: replaceFile refuses), then the caller's ref transaction. A failure puts back
// the files already written, so nothing changed; a crash leaves the journal, and recover.ts does the same.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FettleError, toFettleError } from '../../errors';
import { NotDurableError, readDisk, removeFile, replaceFile, type DiskFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { updateRefs } from '../../store/refs';
import type { Store } from '../../store/store';
import { removeJournal, writeJournal, type JournalFile, type JournalOp, type RefMove } from './journal';

/** One file of the operation: what it holds now and what it is given. */
export interface Replacement {
  id: string;
  /** real path */
  file: string;
  /** path in the store's trees */
  path: string;
  from: DiskFile | null;
  /** blob id of `from`, reachable from a ref (recovery reads the bytes back from it) */
  fromOid: string | null;
  /** null: the file is removed (a staged deletion) */
  to: DiskFile | null;
  toOid: string | null;
}

/** Puts `next` where `current` is (null: removes it), only over `current`. */
export const putFile = async (path: string, next: DiskFile | null, current: DiskFile | null): Promise<void> => {
  if (next === null) {
    if (current !== null) await removeFile(path, current.bytes);
    return;
  }
  if (current === null) await mkdir(dirname(path), { recursive: true });
  await replaceFile(path, next.bytes, { mode: next.mode, createOnly: current === null, expect: current?.bytes });
};

/** Files already written get their original bytes back, newest first. Returns the paths that could not be. */
export const putBack = async (written: { file: string; from: DiskFile | null; to: DiskFile | null }[]) => {
  const failed: string[] = [];
  for (const w of [...written].reverse()) await putFile(w.file, w.from, w.to).catch(() => failed.push(w.file));
  return failed;
};

/** The error of an operation that failed at `file` after `written` files, and put them back (all but `stuck`). */
export const failedMidway = (
  error: unknown,
  what: { file: string; verb: string; done: string },
  written: number,
  stuck: string[],
): FettleError => {
  const e = toFettleError(error);
  const files = written === 1 ? `The file already ${what.done}` : `The ${written} files already ${what.done}`;
  const back =
    stuck.length > 0
      ? `could not all be put back (${stuck.join(', ')}); the bytes they held are recorded (see \`fettle log\`)`
      : written === 1
        ? 'was put back'
        : 'were put back';
  const restored = written === 0 ? '' : ` ${files} ${back}.`;
  return new FettleError(
    e.code,
    `${what.file} could not be ${what.verb}: ${e.message.replace(/\.$/, '')}.${restored}${stuck.length === 0 ? ' Nothing was changed.' : ''}`,
    { cause: error, hint: e.hint },
  );
};

const journalFile = (r: Replacement): JournalFile => ({
  id: r.id,
  file: r.file,
  path: r.path,
  from: r.from && r.fromOid ? { oid: r.fromOid, mode: r.from.mode } : null,
  to: r.to && r.toOid ? { oid: r.toOid, mode: r.to.mode } : null,
});

const same = (a: DiskFile | null, b: DiskFile | null): boolean =>
  a === null || b === null ? a === b : a.bytes.equals(b.bytes) && a.mode === b.mode;

/** The points a test can kill each operation at: journal durable, each file written, refs moved. */
const POINTS = {
  confirm: { journal: 'confirm.journal-written', file: 'confirm.file-written', done: 'confirm.ref-updated' },
  write: { journal: 'write.recorded', file: 'write.file-written', done: undefined },
} as const;

export interface Operation {
  op: JournalOp;
  files: Replacement[];
  /** the refs `commit` moves: all moved means the operation completed */
  refs: RefMove[];
  /** the refs to delete if it is undone: after a crash (recover.ts), or here once a failure put every file back */
  drop?: RefMove[];
}

/**
 * Journals, writes every file, then runs `commit` (the ref transaction that records the operation). Throws, with
 * every written file put back, if a write or the commit fails. A file whose directory could not be synced was
 * still replaced: the operation completes and the NotDurableError is thrown after it.
 */
export const applyFiles = async (store: Store, o: Operation, commit: () => Promise<void>): Promise<void> => {
  const drop = o.drop ?? [];
  const { files } = o;
  const points = POINTS[o.op];
  const journal = await writeJournal(store, {
    version: 1,
    op: o.op,
    pid: process.pid,
    started: Date.now(),
    files: files.map(journalFile),
    refs: o.refs,
    drop,
  });
  await failpoint(points.journal);
  const written: Replacement[] = [];
  let notDurable: NotDurableError | undefined;
  const undo = async (error: unknown, at: string, verb: string): Promise<never> => {
    const stuck = await putBack(written.map((w) => ({ file: w.file, from: w.from, to: w.to })));
    // A file left with the operation's bytes keeps the journal (and the records), so recovery and `fettle doctor`
    // see it; once all are back, records that would claim the write go.
    if (stuck.length === 0) {
      if (drop.length > 0)
        await updateRefs(
          store,
          drop.map((d) => ({ op: 'delete' as const, ref: d.ref, old: d.old })),
          `fettle: ${o.op} failed`,
        ).catch(() => undefined);
      await removeJournal(journal);
    }
    throw failedMidway(error, { file: at, verb, done: 'written' }, written.length, stuck);
  };
  for (const r of files) {
    if (same(r.from, r.to)) continue;
    try {
      await putFile(r.file, r.to, r.from);
    } catch (error) {
      if (!(error instanceof NotDurableError)) {
        // A failure after the rename (the directory sync) still left the new bytes: those are put back too.
        if (same(await readDisk(r.file).catch(() => null), r.to)) written.push(r);
        return undo(error, r.file, 'written');
      }
      notDurable ??= error;
    }
    written.push(r);
    await failpoint(points.file);
  }
  try {
    await commit();
  } catch (error) {
    return undo(error, written[written.length - 1]?.file ?? 'the change', 'recorded as applied');
  }
  if (points.done) await failpoint(points.done);
  await removeJournal(journal);
  if (notDurable) throw notDurable;
};
