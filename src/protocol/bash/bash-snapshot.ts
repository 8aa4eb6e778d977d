// Before a Bash command: what every path `git status` lists holds, kept so the command's changes can be undone.
// Tracked files that differ from the index or HEAD and untracked files that are not ignored have bytes that
// exist nowhere else, so each is kept as a blob (written in process, fsynced, as records write theirs), with the
// stat data that later tells whether it changed without reading it again. A file whose stat matches the cache of
// the last snapshot (and was not racy then) is not read again: its blob is known and only freshened.
import { type BigIntStats, lstatSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRacy, sameStat, type Disk, type FileStat, type PreEntry, type Side } from '../../core/bash-changes';
import type { StatusPath } from '../../core/porcelain';
import { gitModeOf, MAX_RECORDABLE_BYTES } from '../../io/atomic-write';
import { writeFileBlobsOf } from '../../store/objects';
import { freshenLoose, packOf } from '../../store/object-presence';
import type { Store } from '../../store/store';
import type { Cached } from './bash-cache';

export const statOf = (info: BigIntStats): FileStat => ({
  size: String(info.size),
  mtimeNs: String(info.mtimeNs),
  ctimeNs: String(info.ctimeNs),
  ino: String(info.ino),
  mode: Number(info.mode),
});

/**
 * What lstat says is at `path`: a regular file, something else (a link, a directory), or nothing. Synchronous:
 * an lstat costs microseconds on the calling thread, a round trip through libuv's thread pool tens of them,
 * and a snapshot makes one per listed path, one after another.
 */
export const diskAt = (path: string): Disk => {
  try {
    const info = lstatSync(path, { bigint: true });
    return { kind: info.isFile() ? 'file' : 'other', stat: statOf(info) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    throw error;
  }
};

/** A snapshot reads and writes at most this many bytes of files it has not seen before; the rest are not kept. */
export const READ_BUDGET_BYTES = 256 * 1024 * 1024;
export interface Limits {
  /** files larger are not read */
  maxBytes: number;
  /** at most this many files are read */
  maxFiles: number;
}

/** Files to read: each path with the stat that planned the read. */
export type ToRead = { path: string; stat: FileStat }[];

/**
 * Reads the files and writes their blobs, a batch at a time. Returns each path's blob (with the git mode of the
 * stat it was planned with), or null for a file that went or stopped being a regular file meanwhile.
 */
export const readIntoStore = (
  store: Store,
  root: string,
  files: ToRead,
): Promise<Map<string, { mode: string; oid: string } | null>> => {
  const stats = new Map(files.map((f) => [f.path, f.stat]));
  return writeFileBlobsOf(
    store,
    files.map((f) => f.path),
    async (path) => {
      const mode = (stats.get(path) as FileStat).mode;
      const bytes = await readFile(join(root, ...path.split('/'))).catch((error: NodeJS.ErrnoException) => {
        if (['ENOENT', 'ENOTDIR', 'EISDIR', 'ELOOP'].includes(error.code ?? '')) return null;
        throw error;
      });
      return bytes && { bytes, fileMode: mode & 0o777, mode: gitModeOf(mode) };
    },
  );
};

/** Over the file cap (and never over what fettle can hold at all). */
export const tooLarge = (stat: FileStat, maxBytes: number): boolean =>
  Number(stat.size) > Math.min(maxBytes, MAX_RECORDABLE_BYTES);

/** Freshens what the cache names, each pack once however many of its blobs the cache names (see freshenLoose). */
const freshener = (store: Store): ((c: Cached) => Promise<boolean>) => {
  const freshened = new Map<string, Promise<boolean>>();
  return (c) => {
    const key = c.pack ?? c.oid;
    let done = freshened.get(key);
    if (!done) freshened.set(key, (done = freshenLoose(store, c.oid, c.pack)));
    return done;
  };
};

/**
 * The snapshot's entries for the paths `git status` listed, and the stat cache for the next one. `startNs`: the
 * filesystem's clock when the snapshot began (files changed within the slack of it are racy).
 */
export const snapshotEntries = async (
  store: Store,
  paths: StatusPath[],
  o: Limits & { startNs: bigint; cache: Map<string, Cached> },
): Promise<{ entries: PreEntry[]; cache: Map<string, Cached> }> => {
  const root = store.workTree;
  const entries: PreEntry[] = [];
  const toRead: ToRead = [];
  let budget = READ_BUDGET_BYTES;
  const fresh = freshener(store);
  for (const p of [...paths].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const disk = diskAt(join(root, ...p.path.split('/')));
    if (disk.kind === 'absent') {
      entries.push({ path: p.path, side: { kind: 'absent' } });
      continue;
    }
    const { stat } = disk;
    const racy = isRacy(stat, o.startNs);
    const entry = (side: Side): PreEntry => ({ path: p.path, side, stat, ...(racy ? { racy } : {}) });
    const cached = o.cache.get(p.path);
    const index = p.index;
    if (disk.kind === 'other') entries.push(entry({ kind: 'unkept', why: 'not-a-file' }));
    else if (p.matchesIndex && index && (index.mode === '100644' || index.mode === '100755'))
      entries.push(entry({ kind: 'blob', leaf: index }));
    else if (cached && sameStat(cached.stat, stat) && (await fresh(cached)))
      entries.push(entry({ kind: 'blob', leaf: { mode: gitModeOf(stat.mode), oid: cached.oid } }));
    else if (tooLarge(stat, o.maxBytes)) entries.push(entry({ kind: 'unkept', why: 'too-large' }));
    else if (toRead.length >= o.maxFiles || Number(stat.size) > budget)
      entries.push(entry({ kind: 'unkept', why: 'not-read' }));
    else {
      budget -= Number(stat.size);
      toRead.push({ path: p.path, stat });
      entries.push(entry({ kind: 'blob', leaf: { mode: '', oid: '' } })); // filled in below
    }
  }
  const read = await readIntoStore(store, root, toRead);
  const cache = new Map<string, Cached>();
  for (const [n, e] of entries.entries()) {
    if (e.side.kind === 'blob' && e.side.leaf.oid === '') {
      const leaf = read.get(e.path);
      entries[n] = leaf ? { ...e, side: { kind: 'blob', leaf } } : { path: e.path, side: { kind: 'absent' } };
    }
    const kept = entries[n] as PreEntry;
    // Only what a later stat can vouch for: a racy entry's bytes may change without its stat changing.
    if (kept.side.kind === 'blob' && kept.stat && !kept.racy) {
      const { oid } = kept.side.leaf;
      const before = o.cache.get(kept.path);
      const pack = packOf(oid) ?? (before?.oid === oid ? before.pack : undefined);
      cache.set(kept.path, { stat: kept.stat, oid, ...(pack ? { pack } : {}) });
    }
  }
  return { entries, cache };
};
