// `packed-refs.lock` as fettle's maintenance takes it, so that one a killed fettle left behind can be told from
// anyone else's. A lock left there blocks every ref deletion in the repository (`git branch -d`, `git fetch
// --prune`): git's own lock files name no holder, so fettle proves its ownership beside it, in its own directory:
//   - `fettle/packed-refs-lock.owner`: the holder (pid, the process's start time from /proc where there is one,
//     the host), written and fsynced before the lock exists;
//   - `fettle/packed-refs-lock.held`: a second name (hard link) of the lock file itself. The lock is made by
//     link(2) from it, which fails if the lock exists, as O_EXCL does. A lock whose inode is this file's is the
//     one fettle made; while this name exists the inode cannot be reused, so no later lock of git's can match.
// The lock goes (renamed over packed-refs, or removed) before either record, so the lock at the path is fettle's
// exactly when `held` names the same file. The steps from the records to `own` are synchronous: no event-loop
// turn, so no signal handler (io/cleanup.ts), runs between them.
import { closeSync, fsyncSync, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { disown, own } from '../io/cleanup';
import { makeOwnDir } from '../io/fettle-dir';
import { isAlive, processStat } from '../io/pid';

export const packedLockPath = (commonDir: string): string => join(commonDir, 'packed-refs.lock');
const ownerPath = (commonDir: string): string => join(commonDir, 'fettle', 'packed-refs-lock.owner');
const heldPath = (commonDir: string): string => join(commonDir, 'fettle', 'packed-refs-lock.held');

interface Owner {
  pid: number;
  /** the process's start time (clock ticks since boot), where /proc has it */
  start?: string;
  host: string;
}

const removeFile = (path: string): void => {
  disown(path);
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
};

const synced = (path: string, text?: string): void => {
  const fd = openSync(path, text === undefined ? 'r' : 'w', 0o600);
  try {
    if (text !== undefined) writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/** Errors of link(2) on a file system without hard links: packing waits for git's own `pack-refs` there. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/**
 * Takes packed-refs.lock with its owner record. 'held' when the lock (or a record of an earlier fettle's, which
 * recovery has not cleared) is there; a reason when the file system cannot link. The caller holds fettle's
 * maintenance lock, so no other fettle takes it meanwhile.
 */
export const takePackedLock = async (commonDir: string): Promise<'taken' | 'held' | string> => {
  const [lock, held, owner] = [packedLockPath(commonDir), heldPath(commonDir), ownerPath(commonDir)];
  await makeOwnDir(dirname(held));
  try {
    closeSync(openSync(held, 'wx', 0o666));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'held';
    throw error;
  }
  try {
    const start = processStat(process.pid)?.start;
    synced(owner, `${JSON.stringify({ pid: process.pid, ...(start ? { start } : {}), host: hostname() })}\n`);
    // Both records durable before the lock exists: after a power loss a lock is never there without them.
    synced(dirname(held));
    linkSync(held, lock);
  } catch (error) {
    removeFile(owner);
    removeFile(held);
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return 'held';
    if (NO_LINKS.has(code)) return `the file system cannot hard-link packed-refs.lock (${code})`;
    throw error;
  }
  // In this order, so a signal handler removes the lock before the records that prove it fettle's.
  own(lock);
  own(held);
  own(owner);
  return 'taken';
};

/** After the lock is gone (renamed over packed-refs, or removed): the records that named it go too. */
export const dropPackedLockRecords = (commonDir: string): void => {
  disown(packedLockPath(commonDir));
  removeFile(heldPath(commonDir));
  removeFile(ownerPath(commonDir));
};

const sameFile = (a: string, b: string): boolean => {
  const [x, y] = [lstatSync(a, { throwIfNoEntry: false }), lstatSync(b, { throwIfNoEntry: false })];
  return !!x && !!y && x.dev === y.dev && x.ino === y.ino;
};

const readOwner = (commonDir: string): Owner | null => {
  try {
    const o = JSON.parse(readFileSync(ownerPath(commonDir), 'utf8')) as Partial<Owner>;
    return Number.isInteger(o.pid) && (o.pid as number) > 0 && typeof o.host === 'string' ? (o as Owner) : null;
  } catch {
    return null;
  }
};

/** Whether the process a record names is gone: dead, or its pid now names a process started at another time. */
const ownerGone = (o: Owner): boolean => {
  if (o.host !== hostname()) return false; // another machine's pid says nothing here
  if (!isAlive(o.pid)) return true;
  const now = processStat(o.pid)?.start;
  return o.start !== undefined && now !== undefined && now !== o.start;
};

export type PackedLock =
  | { state: 'none' }
  /** made by fettle: `gone` when its process is, and the lock is then safe to remove */
  | { state: 'fettle'; pid: number; gone: boolean; ageMs: number; host?: string }
  /** git's, another program's, or fettle's without a record to prove it: only a person may remove it */
  | { state: 'other'; ageMs: number };

/** Who holds packed-refs.lock. Only reads. */
export const packedLockState = (commonDir: string, nowMs: number): PackedLock => {
  const info = lstatSync(packedLockPath(commonDir), { throwIfNoEntry: false });
  if (!info) return { state: 'none' };
  const ageMs = Math.max(0, nowMs - info.mtimeMs);
  const owner = readOwner(commonDir);
  if (!owner || !sameFile(packedLockPath(commonDir), heldPath(commonDir))) return { state: 'other', ageMs };
  const host = owner.host === hostname() ? {} : { host: owner.host };
  return { state: 'fettle', pid: owner.pid, gone: ownerGone(owner), ageMs, ...host };
};

/**
 * Removes packed-refs.lock when a fettle whose process is gone made it, and the records of a fettle killed
 * around it; a lock anyone else may hold is left alone. Returns whether a lock was removed. Run under fettle's
 * maintenance lock, so no fettle takes packed-refs.lock meanwhile.
 */
export const recoverPackedLock = (commonDir: string): boolean => {
  const [lock, held, ownerFile] = [packedLockPath(commonDir), heldPath(commonDir), ownerPath(commonDir)];
  const owner = readOwner(commonDir);
  const heldThere = lstatSync(held, { throwIfNoEntry: false }) !== undefined;
  const ownerThere = lstatSync(ownerFile, { throwIfNoEntry: false }) !== undefined;
  if (!heldThere && !ownerThere) return false;
  if (owner && !ownerGone(owner)) return false; // its maintenance is still at work (or on another host)
  let removed = false;
  if (sameFile(lock, held)) {
    // Without an owner record the lock cannot be fettle's: the record is written before the link.
    if (!owner) return false;
    try {
      unlinkSync(lock);
      removed = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  removeFile(held);
  removeFile(ownerFile);
  return removed;
};
