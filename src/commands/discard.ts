import { discard } from '../protocol/discard';
import { storeOf } from '../protocol/arguments';
import { contextFor, type Edge } from './edge';

export const discardCommand = async (
  edge: Edge,
  dir: string | undefined,
  id: string,
  o: { json?: boolean },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const change = await discard(ctx, await storeOf(ctx), id);
  if (o.json) edge.io.out(JSON.stringify({ id, path: change.fields.path, state: 'discarded' }));
  else edge.io.out(`Discarded ${id}; ${change.fields.path} was not touched.`);
};
