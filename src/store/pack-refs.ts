// fettle's own refs moved into `packed-refs`, as `git pack-refs --prune` would move them, and no other ref: git
// 2.39's pack-refs cannot be restricted to a prefix, and `--all` would pack the user's branches and tags. A loose
// ref is a file and a disk block each (4 KB for 41 bytes); a packed one is a line. The steps are git's own
// (refs/files-backend.c, files_pack_refs and prune_ref), so every git and fettle process stays correct while
// they run:
//   1. take `packed-refs.lock` exclusively (held: git or another fettle is at work; skip this round), with a record
//      that proves it fettle's should this process be killed holding it (store/packed-refs-lock.ts). Every ref
//      deletion takes it too, so no ref can be deleted while its loose value is being packed;
//   2. read the loose refs under the lock, write `packed-refs` with them added and every other record kept byte
//      for byte into the lock file (git writes a `packed-refs.new` beside the lock instead: a file a crash could
//      leave behind, which git's next write would trip on), fsync it, rename it over `packed-refs` (which releases
//      the lock), fsync the directory;
//   3. delete each loose ref only under its own `<ref>.lock` and only if it still holds the value packed (a ref
//      moved meanwhile stays loose, and the loose value wins over the packed one, as in git).
// A crash after 2 leaves each ref both packed and loose with the same value: what git reads is unchanged.
import { REF_ROOTS, refRootEntries } from './ref-roots';
import { constants } from 'node:fs';
import { chmodSync, renameSync, unlinkSync } from 'node:fs';
import { lstat, open, readdir, readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePackedRefs, withRefs } from '../core/packed-refs';
import { disown, own } from '../io/cleanup';
import { failpoint } from '../io/failpoint';
import { fsyncPath } from '../io/atomic-write';
import { dropPackedLockRecords, takePackedLock } from './packed-refs-lock';
import type { Store } from './store';

export interface PackRefsReport {
  /** refs written into packed-refs (new or with a new value) */
  packed: number;
  /** loose ref files deleted */
  pruned: number;
  /** why nothing was done */
  skipped?: string;
}

const VALUE = /^([0-9a-f]{40}|[0-9a-f]{64})\n$/;
/** Names git itself would accept, and nothing unusual: any other ref under fettle's roots stays loose. */
const NAME = /^refs\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const safeName = (name: string): boolean => NAME.test(name) && !name.includes('..') && !/\.lock(\/|$)/.test(name);

/** Every loose ref under fettle's roots that looks like a plain ref (not a symref, not a lock), with its value. */
const looseRefs = async (commonDir: string): Promise<Map<string, string>> => {
  const found = new Map<string, string>();
  for (const { name, isFile } of await refRootEntries(commonDir)) {
    if (!isFile || !safeName(name)) continue;
    const m = VALUE.exec(await readFile(join(commonDir, name), 'latin1').catch(() => ''));
    if (m) found.set(name, m[1] as string);
  }
  return found;
};

/** How many loose refs fettle has: one readdir per directory under its roots, no file read. */
export const countLooseRefs = async (store: Store): Promise<number> =>
  (await refRootEntries(store.commonDir)).filter((e) => !e.name.endsWith('.lock')).length;

/** The oids among `oids` that name commits in the object store (a ref to anything else would need a `^` line). */
const commits = async (store: Store, oids: Set<string>): Promise<Set<string>> => {
  const input = [...oids].map((o) => `${o}\n`).join('');
  const out = await store.git.text({ args: ['cat-file', '--batch-check=%(objectname) %(objecttype)'], input });
  return new Set(
    out
      .split('\n')
      .map((l) => l.split(' '))
      .filter(([, type]) => type === 'commit')
      .map(([oid]) => oid as string),
  );
};

const refStorage = async (store: Store): Promise<string | null> =>
  (await store.git.text({ args: ['config', '--get', 'extensions.refStorage'], okCodes: [1] })) || null;

