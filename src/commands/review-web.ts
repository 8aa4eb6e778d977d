// `fettle review --web [<id> | --session <s> [--turn <n>] | --all] [--no-open]`: the review page, which the entry
// loads for this command only (web/server.ts).
import { FettleError } from '../errors';
import type { Edge } from './edge';
import { quietMs, type RoomOptions, scopeOf } from './review-scope';

export const reviewWeb = async (
  edge: Edge,
  dir: string | undefined,
  change: string | undefined,
  o: RoomOptions,
): Promise<void> => {
  if (o.interactive) throw new FettleError('E_USAGE', 'Review in the browser (--web) or here (-i), not both.');
  const { ctx, scope } = await scopeOf(edge, dir, change, o);
  if (!edge.page)
    throw new FettleError('E_INTERNAL', 'internal error: this fettle was started without its review page');
  const run = edge.page();
  await run({ ctx, scope, open: o.open !== false, quietMs: quietMs(edge), say: (line) => edge.io.out(line) });
};
