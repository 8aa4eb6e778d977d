// Objects read back: several in one `cat-file` process, as bytes; files at a commit's path with their modes; the
// trees along a path (what a record's tree edit starts from).
import { parseTree } from './tree-codec';
import type { Store } from './store';

export interface BatchObject {
  oid: string;
  type: string;
  body: Buffer;
}

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

/** The tree a commit names (`fettle discard` writes a marker commit on the same tree). */
export const treeOf = async (store: Store, commit: string): Promise<string> =>
  store.git.text({ args: ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`] });

/** The commit HEAD points at (as read when the store was opened), or null for an unborn HEAD and the private store. */
export const headCommit = (store: Store): string | null => store.head;
