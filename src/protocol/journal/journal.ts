// The journal of an operation that replaces several files (a confirm of a changeset, of a session, of --all):
// written and fsynced under `<git-common-dir>/fettle/journal/` before the first file is replaced, removed once
// the operation's refs have moved. A process killed in between leaves it, and the next fettle command reads it
// back (recover.ts): which files, the bytes each held before (a blob some ref reaches) and the bytes it was
// given (only their id: the disk is compared by hash), and the refs whose move completes the operation.
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncPath } from '../../io/atomic-write';
import { makeOwnDir } from '../../io/fettle-dir';
import type { Store } from '../../store/store';
import { fettleDir } from '../../store/worktrees';

export interface JournalFile {
  /** the change the file belongs to */
  id: string;
  /** the real path replaced, and its path in the store's trees */
  file: string;
  path: string;
  /** what the file held before (null: absent): a blob reachable from a ref, and the permission bits */
  from: { oid: string; mode: number } | null;
  /** what the operation writes: the blob id of the bytes (compared by hashing the disk) and the mode; null: it
   * removes the file */
  to: { oid: string; mode: number } | null;
}

export interface RefMove {
  ref: string;
  /** its value before the operation */
  old: string;
}

export type JournalOp = 'confirm' | 'write';

export interface Journal {
  version: 1;
  /** a confirm of staged changes, or a direct write of several files (`fettle write --from`) */
  op: JournalOp;
  pid: number;
  /** epoch milliseconds */
  started: number;
  files: JournalFile[];
  /** the refs the operation moves once every file is written: all moved means it completed */
  refs: RefMove[];
  /** refs deleted when it is undone: records that would claim a write that did not happen */
  drop: RefMove[];
}

export const journalDir = (store: Store): string => join(fettleDir(store), 'journal');

/**
 * Writes the journal durably under a new name: created exclusively, written, fsynced, and its directory fsynced.
 * No temp file and rename: a journal cut short by a crash does not parse, and one that does not parse was never
 * complete, so no file had been replaced yet (recover.ts drops it). Returns its path.
 */
export const writeJournal = async (store: Store, journal: Journal): Promise<string> => {
  const dir = journalDir(store);
  await makeOwnDir(dir);
  const path = join(dir, `${journal.op}-${journal.pid}-${randomBytes(4).toString('hex')}.json`);
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(journal)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsyncPath(dir);
  return path;
};

/** Removed once the operation is complete or undone; losing the unlink in a power cut only means recovery finds it done. */
export const removeJournal = (path: string): Promise<void> => unlink(path).catch(() => undefined);

export interface FoundJournal {
  path: string;
  /** the writing process, from the name (a journal that does not parse still names it) */
  pid: number;
  /** null: cut short by a crash while it was written */
  journal: Journal | null;
}

const NAME = /^(?:confirm|write)-(\d+)-[0-9a-f]+\.json$/;

const parse = (text: string): Journal | null => {
  try {
    const j = JSON.parse(text) as Journal;
    return j.version === 1 && Array.isArray(j.files) && Array.isArray(j.refs) && Array.isArray(j.drop) ? j : null;
  } catch {
    return null;
  }
};

/** Every journal in the store: one readdir, and nothing more when there is none (the usual case). */
export const findJournals = async (store: Store): Promise<FoundJournal[]> => {
  const dir = journalDir(store);
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: FoundJournal[] = [];
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1]);
    if (!(pid > 0)) continue;
    const text = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (text !== null) found.push({ path: join(dir, name), pid, journal: parse(text) });
  }
  return found;
};
