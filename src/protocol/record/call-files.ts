// Files kept per tool call under fettle's folders, and the two ways a process makes one its own:
//   - made once: created exclusively, holding the creator's pid (markCall), so of a retried PreToolUse or two
//     installed fettles exactly one goes on; a marker whose creator died is taken over by the next (its pid says so);
//   - taken once: renamed to a name of the taker (claimFile), so of a PostToolUse and a settling of the same call
//     exactly one settles it; a file taken by a process that died is put back (reclaimDead).
// Each is named by its session's tag, then the call's (callFileName), so the end of a turn finds a session's own.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createExclusive } from '../../io/lock';
import { isAlive } from '../../io/pid';

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** The prefix of every file of one session. */
export const sessionTag = (session: string | undefined): string => `${sha1(session ?? '').slice(0, 12)}-`;

/** A call's file: its session's tag, then a hash of what identifies the call. */
export const callFileName = (session: string | undefined, call: string): string =>
  `${sessionTag(session)}${sha1(call).slice(0, 24)}.json`;

/** Creates `path` exclusively, holding this process's pid; false when it exists. */
export const markCall = (path: string): Promise<boolean> =>
  createExclusive(path, false, JSON.stringify({ pid: process.pid }));

/** Whether a marker's creator is gone: its pid is dead, or, before it wrote one, it is older than `emptyMs`. */
export const creatorGone = (marker: { pid?: unknown } | null, ageMs: number, emptyMs: number): boolean =>
  typeof marker?.pid === 'number' ? !isAlive(marker.pid) : ageMs >= emptyMs;

const TAKEN = /^(.+\.json)\.(\d+)\.[0-9a-f]+\.taken$/;

/** A claimed file: what it holds, and what to do with it once the claimer is done. */
export interface ClaimedFile<T> {
  value: T;
  /** the work is done: the file goes */
  release: () => Promise<void>;
  /** the work failed: the file is put back for the next try */
  restore: () => Promise<void>;
}

/**
 * Takes the file at `path`: renamed to a name of this process, so that of several processes after the same file
 * exactly one gets it. It stays under that name until released, so a process killed before it finished leaves it
 * for the next one (reclaimDead takes back the files of dead processes). Null when another took it, or it does
 * not hold what `valid` accepts (then it is removed).
 */
export const claimFile = async <T>(
  path: string,
  valid: (value: unknown) => value is T,
): Promise<ClaimedFile<T> | null> => {
  const mine = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.taken`;
  // Synchronous: a small file on a call's path, where a round trip through libuv's thread pool costs more.
  try {
    renameSync(path, mine);
  } catch {
    return null;
  }
  const release = async () => {
    try {
      unlinkSync(mine);
    } catch {
      // gone already
    }
  };
  try {
    const value: unknown = JSON.parse(readFileSync(mine, 'utf8'));
    if (valid(value)) return { value, release, restore: () => rename(mine, path).catch(() => undefined) };
  } catch {
    // not one: dropped below
  }
  await release();
  return null;
};

/** Files in `dir` taken by a process that is gone are put back under their own names, to be taken again. */
export const reclaimDead = async (dir: string): Promise<void> => {
  const all = await readdir(dir).catch(() => [] as string[]);
  for (const name of all) {
    const taken = TAKEN.exec(name);
    if (taken?.[1] && !isAlive(Number(taken[2])) && !all.includes(taken[1]))
      await rename(join(dir, name), join(dir, taken[1])).catch(() => undefined);
  }
};

/** A claimable JSON file (see claimFile) as read: what it holds, parsed but not yet checked. */
export interface OpenFile {
  path: string;
  value: unknown;
  /** when it was written (ms since the epoch) */
  writtenAt: number;
}

/**
 * The claimable files in `dir` whose name `wanted` accepts, after taking back those of dead claimers (reclaimDead).
 * Small files, read at once, no git; one that is unreadable or not JSON is skipped.
 */
export const openFiles = async (dir: string, wanted: (name: string) => boolean): Promise<OpenFile[]> => {
  await reclaimDead(dir);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && wanted(n));
  const found = await Promise.all(
    names.map(async (name): Promise<OpenFile | null> => {
      const path = join(dir, name);
      try {
        const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
        return { path, value: JSON.parse(text) as unknown, writtenAt: info.mtimeMs };
      } catch {
        return null;
      }
    }),
  );
  return found.filter((f): f is OpenFile => f !== null);
};
