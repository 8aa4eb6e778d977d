// `fettle log [path] [--session <id>] [--agent <name>] [--json]`: every change fettle keeps, newest first.
import { settledChanges, openTarget, openStore } from '../protocol/select/open';
import type { Change } from '../protocol/changes';
import { fetchedChangesOf } from '../protocol/review/fetched';
import { ago, changeJson, countsText, deciderText, stateText, storeJson, storeNote, table } from './change-view';
import { contextFor, type Edge } from './edge';
import { shownFile } from '../core/shown-path';
import type { Context } from '../protocol/context';
import type { Store } from '../store/store';

/**
 * The changes listed: this repository's, by the filters given; for a session none of them belongs to, a
 * teammate's, fetched (`fettle fetch`), if any.
 */
const listed = async (
  edge: Edge,
  ctx: Context,
  store: Store,
  o: { session?: string; agent?: string; path?: string | undefined },
): Promise<Change[]> => {
  const agent = (c: Change) => o.agent === undefined || c.fields.agent === o.agent;
  const own = (await settledChanges(ctx, store, edge.io.err)).filter(
    (c) =>
      (o.path === undefined || c.fields.path === o.path) &&
      (o.session === undefined || c.fields.session === o.session) &&
      agent(c),
  );
  if (own.length > 0 || o.session === undefined || o.path !== undefined) return own;
  return (await fetchedChangesOf(ctx, store, o.session)).filter(agent);
};

export const logCommand = async (
  edge: Edge,
  dir: string | undefined,
  path: string | undefined,
  o: { json?: boolean; session?: string; agent?: string },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const target = path === undefined ? undefined : await openTarget(ctx, path);
  const store = target?.store ?? (await openStore(ctx, { lists: true }));
  const now = ctx.now();
  const changes = await listed(edge, ctx, store, { ...o, path: target?.treePath });
  if (o.json) {
    edge.io.out(JSON.stringify({ store: storeJson(store), changes: changes.map(changeJson) }, null, 2));
    return;
  }
  const note = storeNote(store);
  if (changes.length === 0) {
    edge.io.out(
      `${note.map((l) => `${l}\n`).join('')}fettle has no record of changes${target ? ` to ${target.treePath}` : ''}${o.session === undefined ? '' : ` in session ${o.session}`}${o.agent === undefined ? '' : ` made by ${o.agent}`}.`,
    );
    return;
  }
  // A CHANGESET column only when some change belongs to one: members share its id there.
  const sets = changes.some((c) => c.fields.changeset !== undefined);
  // An AGENT column only when changes of more than one agent (or of none named) are listed.
  const agents = new Set(changes.map((c) => c.fields.agent)).size > 1;
  const rows = changes.map((c) => [
    c.id,
    ago(now, c.at),
    c.fields.tier,
    shownFile(c.fields),
    countsText(c),
    c.fields.session ?? '-',
    ...(agents ? [c.fields.agent ?? '-'] : []),
    ...(sets ? [c.fields.changeset ?? '-'] : []),
    stateText(c),
    deciderText(c),
  ]);
  const header = [
    'ID',
    'WHEN',
    'TIER',
    'PATH',
    'CHANGE',
    'SESSION',
    ...(agents ? ['AGENT'] : []),
    ...(sets ? ['CHANGESET'] : []),
    'STATE',
    'DECIDED BY',
  ];
  const lines = table([header, ...rows]);
  edge.io.out([...note, ...(o.session === undefined ? lines : byTurn(changes, lines))].join('\n'));
};

/** One session's rows under a line per turn (newest first), once any of its changes knows its turn. */
const byTurn = (changes: Change[], lines: string[]): string[] => {
  if (changes.every((c) => c.fields.turn === undefined)) return lines;
  const [header = '', ...rows] = lines;
  const out = [header];
  let last: number | undefined | null = null;
  rows.forEach((line, n) => {
    const turn = changes[n]?.fields.turn;
    if (turn !== last) out.push(turn === undefined ? 'Before turns were counted:' : `Turn ${turn}:`);
    last = turn;
    out.push(line);
  });
  return out;
};
