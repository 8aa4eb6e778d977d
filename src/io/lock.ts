// A git-style lock file: O_CREAT|O_EXCL makes a second holder fail; the file records the holder's pid so a
// lock left behind by a killed process can be taken over, while a live holder's lock never is.
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { readFile, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FettleError } from '../errors';
import { disown, own } from './cleanup';
import { isAlive } from './pid';
import { makeOwnDir } from './fettle-dir';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A lock file is created empty and its pid written at once; one still empty after this was left by a kill. */
const EMPTY_STALE_MS = 2_000;

const holderOf = async (lockPath: string): Promise<number> =>
  Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);

/**
 * Creates `path` only if it does not exist (O_EXCL), holding `content` (this process's pid); false if it exists.
 * Synchronous on purpose: a signal's handler (io/cleanup.ts) runs only between event-loop turns, so between the
 * create and `own` there is no turn in which a SIGTERM could leave a lock nobody removes, and the pid is in the
 * file before anyone can read it empty.
 */
export const createExclusive = async (path: string, track = false, content = `${process.pid}\n`): Promise<boolean> => {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  if (track) own(path);
  try {
    writeSync(fd, content);
  } catch (error) {
    // A lock nobody can read a holder from would wait out EMPTY_STALE_MS for every later taker.
    unlinkSync(path);
    disown(path);
    throw error;
  } finally {
    closeSync(fd);
  }
  return true;
};

/** A breaker is held for microseconds; one older than this belongs to a process killed while holding it. */
const BREAKER_STALE_MS = 10_000;

/**
 * Removes a lock whose holder is dead. Two waiters may both see the dead pid; without a guard the slower one
 * would delete the lock the faster one has just taken. The breaker file serialises take-overs, and the pid is
 * re-read under it.
 */
const breakStaleLock = async (lockPath: string, seen: number): Promise<void> => {
  const breaker = `${lockPath}.break`;
  if (!(await createExclusive(breaker))) {
    const age = await stat(breaker).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > BREAKER_STALE_MS) await unlink(breaker).catch(() => undefined);
    return;
  }
  try {
    // Still the same holder (a dead pid, or still no pid at all): nobody took it over meanwhile.
    const now = await holderOf(lockPath);
    if (now === seen || (Number.isNaN(now) && Number.isNaN(seen))) await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
};

export interface LockOptions {
  /** how long to wait for a live holder, in ms */
  timeoutMs?: number;
}

export const withLock = async <T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> => {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  await makeOwnDir(dirname(lockPath));
  for (let attempt = 0; !(await createExclusive(lockPath, true)); attempt++) {
    const holder = await holderOf(lockPath);
    const dead = Number.isInteger(holder) && holder > 0 && !isAlive(holder);
    const abandoned =
      Number.isNaN(holder) &&
      (await stat(lockPath).then(
        (s) => Date.now() - s.mtimeMs > EMPTY_STALE_MS,
        () => false,
      ));
    if (dead || abandoned) {
      // The holder died without cleaning up (SIGKILL cannot be caught), possibly before writing its pid.
      await breakStaleLock(lockPath, holder);
      continue;
    }
    if (Date.now() > deadline) {
      throw new FettleError(
        'E_LOCKED',
        `${lockPath} is held by another fettle process${holder > 0 ? ` (pid ${holder})` : ''}.`,
        {
          hint: 'Wait for it to finish and retry. If no fettle process is running, delete the lock file.',
        },
      );
    }
    // Quadratic backoff with jitter, as git's lock_file_timeout does.
    await sleep(Math.min(100, 1 + attempt * attempt) * (0.75 + Math.random() / 2));
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => undefined);
    disown(lockPath);
  }
};

/** Several locks, taken in one global order (sorted), so two commands that lock several files cannot deadlock. */
export const withLocks = <T>(lockPaths: readonly string[], fn: () => Promise<T>): Promise<T> => {
  const [first, ...rest] = [...new Set(lockPaths)].sort();
  return first === undefined ? fn() : withLock(first, () => withLocks(rest, fn));
};
