// Objects written in process as one small pack per call: `objects/pack/pack-<checksum>.{pack,idx}`, git's
// pack format version 2 (whole objects, no deltas) and index version 2. A record's handful of objects (blob, the
// trees along the path, commits) then costs two files and three fsyncs, where loose objects cost a file and a
// directory sync each (5 objects: ~10 ms against ~1.3 ms on the disk measured, docs/PERFORMANCE.md). The
// format is git's stable on-disk contract (Documentation/gitformat-pack.txt); fettle's background maintenance
// rolls these packs up (protocol/upkeep/maintain.ts), so they never pile up.
// Durability: both temp files are fsynced, renamed (the index last: git finds a pack by its index), and the
// pack directory synced, before the call returns and so before any ref can name what they hold.
import { createHash, randomBytes, type Hash } from 'node:crypto';
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
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32, createDeflate, deflateSync } from 'node:zlib';
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
  type: 'blob' | 'tree' | 'commit';
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

const TYPE_CODES = { commit: 1, tree: 2, blob: 3 } as const;
const DEFAULT_LEVEL = 1;
/** Bodies from this size are compressed as a stream, each chunk written as it comes (see loose objects' reasons). */
const STREAM_FROM = 16 << 20;
const STREAM_CHUNK = 1 << 20;

/** git's variable-length entry header: type and size, 4 bits then 7 bits a byte, high bit = more follows. */
export const entryHeader = (type: NewObject['type'], size: number): Buffer => {
  const bytes: number[] = [];
  let c = (TYPE_CODES[type] << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
};

const writeAll = (fd: number, bytes: Buffer): void => {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
};

/** Bytes gathered before they go to the file in one call: a record's few objects are one write. */
const GATHER = 1 << 20;

/** A pack file being written: every byte goes through the running checksum and the current entry's CRC. */
class PackFile {
  readonly fd: number;
  offset = 0;
  crc = 0;
  private readonly sum: Hash;
  private gathered: Buffer[] = [];
  private gatheredBytes = 0;
  constructor(path: string, mode: number, algorithm: string) {
    this.fd = openSync(path, 'wx', mode);
    fchmodSync(this.fd, mode); // the umask cut the mode given to open
    this.sum = createHash(algorithm);
  }
  write(chunk: Buffer): void {
    this.sum.update(chunk);
    this.crc = crc32(chunk, this.crc);
    this.offset += chunk.length;
    this.gathered.push(chunk);
    this.gatheredBytes += chunk.length;
    if (this.gatheredBytes >= GATHER) this.flush();
  }
  private flush(): void {
    writeAll(this.fd, Buffer.concat(this.gathered, this.gatheredBytes));
    this.gathered = [];
    this.gatheredBytes = 0;
  }
  /** Writes what is gathered and the trailer, and returns the checksum. */
  finish(): Buffer {
    const digest = this.sum.digest();
    this.gathered.push(digest);
    this.gatheredBytes += digest.length;
    this.flush();
    return digest;
  }
}

const deflateInto = (file: PackFile, body: Buffer, level: number): Promise<void> => {
  if (body.length < STREAM_FROM) {
    file.write(deflateSync(body, { level }));
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const z = createDeflate({ level, chunkSize: STREAM_CHUNK });
    z.on('data', (chunk: Buffer) => {
      try {
        file.write(chunk);
      } catch (error) {
        z.destroy(error as Error);
      }
    });
    z.on('end', () => resolve());
    z.on('error', reject);
    z.end(body);
  });
};

interface Entry {
  oid: Buffer;
  crc: number;
  offset: number;
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** Index version 2: fan-out, sorted ids, CRCs, offsets (large ones in a 64-bit table), both checksums. */
export const encodeIndex = (entries: Entry[], packSum: Buffer, algorithm: string): Buffer => {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(256 * 4);
  for (let byte = 0, n = 0; byte < 256; byte++) {
    while (n < sorted.length && (sorted[n] as Entry).oid[0] === byte) n++;
    fanout.writeUInt32BE(n, byte * 4);
  }
  const large: Buffer[] = [];
  const offsets = sorted.map((e) => {
    if (e.offset < 0x80000000) return u32(e.offset);
    const big = Buffer.alloc(8);
    big.writeBigUInt64BE(BigInt(e.offset));
    large.push(big);
    return u32(0x80000000 | (large.length - 1));
  });
  const body = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...sorted.map((e) => e.oid),
    ...sorted.map((e) => u32(e.crc)),
    ...offsets,
    ...large,
    packSum,
  ]);
  return Buffer.concat([body, createHash(algorithm).update(body).digest()]);
};

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

/** Writes the objects as one pack and its index; returns their ids, in order, and the pack's name. */
export const writePack = async (
  target: PackTarget,
  objects: NewObject[],
  { alongside, named }: PackSteps = {},
): Promise<WrittenPack> => {
  if (objects.length === 0) {
    await alongside;
    return { oids: [], name: null };
  }
  const algorithm = target.objectFormat === 'sha256' ? 'sha256' : 'sha1';
  const oids = objects.map((o) => o.oid ?? hashObject(o.type, o.body, target.objectFormat));
  const unique = new Map(objects.map((o, n) => [oids[n] as string, o]));
  const dir = packDirOf(target.objectsDir);
  const mode = modeFor(target.objectsDir, objects);
  const tag = randomBytes(6).toString('hex');
  const tempPack = join(dir, `tmp_pack_${tag}`);
  const tempIndex = join(dir, `tmp_idx_${tag}`);
  const pack = new PackFile(tempPack, mode, algorithm);
  const open = [pack.fd];
  try {
    pack.write(Buffer.concat([Buffer.from('PACK'), u32(2), u32(unique.size)]));
    const entries: Entry[] = [];
    for (const [oid, object] of unique) {
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
    const name = `pack-${packSum.toString('hex')}`;
    // The same objects written before give the very same pack: replacing it is harmless.
    renameSync(tempPack, join(dir, `${name}.pack`));
    renameSync(tempIndex, join(dir, `${name}.idx`));
    await Promise.all([syncDir(dir), named?.(name)]);
    return { oids, name };
  } catch (error) {
    for (const fd of open) quietly(() => closeSync(fd));
    quietly(() => unlinkSync(tempPack));
    quietly(() => unlinkSync(tempIndex));
    throw error;
  }
};
