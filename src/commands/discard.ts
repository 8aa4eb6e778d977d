// `fettle discard <id|changeset>... | --session <id> | --all [--json]`: drop staged changes, all or nothing.
import { decideRequest, namesOne } from '../protocol/review/changesets';
import { discardChanges } from '../protocol/review/discard-set';
import { openStore } from '../protocol/select/open';
import { discardedText, setLabel } from '../render/decided';
import { contextFor, type Edge } from './edge';
import { decideHunks, discardWithReason } from './hunks-decision';

export const discardCommand = async (
  edge: Edge,
  dir: string | undefined,
  names: string[],
  o: { json?: boolean; session?: string; all?: boolean; hunks?: string; reason?: string },
): Promise<void> => {
  if (o.hunks !== undefined) return decideHunks(edge, dir, 'discard', names, { ...o, hunks: o.hunks });
  if (o.reason !== undefined) return discardWithReason(edge, dir, names, { ...o, reason: o.reason });
  const request = decideRequest('discard', names, o);
  const ctx = contextFor(edge, dir);
  const outcome = await discardChanges(ctx, await openStore(ctx), request);
  const { discarded, skipped, changeset } = outcome;
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
  edge.io.out(discardedText(outcome, { one, label: setLabel(changeset, o.session) }));
};
