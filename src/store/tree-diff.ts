// The paths a commit changed against its first parent, from its trees alone: what `git diff-tree -r --root
// --no-renames --name-only <commit>` lists, read through `readObjects` (one batch per level of the trees, only the
// subtrees that differ), so a reader already running answers it without a git process of its own.
import { FettleError } from '../errors';
import { readObjects } from './object-read';
import { parseTree, TREE_MODE, type TreeEntry } from './tree-codec';
import type { Store } from './store';

/** A tree on each side (null: absent there) under a directory prefix. */
interface Pair {
  prefix: string;
  old: string | null;
  now: string | null;
}

const isTree = (e: TreeEntry | undefined): e is TreeEntry => e?.mode === TREE_MODE;
const key = (e: TreeEntry): string => e.name.toString('latin1');

/** One level: the differing blobs' paths, and the pairs of subtrees to read next. */
const compareLevel = (pair: Pair, old: TreeEntry[], now: TreeEntry[], paths: string[], next: Pair[]): void => {
  const before = new Map(old.map((e) => [key(e), e]));
  const after = new Map(now.map((e) => [key(e), e]));
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const [a, b] = [before.get(name), after.get(name)];
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    const path = `${pair.prefix}${Buffer.from(name, 'latin1').toString('utf8')}`;
    // A file that became a directory (or back) is the file's path and every file under the directory.
    if (isTree(a) || isTree(b))
      next.push({ prefix: `${path}/`, old: isTree(a) ? a.oid : null, now: isTree(b) ? b.oid : null });
    if ((a && !isTree(a)) || (b && !isTree(b))) paths.push(path);
  }
};

/** The paths `commit` changed against its first parent (every path of a root commit; none of a merge). */
export const changedPaths = async (store: Store, commit: string): Promise<string[]> => {
  const [body, tree, parentTree] = await readObjects(store, [commit, `${commit}^{tree}`, `${commit}^1^{tree}`]);
  if (body?.type !== 'commit' || tree?.type !== 'tree')
    throw new FettleError('E_GIT', `git cat-file: ${commit} names no commit here.`);
  const parents =
    body.body
      .toString('latin1')
      .split('\n\n')[0]
      ?.match(/^parent /gm)?.length ?? 0;
  if (parents > 1) return [];
  const oidBytes = store.zeroOid.length / 2;
  const paths: string[] = [];
  let level: Pair[] = [{ prefix: '', old: parents === 1 ? (parentTree?.oid ?? null) : null, now: tree.oid }];
  while (level.length > 0) {
    const specs = level.flatMap((p) => [p.old, p.now].filter((t): t is string => t !== null));
    const trees = new Map((await readObjects(store, specs)).map((o, i) => [specs[i], o?.body ?? Buffer.alloc(0)]));
    const next: Pair[] = [];
    for (const pair of level) {
      const entries = (t: string | null) => (t === null ? [] : parseTree(trees.get(t) ?? Buffer.alloc(0), oidBytes));
      compareLevel(pair, entries(pair.old), entries(pair.now), paths, next);
    }
    level = next;
  }
  return paths.sort();
};
