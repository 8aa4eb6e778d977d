import { stat } from '../core/record';
import { shortDuration } from '../core/time';
import { listChanges, type Change } from '../protocol/changes';
import { contextFor, storeFor, type Edge } from './edge';

const RECENT = 10;

const row = (c: Change, now: Date): string => {
  const counts = stat(c.fields.added, c.fields.removed) || c.fields.reason || '';
  const ago = (t: Date) => shortDuration(now.getTime() - t.getTime());
  const when =
    c.state === 'pending' && c.expiresAt ? `staged ${ago(c.at)} ago, expires in ${shortDuration(c.expiresAt.getTime() - now.getTime())}`
    : c.state === 'expired' && c.expiresAt ? `staged ${ago(c.at)} ago, expired ${ago(c.expiresAt)} ago`
    : `${c.fields.tier}, ${c.state} ${ago(c.at)} ago`;
  return `  ${c.id}  ${c.fields.path}  ${counts}  ${when}`;
};

const toJson = (c: Change) => ({
  id: c.id,
  path: c.fields.path,
  file: c.fields.file,
  tier: c.fields.tier,
  state: c.state,
  added: c.fields.added ?? null,
  removed: c.fields.removed ?? null,
  at: c.at.toISOString(),
  expiresAt: c.expiresAt?.toISOString() ?? null,
  session: c.fields.session ?? null,
  commit: c.tip,
});

export const status = async (edge: Edge, dir: string | undefined, o: { json?: boolean }): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const now = ctx.now();
  const changes = await listChanges(await storeFor(ctx), ctx.config.ttlSeconds, now);
  const pending = changes.filter((c) => c.state === 'pending' || c.state === 'expired');
  const recent = changes.filter((c) => !pending.includes(c)).slice(0, RECENT);
  if (o.json) {
    edge.io.out(JSON.stringify({ pending: pending.map(toJson), recent: recent.map(toJson) }, null, 2));
    return;
  }
  const lines: string[] = [];
  lines.push(pending.length ? `Pending (${pending.length}):` : 'No staged changes waiting.');
  for (const c of pending) lines.push(c.state === 'expired' ? `${row(c, now)}  EXPIRED` : row(c, now));
  if (pending.some((c) => c.state === 'pending')) lines.push('  apply with `fettle confirm <id>`, drop with `fettle discard <id>`');
  if (recent.length) lines.push('', 'Recent:', ...recent.map((c) => row(c, now)));
  edge.io.out(lines.join('\n'));
};
