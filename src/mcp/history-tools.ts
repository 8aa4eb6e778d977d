// fettle_status, fettle_log and fettle_show: what fettle keeps, for the model. Lists come back as
// JSON (a model reads it as well as a table, and a script better); a diff as text, capped so
// that one answer stays well inside a client's limit on tool output (Claude Code's is 25,000 tokens).
import { capDiff } from '../core/messages';
import { settledChanges, openStore, openTarget } from '../protocol/select/open';
import type { Change } from '../protocol/changes';
import { readChangesetView } from '../protocol/review/changeset-review';
import { resolveShown } from '../protocol/review/changesets';
import type { Context } from '../protocol/context';
import { chainOf, changeDiff } from '../protocol/chains';
import type { Store } from '../store/store';
import { type Args, contextFor, type McpEdge, text, type ToolResult } from './edge';

const RECENT = 10;
const LOG_LIMIT = 50;

/** A change as JSON: its state and times, then every field its record holds (what a new trailer adds comes too). */
const row = (c: Change) => {
  const { id, time, seq, note, ...fields } = c.fields;
  const pending = c.state === 'pending' || c.state === 'expired';
  return {
    id,
    state: c.revertedBy ? 'rolled-back' : c.state,
    at: c.at.toISOString(),
    ...(pending && c.expiresAt ? { expiresAt: c.expiresAt.toISOString() } : {}),
    ...(c.revertedBy ? { rolledBackBy: c.revertedBy } : {}),
    ...fields,
  };
};

const where = (store: Store) =>
  store.kind === 'repo' ? { repository: store.workTree } : { privateStore: store.commonDir };

const json = (value: unknown): ToolResult => text(JSON.stringify(value, null, 2));

export const statusTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const ctx = contextFor(edge, args);
  const store = await openStore(ctx);
  const changes = await settledChanges(ctx, store, edge.log);
  const pending = changes.filter((c) => c.state === 'pending' || c.state === 'expired');
  const recent = changes.filter((c) => !pending.includes(c)).slice(0, RECENT);
  const person = (c: Change) => ctx.config.review === 'human' || c.fields.review === 'person';
  return json({
    ...where(store),
    session: edge.session,
    agent: edge.agent() ?? null,
    pending: pending.map((c) => ({ ...row(c), ...(person(c) ? { personConfirms: true } : {}) })),
    recent: recent.map(row),
    next:
      pending.length > 0
        ? 'fettle_confirm or fettle_discard with their ids; those with personConfirms only the user applies, from their terminal.'
        : 'Nothing waits for a decision.',
  });
};

export const logTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const ctx = contextFor(edge, args);
  const target = typeof args.path === 'string' ? await openTarget(ctx, args.path) : undefined;
  const store = target?.store ?? (await openStore(ctx));
  const session = args.session as string | undefined;
  const changes = (await settledChanges(ctx, store, edge.log)).filter(
    (c) => (!target || c.fields.path === target.treePath) && (session === undefined || c.fields.session === session),
  );
  const limit = (args.limit as number | undefined) ?? LOG_LIMIT;
  const more = Math.max(0, changes.length - limit);
  return json({ ...where(store), changes: changes.slice(0, limit).map(row), ...(more > 0 ? { more } : {}) });
};

/** A diff as the model is shown it: capped, with where to see the rest. */
const shownDiff = (diff: string, whole: string): string => {
  if (diff.trim() === '') return '(no difference)';
  const shown = capDiff(diff.trimEnd());
  const cut = shown.cutLines > 0 || shown.shortened > 0;
  return cut ? `${shown.text}\n[the diff is cut; all of it: ${whole}]` : shown.text;
};

const showChange = async (store: Store, change: Change): Promise<ToolResult> => {
  const chain = await chainOf(store, change.tip);
  const diff = await changeDiff(store, chain, false);
  const commits = chain.commits.map((k) => ({ oid: k.oid, kind: k.fields?.kind ?? null, subject: k.subject }));
  const head = JSON.stringify({ ...row(change), base: chain.base, commits }, null, 2);
  const body =
    diff.trim() === '' && change.state === 'incomplete'
      ? '(no result recorded: the tool call has not reported back)'
      : shownDiff(diff, `git show fettle/${change.id}`);
  return text(`${head}\n\n${body}`);
};

export const showTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const ctx: Context = contextFor(edge, args);
  const store = await openStore(ctx);
  const found = await resolveShown(ctx, store, args.change as string, edge.log);
  if (!found.changeset) return showChange(store, found.change as Change);
  const { id, members } = found.changeset;
  const view = await readChangesetView(store, id, members, false);
  const head = JSON.stringify(
    { changeset: id, base: view.base, files: view.files, changes: view.members.map(row) },
    null,
    2,
  );
  return text(`${head}\n\n${shownDiff(view.diff, `fettle show ${id}`)}`);
};
