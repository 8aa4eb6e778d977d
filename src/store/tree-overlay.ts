// Several paths edited into one tree, in memory, one after another: the directories along every path are read
// once (one cat-file for all), then each edit starts from the trees the edits before it produced. Cost grows
// with the number of paths and their depth, never with the size of the repository.
import type { BatchObject } from './object-read';
import { editTree, parseTree, TREE_MODE, type NewTree } from './tree-codec';

/** The directories (as `a/b`, the root as ``) along each path, each once, shallowest first. */
export const dirsAlong = (paths: readonly string[]): string[] => {
  const dirs = new Set<string>();
  for (const path of paths) {
    const segments = path.split('/');
    for (let depth = 0; depth < segments.length; depth++) dirs.add(segments.slice(0, depth).join('/'));
  }
  return [...dirs].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.split('/').length - b.split('/').length));
};

/** The cat-file specs reading `dirs` below `root` (a commit, tree or ref); none when there is no root. */
export const dirSpecs = (root: string | null, dirs: readonly string[]): string[] =>
  root === null ? [] : dirs.map((dir) => `${root}:${dir}`);

/** Directory -> its tree as git stores it (absent or not a tree: empty). */
export type Overlay = Map<string, Buffer>;

export const overlayOf = (dirs: readonly string[], objects: readonly (BatchObject | null)[]): Overlay =>
  new Map(dirs.map((dir, n) => [dir, objects[n]?.type === 'tree' ? objects[n].body : Buffer.alloc(0)]));

/**
 * Sets `path` to `leaf` (null: removes it) in the overlay and returns the new trees, children first, the root
 * last. Every directory along `path` must have been read into the overlay (see dirsAlong).
 */
export const editOverlay = (
  overlay: Overlay,
  path: string,
  leaf: { mode: string; oid: string } | null,
  format: 'sha1' | 'sha256',
): NewTree[] => {
  const segments = path.split('/');
  const dirAt = (depth: number) => segments.slice(0, depth).join('/');
  const levels = segments.map((_, depth) => overlay.get(dirAt(depth)) ?? Buffer.alloc(0));
  const trees = editTree(levels, segments, leaf, format);
  const made = new Map(trees.map((t) => [t.depth, t.body]));
  // A directory the edit left empty is dropped from its parent: it reads as empty from now on.
  for (let depth = 0; depth < segments.length; depth++) overlay.set(dirAt(depth), made.get(depth) ?? Buffer.alloc(0));
  return trees;
};

/** The directory holding `path` (`` for the root), as the overlay names it. */
export const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

export interface Leaf {
  mode: string;
  oid: string;
}

/** The entry `path` names in the overlay (null: none, or a directory), as the edits so far left it. */
export const leafAt = (overlay: Overlay, path: string, format: 'sha1' | 'sha256'): Leaf | null => {
  const slash = path.lastIndexOf('/');
  const tree = overlay.get(parentOf(path));
  if (!tree || tree.length === 0) return null;
  const name = Buffer.from(path.slice(slash + 1), 'utf8');
  const found = parseTree(tree, format === 'sha256' ? 32 : 20).find((e) => e.name.equals(name));
  return found && found.mode !== TREE_MODE ? { mode: found.mode, oid: found.oid } : null;
};

export const sameLeaf = (a: Leaf | null, b: Leaf | null): boolean =>
  a === b || (a !== null && b !== null && a.oid === b.oid && a.mode === b.mode);
