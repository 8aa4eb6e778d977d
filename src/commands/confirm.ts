// `fettle confirm <id|changeset>... | --session <id> | --all [--json]`: apply staged changes, all or nothing.
import { stat } from '../core/record-message';
import { decideRequest, namesOne } from '../protocol/changesets';
import { confirmChanges, type Confirmed } from '../protocol/confirm';
import { storeOf } from '../protocol/arguments';
import { contextFor, type Edge } from './edge';
import { setLabel } from './change-view';

const HOW: Record<Confirmed['how'], string> = {
  written: '',
  merged: ', merged with the edits made on disk since it was staged',
  'already-on-disk': ' (the file already held it)',
};

const row = (c: Confirmed) => ({
  id: c.change.id,
  path: c.change.fields.path,
  file: c.path,
  how: c.how,
  added: c.change.fields.added,
  removed: c.change.fields.removed,
});

export const confirmCommand = async (
  edge: Edge,
  dir: string | undefined,
  names: string[],
  o: { json?: boolean; session?: string; all?: boolean },
): Promise<void> => {
  const request = decideRequest('confirm', names, o);
  const ctx = contextFor(edge, dir);
  const { confirmed, skipped, changeset } = await confirmChanges(ctx, await storeOf(ctx), request);
  const [only] = confirmed;
  const one = namesOne(request) && changeset === undefined && only !== undefined && confirmed.length === 1;
  if (o.json) {
    edge.io.out(
      JSON.stringify(
        one
          ? row(only)
          : { changeset: changeset ?? null, changes: confirmed.map(row), skipped: skipped.map((c) => c.id) },
      ),
    );
    return;
  }
  if (one) {
    const { fields } = only.change;
    edge.io.out(`Applied ${only.change.id} to ${fields.path} (${stat(fields.added, fields.removed)})${HOW[only.how]}.`);
    return;
  }
  const lines = [
    `Applied ${confirmed.length} change${confirmed.length === 1 ? '' : 's'}${setLabel(changeset, o.session)}, all or nothing:`,
    ...confirmed.map(
      (c) =>
        `  ${c.change.id}  ${c.change.fields.path}  ${stat(c.change.fields.added, c.change.fields.removed) || c.change.fields.reason || '-'}${HOW[c.how]}`,
    ),
  ];
  if (skipped.length > 0)
    lines.push(`Left out ${skipped.length} already decided: ${skipped.map((c) => `${c.id} (${c.state})`).join(', ')}.`);
  edge.io.out(lines.join('\n'));
};
