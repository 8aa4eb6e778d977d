import { stat } from '../core/record-message';
import { confirm, type ConfirmOptions } from '../protocol/confirm';
import { storeOf } from '../protocol/arguments';
import { contextFor, invokeFor, type Edge } from './edge';

export const confirmCommand = async (
  edge: Edge,
  dir: string | undefined,
  id: string,
  o: { json?: boolean } & ConfirmOptions,
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const result = await confirm(ctx, await storeOf(ctx), id, o);
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
        ...(result.how === 'conflicts' ? { conflicts: result.conflicts } : {}),
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
  if (result.how === 'conflicts') {
    const n = result.conflicts ?? 0;
    edge.io.out(
      `Applied ${id} to ${fields.path} (${stat(fields.added, fields.removed)}), merged with the edits made on disk since it was staged; ${n} overlapping region${n === 1 ? ' is' : 's are'} marked in the file (<<<<<<< on disk ... >>>>>>> fettle). Resolve ${n === 1 ? 'it' : 'them'} in your editor, or undo this with \`${invokeFor(edge, dir)} rollback ${id}\`.`,
    );
    return;
  }
  edge.io.out(`Applied ${id} to ${fields.path} (${stat(fields.added, fields.removed)})${how}.`);
};
