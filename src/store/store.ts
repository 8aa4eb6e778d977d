// What fettle works on: a store (the user's repository, or the private one outside repositories) and a target
// file in it. Plain types, imported by every layer above the store.
import type { GitRunner } from './git';

export interface Store {
  kind: 'repo' | 'private';
  git: GitRunner;
  /** where refs and objects live (the common dir of a linked worktree) */
  commonDir: string;
  /** real path of the work tree; '/' for the private store, which records absolute paths */
  workTree: string;
  objectFormat: 'sha1' | 'sha256';
  zeroOid: string;
  /** the commit HEAD pointed at when the store was opened; null when unborn, and for the private store */
  head: string | null;
  /**
   * Objects already read when the store was opened (the resident server reads HEAD and the trees along the
   * written path at once), by the cat-file spec that names them; null: that spec names nothing.
   */
  read?: ReadonlyMap<string, { oid: string; type: string; body: Buffer } | null> | undefined;
  /**
   * Set only when the store was opened with `early` (locate.ts): HEAD and the trees along the path are still being
   * read, and `head` and `read` are filled in when this resolves. Await it before using either.
   */
  ready?: Promise<void> | undefined;
  /** whether the store carries a stamp of its format (store-format.ts), as found when it was opened */
  stamped?: boolean | undefined;
  /**
   * Set when the repository was found plain from its files (discover-files.ts): fettle's refs under the prefixes
   * read from theirs (ref-files.ts), or null when git is to list them
   */
  refTips?: ((prefixes: readonly string[]) => { ref: string; oid: string }[] | null) | undefined;
}

export interface Target {
  store: Store;
  /** real path of the file (symlinks followed), which is what gets read and written */
  realPath: string;
  /** path inside the store's trees, with '/' separators */
  treePath: string;
}
