// `fettle confirm <id|changeset>... | --session <id> | --all [--expired] [--with-conflicts] [--json]`: apply
// staged changes, all or nothing.
import { stat } from '../core/record-message';
import { decideRequest, namesOne } from '../protocol/review/changesets';
import { confirmChanges, type Confirmed } from '../protocol/review/confirm';
import { openStore } from '../protocol/select/open';
import { contextFor, invokeFor, type Edge } from './edge';
import { setLabel } from './change-view';
import { plural } from '../core/plural';

const regions = (n: number): string => plural(n, 'overlapping region');

const HOW: Record<Confirmed['how'], (c: Confirmed) => string> = {
  written: () => '',
  merged: () => ', merged with the edits made on disk since it was staged',
  'already-on-disk': () => ' (the file already held it)',
  conflicts: (c) =>
    `, merged with the edits made on disk since it was staged; ${regions(c.conflicts ?? 0)} ${c.conflicts === 1 ? 'is' : 'are'} marked in the file (<<<<<<< on disk ... >>>>>>> fettle)`,
};

const row = (c: Confirmed) => ({
  id: c.change.id,
  path: c.change.fields.path,
  file: c.path,
  how: c.how,
  added: c.change.fields.added,
  removed: c.change.fields.removed,
  ...(c.how === 'conflicts' ? { conflicts: c.conflicts } : {}),
});

export const confirmCommand = async (
  edge: Edge,
  dir: string | undefined,
  names: string[],
  o: { json?: boolean; session?: string; all?: boolean; expired?: boolean; withConflicts?: boolean },
): Promise<void> => {
  const request = decideRequest('confirm', names, o);
  const ctx = contextFor(edge, dir);
  const { confirmed, skipped, changeset } = await confirmChanges(ctx, await openStore(ctx), request);
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
  const marked = confirmed.filter((c) => c.how === 'conflicts');
  const them = marked.length === 1 && marked[0]?.conflicts === 1 ? 'it' : 'them';
  const resolve = `Resolve ${them} in your editor, or undo this with \`${invokeFor(edge, dir)} rollback ${marked.map((c) => c.change.id).join(' ')}\`.`;
  if (one) {
    const { fields } = only.change;
    const applied = `Applied ${only.change.id} to ${fields.path} (${stat(fields.added, fields.removed)})${HOW[only.how](only)}`;
    edge.io.out(only.how === 'conflicts' ? `${applied}. ${resolve}` : `${applied}.`);
    return;
  }
  const lines = [
    `Applied ${plural(confirmed.length, 'change')}${setLabel(changeset, o.session)}, all or nothing:`,
    ...confirmed.map(
      (c) =>
        `  ${c.change.id}  ${c.change.fields.path}  ${stat(c.change.fields.added, c.change.fields.removed) || c.change.fields.reason || '-'}${HOW[c.how](c)}`,
    ),
  ];
  if (skipped.length > 0)
    lines.push(`Left out ${skipped.length} already decided: ${skipped.map((c) => `${c.id} (${c.state})`).join(', ')}.`);
  if (marked.length > 0) lines.push(resolve);
  edge.io.out(lines.join('\n'));
};
