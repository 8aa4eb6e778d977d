// git's pack format, version 2 (whole objects, no deltas), and its index, version 2
// (Documentation/gitformat-pack.txt): the bytes of a pack as pack-write.ts writes them, and the index that
// finds objects in it.
import { createHash, type Hash } from 'node:crypto';
import { fchmodSync, openSync, writeSync } from 'node:fs';
import { crc32, createDeflate, deflateSync } from 'node:zlib';

export type ObjectType = 'blob' | 'tree' | 'commit';

const TYPE_CODES = { commit: 1, tree: 2, blob: 3 } as const;
/** Bodies from this size are compressed as a stream, each chunk written as it comes (see loose objects' reasons). */
const STREAM_FROM = 16 << 20;
const STREAM_CHUNK = 1 << 20;

/** git's variable-length entry header: type and size, 4 bits then 7 bits a byte, high bit = more follows. */
export const entryHeader = (type: ObjectType, size: number): Buffer => {
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

export const writeAll = (fd: number, bytes: Buffer): void => {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
};

/** Bytes gathered before they go to the file in one call: a record's few objects are one write. */
const GATHER = 1 << 20;

/** A pack file being written: every byte goes through the running checksum and the current entry's CRC. */
export class PackFile {
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

export const deflateInto = (file: PackFile, body: Buffer, level: number): Promise<void> => {
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

export interface Entry {
  oid: Buffer;
  crc: number;
  offset: number;
}

export const u32 = (n: number): Buffer => {
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
