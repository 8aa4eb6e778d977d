// Objects written: blobs as bytes (never through a string or git's filters), trees edited along one path,
// commits with fettle's fixed identity, all as one small pack per call. Everything written is durable before the
// call returns. Reading them is object-read.ts; whether they are still there, object-presence.ts.
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { FettleError } from '../errors';
import type { Store } from './store';
import { IDENTITY } from '../io/child-env';
import { writePack, type NewObject } from './pack-write';
import { objectWritingOf } from './repo-config';
import { encodeCommit } from './commit-codec';
import { editTree, hashObject, type NewTree } from './tree-codec';
import { makeOwnDir } from '../io/fettle-dir';
import { readLevels } from './object-read';
import { stampStore } from './store-format';

/** Where fettle notes the packs it wrote: maintenance rolls up those and never touches the user's own. */
export const packRegistry = (store: Pick<Store, 'commonDir'>): string => join(store.commonDir, 'fettle', 'packs');

/** An empty file named after the pack; a crash before it only leaves the pack to git's own gc. */
const registerPack = async (store: Store, name: string): Promise<void> => {
  const path = join(packRegistry(store), name);
  const touch = () => closeSync(openSync(path, 'w'));
  try {
    touch();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await makeOwnDir(packRegistry(store));
    touch();
  }
};

/** Packs this process wrote, by the objects in them: a fresh object is present while its pack's index is. */
const RECENT_MAX = 4096;
const recent = new Map<string, string>();
/** The index of the pack this process wrote `oid` into, if it remembers one (object-presence.ts). */
export const packIndexOf = (oid: string): string | undefined => recent.get(oid);
const remember = (oids: string[], index: string): void => {
  for (const oid of oids) {
    recent.delete(oid);
    recent.set(oid, index);
  }
  for (const oldest of recent.keys()) {
    if (recent.size <= RECENT_MAX) break;
    recent.delete(oldest);
  }
};

/** Who may read an object's pack: the group and other read bits of the file its bytes came from. */
const readersOf = (o: NewObject): number => (o.fileMode === undefined ? 0o044 : o.fileMode & 0o044);

/**
 * Writes objects into the store: in process as one small pack, at the repository's compression level (two when
 * some bytes came from a file fewer people may read: that pack is kept as private as the file, the rest stays
 * readable by whoever shares the repository); or, in a repository with an extension that changes how objects
 * are written (e.g. a second object format whose ids git maps), through git's own `hash-object`, one object a
 * process, raw bytes (`--literally`, no filters). Returns the ids in the order given.
 */
const writeObjects = async (store: Store, objects: NewObject[], alongside?: Promise<unknown>): Promise<string[]> => {
  await stampStore(store);
  const writing = await objectWritingOf(store.commonDir);
  if (!writing.unsupported) {
    const objectsDir = join(store.commonDir, 'objects');
    const groups = new Map<number, number[]>();
    for (const [n, o] of objects.entries()) groups.set(readersOf(o), [...(groups.get(readersOf(o)) ?? []), n]);
    const oids: string[] = [];
    let first = true;
    for (const members of groups.values()) {
      const written = await writePack(
        { objectsDir, objectFormat: store.objectFormat, level: writing.level, treeLevel: writing.treeLevel },
        members.map((n) => objects[n] as NewObject),
        { alongside: first ? alongside : undefined, named: (name) => registerPack(store, name) },
      );
      first = false;
      for (const [k, n] of members.entries()) oids[n] = written.oids[k] as string;
      if (written.name) remember(written.oids, join(objectsDir, 'pack', `${written.name}.idx`));
    }
    if (first) await alongside;
    return oids;
  }
  const oids: string[] = [];
  for (const object of objects) {
    const args = ['hash-object', '-w', '--literally', '--no-filters', '-t', object.type, '--stdin'];
    oids.push(await store.git.text({ args, input: object.body }));
  }
  await alongside;
  return oids;
};

/** The bytes exactly as given: no clean filter or end-of-line conversion ever sees them. */
export const writeBlobs = (store: Store, contents: Buffer[], fileMode?: number): Promise<string[]> =>
  writeObjects(
    store,
    contents.map((body) => ({ type: 'blob', body, fileMode })),
  );

/** A blob's id, computed without writing it (to plan trees before one write stores everything). */
export const blobId = (store: Store, bytes: Buffer): string => hashObject('blob', bytes, store.objectFormat);

export interface RecordObjects {
  /** with their ids (blobId), and the permission bits of the file they came from */
  blobs: { bytes: Buffer; oid: string; fileMode?: number | undefined }[];
  trees: NewTree[];
  commits: CommitSpec[];
}

/**
 * A record's blobs, trees and commits, written at once: one pack (see writeObjects), so one set of fsyncs, which
 * `alongside` joins (see writePack). Returns the commits' ids, in order.
 */
export const writeRecord = async (
  store: Store,
  set: RecordObjects,
  alongside?: Promise<unknown>,
): Promise<string[]> => {
  const oids = await writeObjects(
    store,
    [
      ...set.blobs.map((b): NewObject => ({ type: 'blob', body: b.bytes, oid: b.oid, fileMode: b.fileMode })),
      ...set.trees.map((t): NewObject => ({ type: 'tree', body: t.body, oid: t.oid })),
      ...set.commits.map(commitObject),
    ],
    alongside,
  );
  return oids.slice(set.blobs.length + set.trees.length);
};

