// `<ref>.lock` files under fettle's ref roots (refs/fettle/, refs/fettle-discarded/). git takes one for each ref
// it moves and holds it for the milliseconds of the update (fettle's own git calls wait up to a second for one,
// core.filesRefLockTimeout); maintenance holds one for an instant per loose ref it prunes. One that is minutes
// old was left by a process killed while holding it: it blocks that one ref of fettle's, and nothing of the
// user's, so fettle may remove it from its own namespace once it is far older than any live holder's.
import { lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { refRootEntries } from './ref-roots';

/** Minutes, against a holder's milliseconds: a lock this old has no live holder (a stopped process aside). */
export const REF_LOCK_STALE_MS = 10 * 60_000;

export interface RefLock {
  /** relative to the git dir, as `refs/fettle/<id>.lock` */
  name: string;
  ageMs: number;
}

/** Every `*.lock` file under fettle's ref roots, with its age, by name. Only reads. */
export const refLocks = async (commonDir: string, nowMs: number): Promise<RefLock[]> => {
  const found: RefLock[] = [];
  for (const { name, isFile } of await refRootEntries(commonDir)) {
    if (!isFile || !name.endsWith('.lock')) continue;
    const info = await lstat(join(commonDir, name)).catch(() => null);
    if (info) found.push({ name, ageMs: Math.max(0, nowMs - info.mtimeMs) });
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
};

/** Removes the lock files under fettle's ref roots older than REF_LOCK_STALE_MS; returns their names. */
export const removeStaleRefLocks = async (commonDir: string, nowMs: number): Promise<string[]> => {
  const removed: string[] = [];
  for (const lock of await refLocks(commonDir, nowMs)) {
    if (lock.ageMs <= REF_LOCK_STALE_MS) continue;
    // Checked again just before: a lock git took since the walk under the same name is new.
    const info = await lstat(join(commonDir, lock.name)).catch(() => null);
    if (!info || nowMs - info.mtimeMs <= REF_LOCK_STALE_MS) continue;
    if (
      await unlink(join(commonDir, lock.name)).then(
        () => true,
        () => false,
      )
    )
      removed.push(lock.name);
  }
  return removed;
};
