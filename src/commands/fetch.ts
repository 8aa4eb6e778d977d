// `fettle fetch [remote] [--json]`: teammates' shared sessions brought into refs/fettle/remotes/<remote>/, to read
// with `log`, `show` and `review`; nothing else of the repository moves, and no file is written.
import { fetchShared } from '../protocol/review/fetched';
import { openStore } from '../protocol/select/open';
import { contextFor, invokeFor, type Edge } from './edge';
import { plural } from '../core/plural';

export const fetchCommand = async (
  edge: Edge,
  dir: string | undefined,
  remote: string | undefined,
  o: { json?: boolean | undefined },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const fetched = await fetchShared(store, remote ?? 'origin');
  if (o.json) {
    edge.io.out(JSON.stringify(fetched, null, 2));
    return;
  }
  const invoke = invokeFor(edge, dir);
  const lines = [
    `Fetched ${plural(fetched.sessions.length, 'new or updated session')} of ${plural(fetched.total, 'shared session')} from ${fetched.remote} (refs/fettle/remotes/${fetched.remote}/).`,
    ...fetched.sessions.map((s) => `  ${s.state === 'new' ? 'new    ' : 'updated'}  ${s.name}`),
  ];
  const first = fetched.sessions[0];
  if (first) lines.push(`Review one: ${invoke} review --session ${first.name}`);
  edge.io.out(lines.join('\n'));
};
