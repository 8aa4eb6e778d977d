// Objects: blobs in and out as bytes (never through a string or git's filters), trees edited along one path,
// commits with fettle's fixed identity. Everything written is durable before the call returns.
import { closeSync, existsSync, openSync } from 'node:fs';
import { readFile as fsReadFile, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FettleError } from '../errors';
import type { Store } from './store';
import { IDENTITY } from '../io/child-env';
import { writePack, type NewObject } from './pack-write';
import { objectWritingOf } from './repo-config';
import { encodeCommit } from './commit-codec';
import { editTree, hashObject, parseTree, type NewTree } from './tree-codec';
import { isAlive } from '../io/pid';
import { makeOwnDir } from '../io/fettle-dir';

export interface BatchObject {
  oid: string;
  type: string;
  body: Buffer;
}

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
const writeObjects = async (store: Store, objects: NewObject[]): Promise<string[]> => {
  const writing = await objectWritingOf(store.commonDir);
  if (!writing.unsupported) {
    const objectsDir = join(store.commonDir, 'objects');
    const groups = new Map<number, number[]>();
    for (const [n, o] of objects.entries()) groups.set(readersOf(o), [...(groups.get(readersOf(o)) ?? []), n]);
    const oids: string[] = [];
    for (const members of groups.values()) {
      const written = await writePack(
        { objectsDir, objectFormat: store.objectFormat, level: writing.level },
        members.map((n) => objects[n] as NewObject),
      );
      for (const [k, n] of members.entries()) oids[n] = written.oids[k] as string;
      if (written.name) {
        remember(written.oids, join(objectsDir, 'pack', `${written.name}.idx`));
        await registerPack(store, written.name);
      }
    }
    return oids;
  }
  const oids: string[] = [];
  for (const object of objects) {
    const args = ['hash-object', '-w', '--literally', '--no-filters', '-t', object.type, '--stdin'];
    oids.push(await store.git.text({ args, input: object.body }));
  }
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
 * A record's blobs, trees and commits, written at once: one pack (see writeObjects), so one set of fsyncs.
 * Returns the commits' ids, in order.
 */
export const writeRecord = async (store: Store, set: RecordObjects): Promise<string[]> => {
  const oids = await writeObjects(store, [
    ...set.blobs.map((b): NewObject => ({ type: 'blob', body: b.bytes, oid: b.oid, fileMode: b.fileMode })),
    ...set.trees.map((t): NewObject => ({ type: 'tree', body: t.body, oid: t.oid })),
    ...set.commits.map(commitObject),
  ]);
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

/** The reader `readObjects` runs for specs without newlines; worth warming on the hook path. */
export const READ_BATCH = ['cat-file', '--batch'] as const;

/** Reads several objects in one process. `specs` are anything cat-file accepts (oid, rev:path). */
export const readObjects = async (store: Store, specs: string[]): Promise<(BatchObject | null)[]> => {
  if (specs.length === 0) return [];
  const known = store.read;
  if (known && specs.every((s) => known.has(s))) return specs.map((s) => known.get(s) ?? null);
  // NUL-delimited input (-z) only when a path needs it: older git (before 2.38) lacks the option.
  const nul = specs.some((s) => s.includes('\n'));
  const input = Buffer.concat(specs.map((s) => Buffer.from(`${s}${nul ? '\0' : '\n'}`)));
  const { stdout } = await store.git.run({ args: nul ? [...READ_BATCH, '-z'] : READ_BATCH, input });
  const out: (BatchObject | null)[] = [];
  let i = 0;
  for (let n = 0; n < specs.length; n++) {
    const eol = stdout.indexOf(0x0a, i);
    const header = stdout.subarray(i, eol).toString('utf8');
    const match = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
    if (!match) {
      out.push(null); // "<spec> missing" or "ambiguous"
      i = eol + 1;
      continue;
    }
    const size = Number(match[3]);
    out.push({ oid: match[1] ?? '', type: match[2] ?? '', body: stdout.subarray(eol + 1, eol + 1 + size) });
    i = eol + 1 + size + 1;
  }
  return out;
};

/**
 * The blob ids at several `rev:path` specs (null: missing or not a blob), without their content: one
 * `cat-file --batch-check`. A path with a newline cannot be told from git's answer lines: all null then.
 */
export const readBlobIds = async (store: Store, specs: string[]): Promise<(string | null)[]> => {
  if (specs.length === 0 || specs.some((s) => s.includes('\n'))) return specs.map(() => null);
  const args = ['cat-file', '--batch-check=%(objectname) %(objecttype)'];
  const { stdout } = await store.git.run({ args, input: `${specs.join('\n')}\n` });
  const lines = stdout.toString('utf8').split('\n');
  return specs.map((_, n) => /^([0-9a-f]+) blob$/.exec(lines[n] ?? '')?.[1] ?? null);
};

/** Whether each `rev:path` spec names an object of any type: one `cat-file --batch-check`. No newlines in specs. */
export const objectsExist = async (store: Store, specs: string[]): Promise<boolean[]> => {
  if (specs.length === 0) return [];
  const { stdout } = await store.git.run({ args: ['cat-file', '--batch-check'], input: `${specs.join('\n')}\n` });
  const lines = stdout.toString('utf8').split('\n');
  return specs.map((_, n) => /^[0-9a-f]+ \w+ \d+$/.test(lines[n] ?? ''));
};

export interface FileEntry {
  mode: string;
  oid: string;
  bytes: Buffer;
}

/** Files at (commit, path), with their modes, in one cat-file; null where the commit has no such file. */
export const readFiles = async (
  store: Store,
  wants: { commit: string; path: string }[],
): Promise<(FileEntry | null)[]> => {
  const specs = wants.flatMap(({ commit, path }) => [
    `${commit}:${path.split('/').slice(0, -1).join('/')}`,
    `${commit}:${path}`,
  ]);
  const objects = await readObjects(store, specs);
  return wants.map(({ path }, n) => {
    const [tree, blob] = [objects[2 * n], objects[2 * n + 1]];
    if (!tree || tree.type !== 'tree' || !blob || blob.type !== 'blob') return null;
    const name = Buffer.from(path.split('/').pop() ?? '');
    const entry = parseTree(tree.body, oidBytes(store)).find((e) => e.name.equals(name));
    return entry ? { mode: entry.mode, oid: blob.oid, bytes: blob.body } : null;
  });
};

/** Whether each commit's tree has an entry at the path (whatever the state of the object it names). */
export const pathsPresent = async (store: Store, wants: { commit: string; path: string }[]): Promise<boolean[]> => {
  if (wants.length === 0) return [];
  const trees = await readObjects(
    store,
    wants.map(({ commit, path }) => `${commit}:${path.split('/').slice(0, -1).join('/')}`),
  );
  return wants.map(({ path }, n) => {
    const tree = trees[n];
    if (!tree || tree.type !== 'tree') return false;
    const name = Buffer.from(path.split('/').pop() ?? '');
    return parseTree(tree.body, oidBytes(store)).some((e) => e.name.equals(name));
  });
};

/** The file at `path` in `commit`, with its mode; null when the commit has no such file. */
export const readFile = async (store: Store, commit: string, path: string): Promise<FileEntry | null> =>
  (await readFiles(store, [{ commit, path }]))[0] ?? null;

const oidBytes = (store: Store): number => store.zeroOid.length / 2;

/** The trees along `path` in `baseTree` (null: empty), root first, as git stores them; one `cat-file` for all. */
export const readLevels = async (store: Store, baseTree: string | null, path: string): Promise<Buffer[]> => {
  const segments = path.split('/');
  if (!baseTree) return segments.map(() => Buffer.alloc(0));
  const specs = segments.map((_, depth) => `${baseTree}:${segments.slice(0, depth).join('/')}`);
  const objects = await readObjects(store, specs);
  return objects.map((o) => (o && o.type === 'tree' ? o.body : Buffer.alloc(0)));
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

const loosePath = (store: Store, oid: string): string =>
  join(store.commonDir, 'objects', oid.slice(0, 2), oid.slice(2));

/** A pack's name as fettle writes it: `pack-` and its checksum. */
const PACK_NAME = /^pack-[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The pack this process wrote `oid` into (`pack-<checksum>`), if any. Kept beside the object's id (the Bash stat
 * cache), it lets a later process freshen the object without reading its bytes again: a pack never changes, so
 * while it is there it holds the object.
 */
export const packOf = (oid: string): string | undefined => {
  const index = recent.get(oid);
  return index && basename(index, '.idx');
};

/**
 * Marks an object as just used (its file's mtime, as git does when it would write an object that exists), so a
 * prune with an expiry keeps it: a loose one, or one in a pack this process wrote or `pack` names (the pack's
 * mtime is what git's cruft repack keeps unreachable packed objects by). False when none is there (packed by
 * maintenance since, or pruned): the caller writes it again.
 */
export const freshenLoose = async (store: Store, oid: string, pack?: string): Promise<boolean> => {
  const now = new Date();
  const index =
    recent.get(oid) ??
    (pack && PACK_NAME.test(pack) ? join(store.commonDir, 'objects', 'pack', `${pack}.idx`) : undefined);
  // A roll-up deletes a pack's index first: a pack without one is on its way out.
  if (index && !existsSync(index)) return false;
  const file = index ? index.replace(/\.idx$/, '.pack') : loosePath(store, oid);
  return utimes(file, now, now).then(
    () => true,
    () => false,
  );
};

/** Whether the object is in a pack this process wrote that is still there, or stored loose. */
const seenInPlace = async (store: Store, oid: string, checked: Map<string, Promise<boolean>>): Promise<boolean> => {
  const index = recent.get(oid);
  const where = index ?? loosePath(store, oid);
  let found = checked.get(where);
  if (!found) {
    found = Promise.resolve(existsSync(where)); // a stat: cheaper than a round trip through the thread pool
    checked.set(where, found);
  }
  return found;
};

/**
 * Objects among `oids` that are gone. Fresh objects are in the pack this process just wrote, so this is a stat
 * per pack; git is asked only about the others (repacked since, or pruned).
 */
export const missingObjects = async (store: Store, oids: string[]): Promise<string[]> => {
  const unsure: string[] = [];
  const checked = new Map<string, Promise<boolean>>();
  for (const oid of new Set(oids)) if (!(await seenInPlace(store, oid, checked))) unsure.push(oid);
  if (unsure.length === 0) return [];
  const { stdout } = await store.git.run({
    args: ['cat-file', '--batch-check'],
    input: `${unsure.join('\n')}\n`,
    fresh: true,
  });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l.endsWith(' missing'))
    .map((l) => l.split(' ')[0] ?? '');
};

/**
 * New objects are unreachable until a ref names them, and `git gc --prune=now` deletes unreachable objects
 * however new (git documents the race). After the ref exists, check that what it names is still there, and
 * write it again if not: objects are content-addressed, so `rewrite` recreates the very same ids.
 */
export const ensureObjects = async (store: Store, oids: string[], rewrite: () => Promise<unknown>): Promise<void> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    // A gc that computed what is reachable before our ref existed can still prune after a check: wait for a
    // running gc to finish (git holds gc.pid throughout), then check.
    await waitForGc(store);
    if ((await missingObjects(store, oids)).length === 0) return;
    await rewrite();
  }
  const still = await missingObjects(store, oids);
  if (still.length > 0)
    throw new FettleError(
      'E_GIT',
      `objects ${still.join(', ')} keep disappearing (is \`git gc --prune=now\` running in a loop?)`,
    );
};

const GC_WAIT_MS = 30_000;

/** Waits while `gc.pid` names a live process; the usual case is one stat of a file that is not there. */
const waitForGc = async (store: Store): Promise<void> => {
  const pidFile = join(store.commonDir, 'gc.pid');
  const deadline = Date.now() + GC_WAIT_MS;
  while (Date.now() < deadline) {
    const pid = Number.parseInt(await readFileText(pidFile), 10);
    if (!(pid > 0) || !isAlive(pid)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
};

const readFileText = (path: string): Promise<string> => fsReadFile(path, 'utf8').catch(() => '');

/** A commit by fettle's fixed identity, dated `when` in UTC; the message is stored as given. */
export const writeCommit = async (
  store: Store,
  tree: string,
  parents: string[],
  message: string,
  when: Date,
): Promise<string> => (await writeBatch(store, [], [{ tree, parents, message, when }]))[0] as string;

/** The tree a commit names (`fettle discard` writes a marker commit on the same tree). */
export const treeOf = async (store: Store, commit: string): Promise<string> =>
  store.git.text({ args: ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`] });

/** The commit HEAD points at (as read when the store was opened), or null for an unborn HEAD and the private store. */
export const headCommit = (store: Store): string | null => store.head;
