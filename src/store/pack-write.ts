// Objects written in process as one small pack per call: `objects/pack/pack-<checksum>.{pack,idx}`, git's
// pack format version 2 (whole objects, no deltas) and index version 2. A record's handful of objects (blob, the
// trees along the path, commits) then costs two files and three fsyncs, where loose objects cost a file and a
// directory sync each (5 objects: ~10 ms against ~1.3 ms on the disk measured, docs/PERFORMANCE.md). The
// format is git's stable on-disk contract (pack-format.ts); fettle's background maintenance rolls these packs up
// (protocol/upkeep/maintain.ts), so they never pile up.
// Durability: both temp files are fsynced, renamed (the index last: git finds a pack by its index), and the
// pack directory synced, before the call returns and so before any ref can name what they hold. A prune running
// beside it may delete the temp files first: written again once (writePack).
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { FettleError } from '../errors';
import { failpoint } from '../io/failpoint';
import {
  deflateInto,
  encodeIndex,
  entryHeader,
  type Entry,
  type ObjectType,
  PackFile,
  u32,
  writeAll,
} from './pack-format';
import { hashObject } from './tree-codec';

export interface PackTarget {
  /** <common-dir>/objects */
  objectsDir: string;
  objectFormat: 'sha1' | 'sha256';
  /**
   * zlib level (pack.compression, else core.compression); fettle's default is 1, fast. A roll-up copies the bytes
   * of objects it does not turn into deltas as they are, so they keep this level until a repack that recompresses
   * (`git gc --aggressive`, `git repack -F`)
   */
  level?: number;
  /** zlib level for trees, when it differs (repo-config.ts treeLevel) */
  treeLevel?: number;
}

export interface NewObject {
  type: ObjectType;
  body: Buffer;
  /** the id, when the caller already hashed `body` (tree-codec does): not hashed again */
  oid?: string;
  /**
   * Permission bits of the file these bytes come from: an object is never readable by more people than the file
   * was (a 0600 `.env` gives a 0400 pack, where packs are otherwise 0444).
   */
  fileMode?: number;
}

export interface WrittenPack {
  /** the objects' ids, in the order given */
  oids: string[];
  /** the pack's name (`pack-<checksum>`), or null when nothing was given */
  name: string | null;
}

const DEFAULT_LEVEL = 1;

const syncAll = (fds: number[]): Promise<void> =>
  Promise.all(
    fds.map((fd) => new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())))),
  ).then(() => undefined);

/** Through the thread pool: a server answering other calls meanwhile is not held up by this disk flush. */
const syncDir = async (dir: string): Promise<void> => {
  const fd = openSync(dir, 'r');
  try {
    await syncAll([fd]);
  } finally {
    closeSync(fd);
  }
};

const quietly = (fn: () => void): void => {
  try {
    fn();
  } catch {
    // already gone
  }
};

/**
 * Packs are read-only, with the read bits of the objects directory (a repository shared with a group stays
 * readable by the group), and no more readable than the least readable file whose bytes they hold.
 */
const modeFor = (objectsDir: string, objects: NewObject[]): number => {
  let mode = 0o444 & (statSync(objectsDir).mode | 0o400);
  for (const o of objects) if (o.fileMode !== undefined) mode &= (o.fileMode & 0o444) | 0o400;
  return mode;
};

