import { stat } from '../core/record-message';
import { confirm } from '../protocol/confirm';
import { storeOf } from '../protocol/arguments';
import { contextFor, type Edge } from './edge';

export const confirmCommand = async (
  edge: Edge,
  dir: string | undefined,
  id: string,
  o: { json?: boolean },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const result = await confirm(ctx, await storeOf(ctx), id);
  const { fields } = result.change;
  if (o.json) {
    edge.io.out(
      JSON.stringify({
        id,
        path: fields.path,
        file: result.path,
        how: result.how,
        added: fields.added,
        removed: fields.removed,
      }),
    );
    return;
  }
  const how =
    result.how === 'merged'
      ? ', merged with the edits made on disk since it was staged'
      : result.how === 'already-on-disk'
        ? ' (the file already held it)'
        : '';
  edge.io.out(`Applied ${id} to ${fields.path} (${stat(fields.added, fields.removed)})${how}.`);
};
