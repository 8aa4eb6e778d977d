// git's tree object format, encoded and edited in memory so that changing one path rewrites only the trees
// along that path: cost grows with the path's depth, never with the size of the repository.
import { createHash } from 'node:crypto';

export interface TreeEntry {
  /** octal mode as git stores it: 100644, 100755, 120000, 40000, 160000 */
  mode: string;
  /** raw name bytes (git names are bytes, not necessarily UTF-8) */
  name: Buffer;
  oid: string;
}

export interface NewTree {
  oid: string;
  /** the encoded tree, as hashed into `oid` */
  body: Buffer;
  /** how deep along the edited path this tree sits (0: the root) */
  depth: number;
}

export const TREE_MODE = '40000';

export const parseTree = (raw: Buffer, oidBytes: number): TreeEntry[] => {
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < raw.length) {
    const space = raw.indexOf(0x20, i);
    const nul = raw.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + oidBytes > raw.length) throw new Error('malformed tree object');
    entries.push({
      mode: raw.subarray(i, space).toString('latin1'),
      name: Buffer.from(raw.subarray(space + 1, nul)),
      oid: raw.subarray(nul + 1, nul + 1 + oidBytes).toString('hex'),
    });
    i = nul + 1 + oidBytes;
  }
  return entries;
};

/** git's tree order (see compareRaw). */
export const compareEntries = (a: TreeEntry, b: TreeEntry): number =>
  compareRaw(a.name, a.mode === TREE_MODE, b.name, b.mode === TREE_MODE);

/** Entries already in tree order, encoded into one buffer. */
export const encodeSorted = (entries: TreeEntry[]): Buffer => {
  let size = 0;
  for (const e of entries) size += e.mode.length + 1 + e.name.length + 1 + e.oid.length / 2;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const e of entries) {
    at += out.write(`${e.mode} `, at, 'latin1');
    at += e.name.copy(out, at);
    out[at++] = 0;
    at += out.write(e.oid, at, 'hex');
  }
  return out;
};

export const hashObject = (type: string, body: Buffer, format: 'sha1' | 'sha256'): string =>
  createHash(format === 'sha256' ? 'sha256' : 'sha1')
    .update(`${type} ${body.length}\0`)
    .update(body)
    .digest('hex');

const entryBytes = (mode: string, name: Buffer, oid: string): Buffer =>
  Buffer.concat([Buffer.from(`${mode} `, 'latin1'), name, Buffer.from([0]), Buffer.from(oid, 'hex')]);

const TREE_MODE_BYTES = Buffer.from(TREE_MODE, 'latin1');

/**
 * git's tree order: name bytes compared as if a directory's name ended in '/'; `a` before `b` gives < 0. A tree
 * read from git is already in this order, so an edit splices one entry in (spliceEntry) instead of sorting.
 */
const compareRaw = (a: Buffer, aTree: boolean, b: Buffer, bTree: boolean): number => {
  for (let i = 0; ; i++) {
    const x = i < a.length ? (a[i] as number) : i === a.length && aTree ? 0x2f : -1;
    const y = i < b.length ? (b[i] as number) : i === b.length && bTree ? 0x2f : -1;
    if (x !== y) return x - y;
    if (x === -1) return 0;
  }
};

/**
 * `raw` (a tree as git stores it, in git's order) without its entry called `name`, and with `entry` (its name
 * and whether it is a tree) at its place. One pass over the bytes, nothing parsed into objects: a directory of
 * thousands of entries is edited at the cost of a copy.
 */
const spliceEntry = (
  raw: Buffer,
  oidBytes: number,
  name: Buffer,
  entry: { bytes: Buffer; tree: boolean } | null,
): Buffer => {
  let removeAt = -1;
  let removeEnd = -1;
  let insertAt = entry ? raw.length : -1;
  for (let i = 0; i < raw.length; ) {
    const space = raw.indexOf(0x20, i);
    const nul = raw.indexOf(0, space);
    const end = nul + 1 + oidBytes;
    if (space < 0 || nul < 0 || end > raw.length) throw new Error('malformed tree object');
    const entryName = raw.subarray(space + 1, nul);
    if (entryName.equals(name)) {
      removeAt = i;
      removeEnd = end;
    } else if (entry && insertAt === raw.length) {
      // "40000", or "040000" as some old tools wrote it
      const isTree = (space - i === 5 || space - i === 6) && raw.subarray(space - 5, space).equals(TREE_MODE_BYTES);
      if (compareRaw(name, entry.tree, entryName, isTree) < 0) insertAt = i;
    }
    i = end;
  }
  const cuts: [number, number, Buffer | null][] = [];
  if (removeAt >= 0) cuts.push([removeAt, removeEnd, null]);
  if (entry) cuts.push([insertAt, insertAt, entry.bytes]);
  cuts.sort((a, b) => a[0] - b[0]);
  const parts: Buffer[] = [];
  let from = 0;
  for (const [at, to, bytes] of cuts) {
    parts.push(raw.subarray(from, at));
    if (bytes) parts.push(bytes);
    from = to;
  }
  parts.push(raw.subarray(from));
  return Buffer.concat(parts);
};

/**
 * Replaces (or, with `leaf` null, removes) the entry at `segments` below the root.
 * `levels[i]` is the existing tree at depth i as git stores it (empty when it does not exist).
 * Returns the trees to write, children first; the last one is the new root.
 * A directory left empty by a removal is dropped, as git never stores empty trees below the root.
 */
export const editTree = (
  levels: Buffer[],
  segments: string[],
  leaf: { mode: string; oid: string } | null,
  format: 'sha1' | 'sha256',
): NewTree[] => {
  const oidBytes = format === 'sha256' ? 32 : 20;
  const written: NewTree[] = [];
  let child: { mode: string; oid: string } | null = leaf;
  for (let depth = segments.length - 1; depth >= 0; depth--) {
    const name = Buffer.from(segments[depth] ?? '', 'utf8');
    const entry = child ? { bytes: entryBytes(child.mode, name, child.oid), tree: child.mode === TREE_MODE } : null;
    const body = spliceEntry(levels[depth] ?? Buffer.alloc(0), oidBytes, name, entry);
    if (depth > 0 && body.length === 0) {
      child = null;
      continue;
    }
    const oid = hashObject('tree', body, format);
    written.push({ oid, body, depth });
    child = { mode: TREE_MODE, oid };
  }
  return written;
};

/** The levels along the path after an edit: a second edit can start from them without reading git again. */
export const levelsAfter = (levels: Buffer[], written: NewTree[]): Buffer[] => {
  const next = [...levels];
  for (const tree of written) next[tree.depth] = tree.body;
  return next;
};