/** Moves fettle's loose refs into packed-refs and deletes the loose files still holding the value packed. */
export const packOwnRefs = async (store: Store): Promise<PackRefsReport> => {
  const report: PackRefsReport = { packed: 0, pruned: 0 };
  const seen = await looseRefs(store.commonDir);
  if (seen.size === 0) return report;
  const backend = await refStorage(store);
  if (backend !== null && backend !== 'files') return { ...report, skipped: `refs are stored as ${backend}` };
  const packedPath = join(store.commonDir, 'packed-refs');
  if ((await lstat(packedPath).catch(() => null))?.isSymbolicLink())
    return { ...report, skipped: 'packed-refs is a symbolic link' };
  // Checked before the lock, so the lock is held for file work only: a value that changes after this is
  // not in the set, and stays loose until the next round.
  const ok = await commits(store, new Set(seen.values()));
  const taken = await takePackedLock(store.commonDir);
  if (taken !== 'taken') return { ...report, skipped: taken === 'held' ? 'packed-refs.lock is held' : taken };
  const packed = await writePacked(store, packedPath, ok, report);
  if (report.skipped) return report;
  await failpoint('pack-refs.renamed');
  for (const [name, oid] of packed) if (await prune(store.commonDir, name, oid)) report.pruned++;
  for (const root of REF_ROOTS) await removeEmptyDirs(join(store.commonDir, root), true);
  return report;
};

const releaseLock = (lock: string): void => {
  disown(lock);
  try {
    unlinkSync(lock);
  } catch {
    // already gone
  }
};

/**
 * Under packed-refs.lock: the loose refs read again, the new file written into the lock and renamed over
 * packed-refs. Returns the refs now packed with the value their loose file held. The lock is released on every
 * path: by the rename, or removed (only before the rename: after it, a lock file there is another process's).
 */
const writePacked = async (
  store: Store,
  packedPath: string,
  commitOids: Set<string>,
  report: PackRefsReport,
): Promise<Map<string, string>> => {
  const lock = `${packedPath}.lock`;
  let renamed = false;
  try {
    await failpoint('pack-refs.locked');
    const loose = await looseRefs(store.commonDir);
    const text = await readFile(packedPath, 'latin1').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const file = parsePackedRefs(text);
    if (!file) {
      report.skipped = 'packed-refs is not in a format fettle knows';
      return new Map();
    }
    const current = new Map(file.records.map((r) => [r.name, r.oid]));
    const packable = new Map([...loose].filter(([, oid]) => commitOids.has(oid)));
    const changed = new Map([...packable].filter(([name, oid]) => current.get(name) !== oid));
    if (changed.size === 0) return packable;
    const mode = await modeFor(store, packedPath, [...changed.keys()][0] as string);
    const handle = await open(lock, 'w');
    try {
      await handle.writeFile(withRefs(file, changed), 'latin1');
      await handle.sync();
    } finally {
      await handle.close();
    }
    chmodSync(lock, mode);
    // The rename is the commit and releases the lock; disowned in the same turn, so a signal handler never
    // removes a lock another process has taken since.
    renameSync(lock, packedPath);
    renamed = true;
    dropPackedLockRecords(store.commonDir);
    report.packed = changed.size;
    await fsyncPath(store.commonDir);
    return packable;
  } finally {
    if (!renamed) releaseLock(lock);
    dropPackedLockRecords(store.commonDir);
  }
};

/** packed-refs keeps its permission bits; a new one gets a loose ref's (git made it with the repository's). */
const modeFor = async (store: Store, packedPath: string, someRef: string): Promise<number> => {
  const info = (await stat(packedPath).catch(() => null)) ?? (await stat(join(store.commonDir, someRef)));
  return info.mode & 0o666;
};

/** Deletes the loose file of `name` under its lock, if it still holds `oid`. */
const prune = async (commonDir: string, name: string, oid: string): Promise<boolean> => {
  const path = join(commonDir, name);
  const lock = `${path}.lock`;
  try {
    const handle = await open(lock, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o666);
    own(lock);
    await handle.close();
  } catch {
    return false; // held by git or fettle (or the directory is gone): the ref stays loose
  }
  try {
    if ((await readFile(path, 'latin1').catch(() => '')) !== `${oid}\n`) return false;
    await unlink(path);
    return true;
  } finally {
    releaseLock(lock);
  }
};

/** Removes empty directories below `dir` (not `dir` itself when it is a root); git recreates what it needs. */
const removeEmptyDirs = async (dir: string, root: boolean): Promise<void> => {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => []))
    if (entry.isDirectory()) await removeEmptyDirs(join(dir, entry.name), false);
  if (!root) await rmdir(dir).catch(() => undefined);
};
