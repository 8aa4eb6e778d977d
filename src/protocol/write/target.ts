// Where a tool call's file lives, found the way every step of a write finds it: the object reader is started with
// the lookup (the step reads the file's tree next), and the resident server's remembered repositories are used.
import { locateTarget } from '../../store/locate';
import { READ_BATCH } from '../../store/object-read';
import type { Target } from '../../store/store';
import type { Context } from '../context';

/** `early`: HEAD is read while the caller claims the call and reads the file (the store's `ready` says when). */
export const locateWritten = (ctx: Context, path: string, o: { early?: boolean } = {}): Promise<Target> =>
  locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir, {
    warm: [READ_BATCH],
    resident: ctx.resident,
    ...(o.early ? { early: true } : {}),
  });
