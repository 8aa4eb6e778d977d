// Objects: blobs in and out as bytes (never through a string or git's filters), trees edited along one path,
// commits with fettle's fixed identity. Everything written is durable before the call returns.
import { open, readFile as fsReadFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FettleError } from '../errors';
import type { Store } from './locate';
import { editTree, mktreeInput, parseTree, type NewTree, type TreeEntry } from './tree-codec';
import { isAlive } from '../io/pid';

export interface BatchObject {
  oid: string;
  type: string;
  body: Buffer;
}

/** `hash-object --stdin` implies --no-filters: the stored bytes are exactly the input. */
export const writeBlob = async (store: Store, bytes: Buffer): Promise<string> =>
  store.git.text({ args: ['hash-object', '-w', '--stdin'], input: bytes });

/** Reads several objects in one process. `specs` are anything cat-file accepts (oid, rev:path). */
export const readObjects = async (store: Store, specs: string[]): Promise<(BatchObject | null)[]> => {
  if (specs.length === 0) return [];
  // NUL-delimited input (-z) only when a path needs it: older git (before 2.38) lacks the option.
  const nul = specs.some((s) => s.includes('\n'));
  const input = Buffer.concat(specs.map((s) => Buffer.from(`${s}${nul ? '\0' : '\n'}`)));
  const { stdout } = await store.git.run({ args: ['cat-file', '--batch', ...(nul ? ['-z'] : [])], input });
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

export interface FileEntry {
  mode: string;
  oid: string;
  bytes: Buffer;
}

/** The file at `path` in `commit`, with its mode; null when the commit has no such file. */
export const readFile = async (store: Store, commit: string, path: string): Promise<FileEntry | null> => {
  const segments = path.split('/');
  const parent = segments.slice(0, -1).join('/');
  const [tree, blob] = await readObjects(store, [`${commit}:${parent}`, `${commit}:${path}`]);
  if (!tree || tree.type !== 'tree' || !blob || blob.type !== 'blob') return null;
  const name = Buffer.from(segments[segments.length - 1] ?? '');
  const entry = parseTree(tree.body, oidBytes(store)).find((e) => e.name.equals(name));
  return entry ? { mode: entry.mode, oid: blob.oid, bytes: blob.body } : null;
};

const oidBytes = (store: Store): number => store.zeroOid.length / 2;

/** The entries of the trees along `path` in `baseTree` (null: empty), root first; one `cat-file` for all. */
export const readLevels = async (store: Store, baseTree: string | null, path: string): Promise<TreeEntry[][]> => {
  const segments = path.split('/');
  if (!baseTree) return segments.map(() => []);
  const specs = segments.map((_, depth) => `${baseTree}:${segments.slice(0, depth).join('/')}`);
  const objects = await readObjects(store, specs);
  return objects.map((o) => (o && o.type === 'tree' ? parseTree(o.body, oidBytes(store)) : []));
};

/** The trees for `levels` with `path` set to `leaf` (null: removed), computed in memory, not yet written. */
export const planTrees = (store: Store, levels: TreeEntry[][], path: string, leaf: { mode: string; oid: string } | null): NewTree[] => {
  const trees = editTree(levels, path.split('/'), leaf, store.objectFormat);
  if (trees.length === 0) throw new FettleError('E_INTERNAL', 'internal error: tree edit produced no root');
  return trees;
};

/** The root oid of planned trees (the last one). */
export const rootOf = (trees: NewTree[]): string => (trees[trees.length - 1] as NewTree).oid;

/**
 * Writes planned trees (children before parents) in one `mktree --batch`, checking git computed the same ids.
 * An empty root cannot go through --batch (an empty record ends a tree), so it is written on its own.
 */
export const writeTrees = async (store: Store, trees: NewTree[]): Promise<void> => {
  const nonEmpty = trees.filter((t) => t.entries.length > 0);
  if (nonEmpty.length < trees.length) await store.git.run({ args: ['hash-object', '-w', '-t', 'tree', '--stdin'], input: Buffer.alloc(0) });
  if (nonEmpty.length === 0) return;
  const printed = (await store.git.text({ args: ['mktree', '-z', '--batch'], input: mktreeInput(nonEmpty) })).split('\n');
  nonEmpty.forEach((t, n) => {
    if (printed[n] !== t.oid) throw new FettleError('E_INTERNAL', `internal error: tree hash mismatch (${printed[n]} != ${t.oid})`);
  });
  await fsyncLooseObjects(store, nonEmpty.map((t) => t.oid));
};

/** `baseTree` with `path` set to `leaf` (null: removed), written; returns the new root tree's oid. */
export const writeTreeWith = async (
  store: Store,
  baseTree: string | null,
  path: string,
  leaf: { mode: string; oid: string } | null,
): Promise<string> => {
  const trees = planTrees(store, await readLevels(store, baseTree, path), path, leaf);
  await writeTrees(store, trees);
  return rootOf(trees);
};

/**
 * `git mktree` does not fsync what it writes, even with core.fsync=all (checked on git 2.39), so do it here.
 * An object that is not loose was already in a pack, which git fsyncs.
 */
const fsyncLooseObjects = async (store: Store, oids: string[]): Promise<void> => {
  const dirs = new Set<string>();
  for (const oid of oids) {
    const dir = join(store.commonDir, 'objects', oid.slice(0, 2));
    let handle;
    try {
      handle = await open(join(dir, oid.slice(2)), 'r');
    } catch {
      continue;
    }
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    dirs.add(dir);
  }
  for (const dir of dirs) {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
};

const isLoose = (store: Store, oid: string): Promise<boolean> =>
  stat(join(store.commonDir, 'objects', oid.slice(0, 2), oid.slice(2))).then(() => true, () => false);

/** The objects among `oids` that are stored loose (fresh ones are; those that existed already may be packed). */
export const looseOnly = async (store: Store, oids: string[]): Promise<string[]> => {
  const loose = await Promise.all(oids.map((oid) => isLoose(store, oid)));
  return oids.filter((_, n) => loose[n]);
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
  return stdout.toString('utf8').split('\n').filter((l) => l.endsWith(' missing')).map((l) => l.split(' ')[0] ?? '');
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
  if (still.length > 0) throw new FettleError('E_GIT', `objects ${still.join(', ')} keep disappearing (is \`git gc --prune=now\` running in a loop?)`);
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

export const writeCommit = async (
  store: Store,
  tree: string,
  parents: string[],
  message: string,
  when: Date,
): Promise<string> => {
  const date = `@${Math.floor(when.getTime() / 1000)} +0000`;
  return store.git.text({
    args: ['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p])],
    input: message,
    env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
};

/** The commit HEAD points at (as read when the store was opened), or null for an unborn HEAD and the private store. */
export const headCommit = (store: Store): string | null => store.head;
