// Object writers only tests use: fettle itself writes blobs, trees and commits in batches (src/store/objects.ts).
import { planTrees, rootOf, writeBatch, writeBlobs } from '../../src/store/objects';
import { readLevels } from '../../src/store/object-read';
import type { Store } from '../../src/store/store';
import { compareEntries, encodeSorted, type TreeEntry } from '../../src/store/tree-codec';

export const writeBlob = async (store: Store, bytes: Buffer): Promise<string> =>
  (await writeBlobs(store, [bytes]))[0] as string;

/** `baseTree` with `path` set to `leaf` (null: removed), written; returns the new root tree's oid. */
export const writeTreeWith = async (
  store: Store,
  baseTree: string | null,
  path: string,
  leaf: { mode: string; oid: string } | null,
): Promise<string> => {
  const trees = planTrees(store, await readLevels(store, baseTree, path), path, leaf);
  await writeBatch(store, trees, []);
  return rootOf(trees);
};

/** A tree's body from entries in any order (git's own order is applied). */
export const encodeTree = (entries: TreeEntry[]): Buffer => encodeSorted([...entries].sort(compareEntries));
