import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RecordFields } from '../core/record';
import type { Store } from '../store/locate';
import { fettleDir } from '../store/worktrees';

/**
 * Where a recorded file lives: the absolute path recorded with it. Linked worktrees share one store, so the
 * work tree a command runs in is not necessarily the one the change was made in.
 */
export const diskPathOf = (fields: RecordFields): string => fields.file;

/** One lock per file: every command that writes a user's file holds it. */
export const fileLockPath = (store: Store, path: string): string =>
  join(fettleDir(store), 'locks', `${createHash('sha1').update(path).digest('hex').slice(0, 20)}.lock`);
