import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RecordFields } from '../core/record-message';
import type { Store } from '../store/store';
import { fettleDir, userWorkTrees } from '../store/worktrees';
import { isInsideDotGit } from '../core/dot-git';
import { FettleError } from '../errors';

/** A tree path as fettle records one: relative, '/'-separated, no empty, '.' or '..' part, not into a .git dir. */
const isCleanTreePath = (path: string): boolean =>
  path !== '' && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..') && !isInsideDotGit(path);

const untrusted = (fields: RecordFields, why: string): FettleError =>
  new FettleError(
    'E_UNTRUSTED',
    `change ${fields.id} records ${JSON.stringify(fields.file)} for ${JSON.stringify(fields.path)}, ${why}; fettle does not act on it.`,
    {
      hint: `fettle did not write this record (it may have come with a clone or fetch of refs/fettle/*). Inspect it with \`git show ${fields.id}\` and delete it with \`git update-ref -d refs/fettle/${fields.id}\`.`,
    },
  );

/**
 * Where a recorded file lives, derived from the repository and the tree path: the recorded absolute path is
 * used only when it is that path inside one of the repository's work trees (linked worktrees share one store,
 * so the one a command runs in is not necessarily the change's). Refs under refs/fettle/ can arrive from
 * elsewhere (`clone --mirror`, a `refs/*` fetch, a copied .git), so a record is never trusted alone.
 */
export const diskPathOf = async (store: Store, fields: RecordFields): Promise<string> => {
  if (!isCleanTreePath(fields.path)) throw untrusted(fields, 'which is not a path inside a repository');
  const within = (root: string) => join(root, ...fields.path.split('/'));
  if (store.kind === 'private') {
    if (fields.file === within('/')) return fields.file;
    throw untrusted(fields, 'which disagree');
  }
  if (fields.file === within(store.workTree)) return fields.file;
  if ((await userWorkTrees(store)).some((tree) => fields.file === within(tree))) return fields.file;
  throw untrusted(fields, "which is not that path in any of this repository's work trees");
};

/** One lock per file: every command that writes a user's file holds it. */
export const fileLockPath = (store: Store, path: string): string =>
  join(fettleDir(store), 'locks', `${createHash('sha1').update(path).digest('hex').slice(0, 20)}.lock`);
