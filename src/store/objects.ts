// Objects: blobs in and out as bytes (never through a string or git's filters), trees edited along one path,
// commits with fettle's fixed identity. Everything written is durable before the call returns.
import { readFile as fsReadFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../errors';
import type { Store } from './store';
import { IDENTITY } from '../io/child-env';
import { writeLoose, type NewObject } from './loose';
import { objectWritingOf } from './repo-config';
import { encodeCommit } from './commit-codec';
import { editTree, hashObject, parseTree, type NewTree } from './tree-codec';
import { isAlive } from '../io/pid';
import { exists } from '../io/exists';

export interface BatchObject {
  oid: string;
  type: string;
  body: Buffer;
}

/**
 * Writes objects into the store: in process as loose objects, at the repository's compression level; or, in a
 * repository with an extension that changes how objects are written (e.g. a second object format whose ids git
 * maps), through git's own `hash-object`, one object a process, raw bytes (`--literally`, no filters).
 */
const writeObjects = async (store: Store, objects: NewObject[]): Promise<string[]> => {
  const writing = await objectWritingOf(store.commonDir);
  if (!writing.unsupported)
    return writeLoose(
      { objectsDir: join(store.commonDir, 'objects'), objectFormat: store.objectFormat, level: writing.level },
      objects,
    );
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

const isLoose = (store: Store, oid: string): Promise<boolean> => exists(loosePath(store, oid));

/**
 * Marks a loose object as just used (its mtime, as git does when it would write an object that exists), so a prune
 * with an expiry keeps it; false when it is not stored loose (packed, or pruned).
 */
export const freshenLoose = async (store: Store, oid: string): Promise<boolean> => {
  const now = new Date();
  return utimes(loosePath(store, oid), now, now).then(
    () => true,
    () => false,
  );
};

/**
 * Objects among `oids` that are gone. Fresh objects are loose, so this is a stat per object; git is asked only
 * about those that are not (packed since, or pruned).
 */
export const missingObjects = async (store: Store, oids: string[]): Promise<string[]> => {
  const notLoose: string[] = [];
  for (const oid of new Set(oids)) if (!(await isLoose(store, oid))) notLoose.push(oid);
  if (notLoose.length === 0) return [];
  const { stdout } = await store.git.run({ args: ['cat-file', '--batch-check'], input: `${notLoose.join('\n')}\n` });
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