const packDirOf = (objectsDir: string): string => {
  const dir = join(objectsDir, 'pack');
  try {
    mkdirSync(dir);
    chmodSync(dir, statSync(objectsDir).mode & 0o7777);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return dir;
};

export interface PackSteps {
  /**
   * another durable step (a ref's value being synced), awaited with the pack's own fsyncs, before the pack is
   * renamed into place: a failure there leaves no pack behind
   */
  alongside?: Promise<unknown> | undefined;
  /** run once the pack has its name, while its directory is synced (the pack's note for maintenance) */
  named?: ((name: string) => Promise<void>) | undefined;
}

/** What one attempt at writing a pack needs: everything but the temporary names, which each attempt draws. */
interface PackPlan {
  dir: string;
  mode: number;
  algorithm: string;
  target: PackTarget;
  unique: Map<string, NewObject>;
}

/**
 * git's prune (`git gc --prune=now`, `git prune`) deletes every tmp_* file in the pack directory however new:
 * the rename of a temporary file this process wrote finds it gone.
 */
const vanished = (error: unknown, temps: string[]): boolean => {
  const e = error as NodeJS.ErrnoException;
  return e?.code === 'ENOENT' && temps.includes(e.path ?? '');
};

/** One attempt: temp pack and index written and synced, renamed (the index last), the directory synced. */
const writeOnce = async (plan: PackPlan, { alongside, named }: PackSteps): Promise<{ name: string } | 'vanished'> => {
  const { dir, mode, algorithm, target } = plan;
  const tag = randomBytes(6).toString('hex');
  const tempPack = join(dir, `tmp_pack_${tag}`);
  const tempIndex = join(dir, `tmp_idx_${tag}`);
  const pack = new PackFile(tempPack, mode, algorithm);
  const open = [pack.fd];
  try {
    pack.write(Buffer.concat([Buffer.from('PACK'), u32(2), u32(plan.unique.size)]));
    const entries: Entry[] = [];
    for (const [oid, object] of plan.unique) {
      const offset = pack.offset;
      pack.crc = 0;
      pack.write(entryHeader(object.type, object.body.length));
      const level = object.type === 'tree' ? (target.treeLevel ?? target.level) : target.level;
      await deflateInto(pack, object.body, level ?? DEFAULT_LEVEL);
      entries.push({ oid: Buffer.from(oid, 'hex'), crc: pack.crc, offset });
    }
    const packSum = pack.finish();
    const index = encodeIndex(entries, packSum, algorithm);
    const indexFd = openSync(tempIndex, 'wx', mode);
    open.push(indexFd);
    fchmodSync(indexFd, mode);
    writeAll(indexFd, index);
    // All at once: fsyncs in flight together cost about one.
    // Both settle before anything is closed: a descriptor closed under a running fsync could be reused.
    const [synced, joined] = await Promise.allSettled([syncAll(open), alongside]);
    if (synced.status === 'rejected') throw synced.reason;
    if (joined.status === 'rejected') throw joined.reason;
    for (const fd of open.splice(0)) closeSync(fd);
    await failpoint('pack.temp-synced', [tempPack, tempIndex]);
    const name = `pack-${packSum.toString('hex')}`;
    // The same objects written before give the very same pack: replacing it is harmless.
    renameSync(tempPack, join(dir, `${name}.pack`));
    renameSync(tempIndex, join(dir, `${name}.idx`));
    await Promise.all([syncDir(dir), named?.(name)]);
    return { name };
  } catch (error) {
    for (const fd of open) quietly(() => closeSync(fd));
    quietly(() => unlinkSync(tempPack));
    quietly(() => unlinkSync(tempIndex));
    if (vanished(error, [tempPack, tempIndex])) return 'vanished';
    throw error;
  }
};

/**
 * Writes the objects as one pack and its index; returns their ids, in order, and the pack's name. A temporary
 * file a concurrent prune deleted is written again once; lost twice, the write fails (nothing was stored).
 */
export const writePack = async (
  target: PackTarget,
  objects: NewObject[],
  steps: PackSteps = {},
): Promise<WrittenPack> => {
  if (objects.length === 0) {
    await steps.alongside;
    return { oids: [], name: null };
  }
  const oids = objects.map((o) => o.oid ?? hashObject(o.type, o.body, target.objectFormat));
  const plan: PackPlan = {
    dir: packDirOf(target.objectsDir),
    mode: modeFor(target.objectsDir, objects),
    algorithm: target.objectFormat === 'sha256' ? 'sha256' : 'sha1',
    target,
    unique: new Map(objects.map((o, n) => [oids[n] as string, o])),
  };
  for (let attempt = 1; attempt <= 2; attempt++) {
    const written = await writeOnce(plan, steps);
    if (written !== 'vanished') return { oids, name: written.name };
  }
  throw new FettleError(
    'E_IO',
    `fettle's temporary pack in ${plan.dir} was deleted while it was written, twice (by \`git gc --prune=now\` or \`git prune\` running beside it?)`,
  );
};
