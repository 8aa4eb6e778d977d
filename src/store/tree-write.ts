// A tree that is another tree with many paths set or removed: the directories along the paths are read in one
// cat-file, edited in memory (tree-overlay.ts), and only each directory's final version is written. Cost grows
// with the number of paths edited and their directories, not with the size of the tree.
import { writeBatch } from './objects';
import { readObjects } from './object-read';
import type { Store } from './store';
import { hashObject, type NewTree } from './tree-codec';
import { dirSpecs, dirsAlong, editOverlay, overlayOf } from './tree-overlay';

/** A path's new entry (a blob and its git mode), or null to remove it. */
export type Leaf = { mode: string; oid: string } | null;

/** Writes `base`'s tree (a commit or tree; null: the empty tree) with `edits` applied; returns the new tree's id. */
export const writeEditedTree = async (
  store: Store,
  base: string | null,
  edits: ReadonlyMap<string, Leaf>,
): Promise<string> => {
  const paths = [...edits.keys()];
  if (paths.length === 0 && base !== null) {
    const [root] = await readObjects(store, [`${base}^{tree}`]);
    if (root?.type === 'tree') return root.oid;
  }
  const dirs = dirsAlong(paths);
  const overlay = overlayOf(dirs, await readObjects(store, dirSpecs(base, dirs)));
  const final = new Map<string, NewTree>();
  for (const [path, leaf] of edits) {
    const segments = path.split('/');
    for (const tree of editOverlay(overlay, path, leaf, store.objectFormat))
      final.set(segments.slice(0, tree.depth).join('/'), tree);
  }
  // Only trees the finished overlay still holds: one an edit emptied (and its parent dropped) is not written.
  const trees = [...final].filter(([dir, tree]) => overlay.get(dir)?.equals(tree.body)).map(([, tree]) => tree);
  const root = overlay.get('') ?? Buffer.alloc(0);
  if (!trees.some((t) => t.depth === 0))
    trees.push({ oid: hashObject('tree', root, store.objectFormat), body: root, depth: 0 });
  await writeBatch(store, trees, []);
  return (trees.find((t) => t.depth === 0) as NewTree).oid;
};
