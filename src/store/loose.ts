// Objects written in process, in git's loose format: zlib("<type> <size>\0<body>") stored at
// objects/<first 2 hex>/<rest>. Spawning `hash-object -w`, `mktree` and `commit-tree` cost one process start
// each on every agent write (docs/PERFORMANCE.md); the format is git's stable on-disk contract.
// Durability: the temp file is fsynced before the rename and each directory touched after it (git itself,
// with core.fsync=loose-object, syncs the file but not the directory). The calls are synchronous: a handful of
// small files, where a round trip through libuv's thread pool per call costs more than the call.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  chmodSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
import { hashObject } from './tree-codec';

export interface LooseTarget {
  /** <common-dir>/objects */
  objectsDir: string;
  objectFormat: 'sha1' | 'sha256';
  /** zlib level (core.looseCompression); git's default is 1 */
  level?: number;
}

export interface NewObject {
  type: 'blob' | 'tree' | 'commit';
  body: Buffer;
  /** the id, when the caller already hashed `body` (tree-codec does): not hashed again */
  oid?: string;
  /**
   * Permission bits of the file these bytes come from: an object is never readable by more people than the file
   * was (a 0600 `.env` gives a 0400 object, where objects are otherwise 0444).
   */
  fileMode?: number;
}

/** git's default core.looseCompression: speed over size; git gc repacks loose objects anyway. */
const DEFAULT_LEVEL = 1;

/** A directory a prune removed since (with what this process wrote in it) needs no sync: see ensureObjects. */
const syncDir = (dir: string): void => {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/**
 * Loose objects are read-only. The read bits follow the objects directory's, so a repository shared with a
 * group (core.sharedRepository, which makes that directory group-readable) stays readable by the group
 * whatever this process's umask.
 */
const fileModeFor = (objectsDir: string): number => 0o444 & (statSync(objectsDir).mode | 0o400);

/** Whether `fn` ran without throwing (an fs call that may find nothing to act on). */
const succeeds = (fn: () => void): boolean => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

/** Bytes given to a writer as they are produced. */
type Produce = (write: (chunk: Buffer) => void) => Promise<void>;

/**
 * Writes what `produce` gives under a temp name in `dir`, fsyncs it and renames it to `path`; false when a
 * prune took the temp file or its directory meanwhile.
 */
const placeOnce = async (dir: string, path: string, produce: Produce, mode: number): Promise<boolean> => {
  const temp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  let fd: number;
  try {
    fd = openSync(temp, 'wx', mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // the directory went (prune removes empty ones)
    throw error;
  }
  try {
    await produce((chunk) => {
      for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done);
    });
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    succeeds(() => unlinkSync(temp));
    throw error;
  }
  closeSync(fd);
  try {
    // Another writer may have stored the same object meanwhile: same id, same bytes, so replacing it is harmless.
    renameSync(temp, path);
    return true;
  } catch (error) {
    succeeds(() => unlinkSync(temp));
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
};

/**
 * Bodies from this size are compressed as a stream, header then body, each compressed chunk written to the file
 * as it comes: a 100 MB file is neither copied once more nor held a second time, compressed. Below it one
 * synchronous call is faster (a 5 MB file: ~10 ms less than the stream's round trips through the thread pool).
 */
const STREAM_FROM = 16 << 20;
const STREAM_CHUNK = 1 << 20;

/** zlib of the object's header and body. */
const compressed = (object: NewObject, level: number): Produce => {
  const header = Buffer.from(`${object.type} ${object.body.length}\0`, 'latin1');
  if (object.body.length < STREAM_FROM) {
    const data = deflateSync(Buffer.concat([header, object.body]), { level });
    return async (write) => write(data);
  }
  return (write) =>
    new Promise((resolve, reject) => {
      const z = createDeflate({ level, chunkSize: STREAM_CHUNK });
      z.on('data', (chunk: Buffer) => {
        try {
          write(chunk);
        } catch (error) {
          z.destroy(error as Error);
        }
      });
      z.on('end', () => resolve());
      z.on('error', reject);
      z.write(header);
      z.end(object.body);
    });
};

/** `git prune --expire=now` deletes tmp_ files and empty object directories whatever their age. */
const PLACE_ATTEMPTS = 5;

/**
 * An object already stored loose is only freshened (its mtime, as git does) so that a prune with an expiry
 * keeps it; otherwise it is written under a `tmp_obj_` name, which `git gc` sweeps if this process dies
 * before the rename, and renamed into place. Returns the new object's id.
 */
const writeOne = async (
  target: LooseTarget,
  object: NewObject,
  mode: number,
  touched: Set<string>,
): Promise<string> => {
  const oid = object.oid ?? hashObject(object.type, object.body, target.objectFormat);
  const dir = join(target.objectsDir, oid.slice(0, 2));
  const path = join(dir, oid.slice(2));
  const now = new Date();
  if (succeeds(() => utimesSync(path, now, now))) return oid;
  const produce = compressed(object, target.level ?? DEFAULT_LEVEL);
  for (let attempt = 1; ; attempt++) {
    try {
      mkdirSync(dir);
      touched.add(target.objectsDir);
      // As git does (core.sharedRepository): the new directory gets the objects directory's permissions, so a
      // group sharing the repository can write beside fettle's objects (mkdir's mode is cut by the umask). A
      // prune may remove the still-empty directory first: placing the object below notices and makes it again.
      chmodSync(dir, statSync(target.objectsDir).mode & 0o7777);
    } catch (error) {
      if (!['EEXIST', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
    const readers = object.fileMode === undefined ? mode : mode & ((object.fileMode & 0o444) | 0o400);
    if (await placeOnce(dir, path, produce, readers)) break;
    if (attempt >= PLACE_ATTEMPTS)
      throw Object.assign(new Error(`${path}: a concurrent prune kept deleting it while it was written`), {
        code: 'ENOENT',
      });
  }
  touched.add(dir);
  return oid;
};

/** Writes the objects, then syncs every directory that gained an entry; returns their ids, in order. */
export const writeLoose = async (target: LooseTarget, objects: NewObject[]): Promise<string[]> => {
  if (objects.length === 0) return [];
  const mode = fileModeFor(target.objectsDir);
  const touched = new Set<string>();
  const oids: string[] = [];
  for (const object of objects) oids.push(await writeOne(target, object, mode, touched));
  // Children before parents: an object directory is synced before the objects directory that names it.
  for (const dir of [...touched].sort((a, b) => b.length - a.length)) syncDir(dir);
  return oids;
};
