// `fettle show <id|commit> [--json]`: one change's metadata, its commits, and the diff of what it did.
import type { Change } from '../protocol/changes';
import { chainOf, changeDiff, type Chain } from '../protocol/chains';
import { openStore } from '../protocol/select/open';
import { readChangesetView } from '../protocol/review/changeset-review';
import { resolveShown } from '../protocol/review/changesets';
import { fetchedChange } from '../protocol/review/fetched';
import type { Context } from '../protocol/context';
import type { Store } from '../store/store';
import { ago, changeJson, countsText, DECIDER_TEXT, expiryText, stateText } from './change-view';
import { feedbackFor } from '../protocol/record/feedback';
import { contextFor, useColor, type Edge } from './edge';
import { plural } from '../core/plural';
import { shownFile } from '../core/shown-path';

const short = (oid: string): string => oid.slice(0, 12);

const details = (c: Change, chain: Chain, now: Date): string[] => {
  const f = c.fields;
  const expiry = expiryText(c, now);
  const lines = [
    `change ${c.id}: ${chain.commits[0]?.subject ?? ''}`,
    `State:    ${stateText(c)} (${f.tier})${expiry && (c.state === 'pending' || c.state === 'expired') ? `, ${expiry}` : ''}`,
    `Path:     ${f.path}`,
    `File:     ${f.file}`,
    `When:     ${c.at.toISOString()} (${ago(now, c.at)})`,
    `Change:   ${countsText(c)}${f.reason && f.added !== undefined ? ` (${f.reason})` : ''}`,
  ];
  if (f.agent) lines.push(`Agent:    ${f.agent}`);
  if (f.session) lines.push(`Session:  ${f.session}`);
  if (f.changeset) lines.push(`Changeset: ${f.changeset} (\`fettle show ${f.changeset}\` shows all its changes)`);
  if (f.tool) lines.push(`Tool:     ${f.tool}${f.toolUse ? ` (tool use ${f.toolUse})` : ''}`);
  if (f.decidedBy) {
    const rule = f.decidedBy.startsWith('policy:') ? `policy rule ${f.decidedBy.slice('policy:'.length)}` : undefined;
    lines.push(`Decided:  ${rule ?? DECIDER_TEXT[f.decidedBy] ?? f.decidedBy}`);
  }
  if (f.contract)
    lines.push(
      `Contract: ${f.contractPath ?? '?'} (${f.contract.slice(0, 19)}…)${f.checks ? `, checks ${f.checks}` : ''}`,
    );
  if (f.command !== undefined) lines.push(`Command:  ${f.command}`);
  // What the record says beyond its one standard sentence (a command that failed, bytes not kept, a settling).
  const notes = (chain.commits[0]?.message ?? '').trimEnd().split('\n\n').slice(2, -1);
  if (notes.length > 0) lines.push('Note:', ...notes.flatMap((n) => n.split('\n')).map((l) => `  ${l}`));
  lines.push(`Ref:      ${c.ref || '(removed from history; shown from its commit)'}`);
  lines.push(
    `Base:     ${chain.base ? `${short(chain.base)} (HEAD when it was recorded)` : 'none (unborn HEAD, or a file outside any repository)'}`,
  );
  lines.push(
    'Commits:',
    ...chain.commits.map((k) => `  ${short(k.oid)}  ${(k.fields?.kind ?? '').padEnd(9)} ${k.subject}`),
  );
  return lines;
};

/** The states of several changes, counted: `2 applied, 1 discarded`. */
const statesOf = (changes: Change[]): string => {
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(stateText(c), (counts.get(stateText(c)) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${n} ${state}`).join(', ');
};

/** The command lines a changeset's members were made by (one, for a Bash command's changeset). */
const commandsOf = (members: Change[]): string[] =>
  [...new Set(members.map((c) => c.fields.command).filter((c): c is string => c !== undefined))].map(
    (c) => `Command:  ${c}`,
  );

/** `show <changeset>`: its members, and what they did or propose as one diff against the commit they were made on. */
const showChangeset = async (
  edge: Edge,
  ctx: Context,
  store: Store,
  set: { id: string; members: Change[] },
  json: boolean,
) => {
  const { id, members } = set;
  const color = !json && edge.io.isTTY && !edge.env.NO_COLOR;
  const view = await readChangesetView(store, id, members, color);
  if (json) {
    const { base, files, diff } = view;
    edge.io.out(JSON.stringify({ changeset: id, base, changes: view.members.map(changeJson), files, diff }, null, 2));
    return;
  }
  const now = ctx.now();
  const sessions = [...new Set(members.map((c) => c.fields.session ?? '-'))];
  const agents = [...new Set(members.flatMap((c) => (c.fields.agent ? [c.fields.agent] : [])))];
  const lines = [
    `changeset ${id}: ${plural(members.length, 'change')} made or decided as one`,
    `State:    ${statesOf(view.members)}`,
    ...(agents.length > 0 ? [`Agent:    ${agents.join(', ')}`] : []),
    `Session:  ${sessions.join(', ')}`,
    ...commandsOf(members),
    `Base:     ${view.base ? `${short(view.base)} (HEAD when they were recorded)` : 'none (unborn HEAD, or files outside any repository)'}`,
    'Changes:',
    ...view.members.map(
      (c) => `  ${c.id}  ${shownFile(c.fields)}  ${countsText(c)}  ${stateText(c)}, ${ago(now, c.at)}`,
    ),
    '',
    view.diff.trimEnd() || '(no difference)',
  ];
  edge.io.out(lines.join('\n'));
};

export const showCommand = async (
  edge: Edge,
  dir: string | undefined,
  arg: string,
  o: { json?: boolean },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  // An id none of this repository's changes has: a teammate's change, fetched with their session, if any.
  const found = await resolveShown(ctx, store, arg, edge.io.err).catch(async (error: unknown) => {
    const fetched = await fetchedChange(ctx, store, arg);
    if (!fetched) throw error;
    return { change: fetched, changeset: undefined };
  });
  if (found.changeset) return showChangeset(edge, ctx, store, found.changeset, o.json ?? false);
  const change = found.change as Change;
  const chain = await chainOf(store, change.tip);
  // A failed confirm or apply (protocol/record/failed.ts) changed no file: its record says what and why.
  if (change.state === 'failed') {
    const message = chain.commits[0]?.message ?? '';
    edge.io.out(o.json ? JSON.stringify({ ...changeJson(change), message }, null, 2) : message.trimEnd());
    return;
  }
  const color = useColor(edge, o.json);
  const [diff, feedback] = await Promise.all([changeDiff(store, chain, color), feedbackFor(store, change.id)]);
  if (o.json) {
    const commits = chain.commits.map((k) => ({
      oid: k.oid,
      kind: k.fields?.kind ?? null,
      subject: k.subject,
      at: new Date(k.time * 1000).toISOString(),
    }));
    const said = feedback.map((f) => ({ at: new Date(f.time * 1000).toISOString(), text: f.text }));
    edge.io.out(JSON.stringify({ ...changeJson(change), base: chain.base, commits, diff, feedback: said }, null, 2));
    return;
  }
  const body =
    diff.trimEnd() ||
    (change.state === 'incomplete'
      ? '(no result recorded: the tool call has not reported back; it may wait at a permission prompt, or was refused)'
      : '(no difference)');
  // What a person told the agent about it (review/decide-set.ts), newest first.
  const said = feedback.flatMap((f) => ['', `Feedback given ${ago(ctx.now(), new Date(f.time * 1000))}:`, f.text]);
  edge.io.page([...details(change, chain, ctx.now()), ...said, '', body].join('\n'));
};
