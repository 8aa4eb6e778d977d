// `fettle confirm <id|changeset>... | --session <id> | --all [--expired] [--with-conflicts] [--json]`: apply
// staged changes, all or nothing.
import { decideRequest, namesOne } from '../protocol/review/changesets';
import { confirmChanges, type Confirmed } from '../protocol/review/confirm';
import { openStore } from '../protocol/select/open';
import { confirmedText, setLabel } from '../render/decided';
import { shellDialect } from '../render/dialect';
import { contextFor, invokeFor, type Edge } from './edge';
import { decideHunks } from './hunks-decision';

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
  o: { json?: boolean; session?: string; all?: boolean; expired?: boolean; withConflicts?: boolean; hunks?: string },
): Promise<void> => {
  if (o.hunks !== undefined) return decideHunks(edge, dir, 'confirm', names, { ...o, hunks: o.hunks });
  const request = decideRequest('confirm', names, o);
  const ctx = contextFor(edge, dir);
  const outcome = await confirmChanges(ctx, await openStore(ctx), request);
  const { confirmed, skipped, changeset } = outcome;
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
  const asked = { one, label: setLabel(changeset, o.session) };
  edge.io.out(confirmedText(outcome, asked, shellDialect(invokeFor(edge, dir))));
};
