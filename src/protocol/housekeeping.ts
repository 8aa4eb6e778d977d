// What a write leaves to do once it is recorded: retention (a bounded step: retention.ts). In a hook process it
// runs before the process ends (PostToolUse is a background hook there); in the resident server, after the
// answer (Context.background), so a blocking HTTP hook never waits for it.
import type { Store } from '../store/store';
import type { Context } from './context';
import { retainQuietly } from './retention';

export const housekeep = async (ctx: Context, store: Store): Promise<void> => {
  const work = () => retainQuietly(ctx, store);
  if (ctx.background) ctx.background(store.commonDir, work);
  else await work();
};
