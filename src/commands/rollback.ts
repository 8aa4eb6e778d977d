import { rollback } from '../protocol/rollback';
import { contextFor, storeFor, type Edge } from './edge';

const HOW = { restored: 'restored its previous bytes', removed: 'removed it (the change had created it)', merged: 'undid the change, keeping the edits made since', forced: 'overwrote it with the previous bytes (--force)' };

export const rollbackCommand = async (edge: Edge, dir: string | undefined, id: string, o: { json?: boolean; force?: boolean }): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const result = await rollback(ctx, await storeFor(ctx), id, { force: o.force });
  const { path } = result.change.fields;
  if (o.json) edge.io.out(JSON.stringify({ id, path, how: result.how, undoId: result.undoId }));
  else edge.io.out(`Rolled back ${id}: ${path}: ${HOW[result.how]}. Undo this with \`fettle rollback ${result.undoId}\`.`);
};
