// `fettle discard <id|changeset>... | --session <id> | --all [--json]`: drop staged changes, all or nothing.
import { decideRequest, namesOne } from '../protocol/review/changesets';
import { discardChanges } from '../protocol/review/discard-set';
import { openStore } from '../protocol/select/open';
import { contextFor, type Edge } from './edge';
import { setLabel } from './change-view';
import { plural } from '../core/plural';

export const discardCommand = async (
  edge: Edge,
  dir: string | undefined,
  names: string[],
  o: { json?: boolean; session?: string; all?: boolean },
): Promise<void> => {
  const request = decideRequest('discard', names, o);
  const ctx = contextFor(edge, dir);
  const { discarded, skipped, changeset } = await discardChanges(ctx, await openStore(ctx), request);
  const [only] = discarded;
  const one = namesOne(request) && changeset === undefined && only !== undefined && discarded.length === 1;
  if (o.json) {
    const rows = discarded.map((c) => ({ id: c.id, path: c.fields.path, state: 'discarded' }));
    edge.io.out(
      JSON.stringify(
        one ? rows[0] : { changeset: changeset ?? null, changes: rows, skipped: skipped.map((c) => c.id) },
      ),
    );
    return;
  }
  if (one) {
    edge.io.out(`Discarded ${only.id}; ${only.fields.path} was not touched.`);
    return;
  }
  const lines = [
    `Discarded ${plural(discarded.length, 'change')}${setLabel(changeset, o.session)}; no file was touched:`,
    ...discarded.map((c) => `  ${c.id}  ${c.fields.path}`),
  ];
  if (skipped.length > 0)
    lines.push(`Left out ${skipped.length} already decided: ${skipped.map((c) => `${c.id} (${c.state})`).join(', ')}.`);
  edge.io.out(lines.join('\n'));
};