/** Blobs of files on disk, each no more readable than its file (`fileMode`: the file's permission bits). */
export const writeFileBlobs = (store: Store, files: { bytes: Buffer; fileMode?: number }[]): Promise<string[]> =>
  writeObjects(
    store,
    files.map((f) => ({ type: 'blob', body: f.bytes, fileMode: f.fileMode })),
  );

/** A file read for its blob: its bytes, the git mode to record, and its permission bits (the object's). */
export interface ReadFile {
  bytes: Buffer;
  mode: string;
  fileMode?: number;
}

/** Written this many bytes at a time: many files are never held at once. */
const BLOB_BATCH_BYTES = 32 * 1024 * 1024;

/**
 * Reads `paths` one at a time with `read` and writes their blobs a batch at a time. Returns each path's blob
 * with its mode, or null where `read` found nothing to keep (the file went, or is not one).
 */
export const writeFileBlobsOf = async (
  store: Store,
  paths: string[],
  read: (path: string, n: number) => Promise<ReadFile | null>,
): Promise<Map<string, { mode: string; oid: string } | null>> => {
  const leaves = new Map<string, { mode: string; oid: string } | null>();
  let batch: (ReadFile & { path: string })[] = [];
  let size = 0;
  const flush = async () => {
    const oids = await writeFileBlobs(store, batch);
    for (const [n, f] of batch.entries()) leaves.set(f.path, { mode: f.mode, oid: oids[n] as string });
    batch = [];
    size = 0;
  };
  for (const [n, path] of paths.entries()) {
    const file = await read(path, n);
    if (!file) leaves.set(path, null);
    else {
      batch.push({ path, ...file });
      size += file.bytes.length;
      if (size >= BLOB_BATCH_BYTES) await flush();
    }
  }
  await flush();
  return leaves;
};

/** The trees for `levels` with `path` set to `leaf` (null: removed), computed in memory, not yet written. */
export const planTrees = (
  store: Store,
  levels: Buffer[],
  path: string,
  leaf: { mode: string; oid: string } | null,
): NewTree[] => {
  const trees = editTree(levels, path.split('/'), leaf, store.objectFormat);
  if (trees.length === 0) throw new FettleError('E_INTERNAL', 'internal error: tree edit produced no root');
  return trees;
};

/** The root oid of planned trees (the last one). */
export const rootOf = (trees: NewTree[]): string => (trees[trees.length - 1] as NewTree).oid;

export interface CommitSpec {
  tree: string;
  parents: string[];
  message: string;
  when: Date;
}

const commitObject = (c: CommitSpec): NewObject => ({
  type: 'commit',
  body: encodeCommit({
    tree: c.tree,
    parents: c.parents,
    message: c.message,
    seconds: Math.floor(c.when.getTime() / 1000),
    identity: `${IDENTITY.name} <${IDENTITY.email}>`,
  }),
});

/** The id a commit will have, before it is written: a commit on top of it can be planned in the same batch. */
export const commitId = (store: Store, c: CommitSpec): string => {
  const { type, body } = commitObject(c);
  return hashObject(type, body, store.objectFormat);
};

/**
 * Writes planned trees and commits in one batch, synced before it returns (and so before any ref can name
 * them). Returns the commits' ids, in order.
 */
export const writeBatch = async (store: Store, trees: NewTree[], commits: CommitSpec[]): Promise<string[]> => {
  const oids = await writeObjects(store, [
    ...trees.map((t): NewObject => ({ type: 'tree', body: t.body, oid: t.oid })),
    ...commits.map(commitObject),
  ]);
  return oids.slice(trees.length);
};

export interface FileCommit {
  parent: string;
  /** parents after the first (the first-parent chain is what fettle reads) */
  otherParents?: string[];
  path: string;
  /** the file's bytes (null: the path is removed) and git mode */
  bytes: Buffer | null;
  mode: string;
  message: string;
  when: Date;
  /** permission bits of the file on disk, when known: the blob is no more readable than the file */
  diskMode?: number | undefined;
}

/**
 * A commit on `parent` whose tree has `path` set to the given bytes. The blob is written while one cat-file reads
 * the trees along the path. Deterministic: calling it again recreates the very same objects (see ensureObjects).
 */
export const commitFile = async (store: Store, c: FileCommit): Promise<{ commit: string; written: string[] }> => {
  const reading = readLevels(store, `${c.parent}^{tree}`, c.path);
  reading.catch(() => undefined); // awaited below: a failure while the blob is written must not go unhandled meanwhile
  const blobs = await writeBlobs(store, c.bytes ? [c.bytes] : [], c.diskMode).catch(async (error: unknown) => {
    await reading.catch(() => undefined);
    throw error;
  });
  const trees = planTrees(store, await reading, c.path, blobs[0] ? { mode: c.mode, oid: blobs[0] } : null);
  const [commit = ''] = await writeBatch(store, trees, [
    { tree: rootOf(trees), parents: [c.parent, ...(c.otherParents ?? [])], message: c.message, when: c.when },
  ]);
  return { commit, written: [...blobs, ...trees.map((t) => t.oid), commit] };
};

/** A commit by fettle's fixed identity, dated `when` in UTC; the message is stored as given. */
export const writeCommit = async (
  store: Store,
  tree: string,
  parents: string[],
  message: string,
  when: Date,
): Promise<string> => (await writeBatch(store, [], [{ tree, parents, message, when }]))[0] as string;
