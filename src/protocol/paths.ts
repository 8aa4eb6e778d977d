import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RecordFields } from '../core/record';
import type { Store } from '../store/locate';
import { fettleDir } from '../store/worktrees';

/** Where a recorded file lives now: repositories record paths relative to their work tree. */
export const diskPathOf = (store: Store, fields: RecordFields): string =>
  store.kind === 'repo' ? join(store.workTree, ...fields.path.split('/')) : fields.file;

/** One lock per file: every command that writes a user's file holds it. */
export const fileLockPath = (store: Store, path: string): string =>
  join(fettleDir(store), 'locks', `${createHash('sha1').update(path).digest('hex').slice(0, 20)}.lock`);
