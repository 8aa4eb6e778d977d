// `fettle show <id|commit> [--json]`: one change's metadata, its commits, and the diff of what it did.
import type { Change } from '../protocol/changes';
import { chainOf, changeDiff, type Chain } from '../protocol/history';
import { resolveChange } from '../protocol/arguments';
import { ago, changeJson, countsText, expiryText, stateText } from './change-view';
import { contextFor, useColor, type Edge } from './edge';

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
  if (f.session) lines.push(`Session:  ${f.session}`);
  if (f.tool) lines.push(`Tool:     ${f.tool}${f.toolUse ? ` (tool use ${f.toolUse})` : ''}`);
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

export const showCommand = async (
  edge: Edge,
  dir: string | undefined,
  arg: string,
  o: { json?: boolean },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const { store, change } = await resolveChange(ctx, arg, edge.io.err);
  const chain = await chainOf(store, change.tip);
  const color = useColor(edge, o.json);
  const diff = await changeDiff(store, chain, color);
  if (o.json) {
    const commits = chain.commits.map((k) => ({
      oid: k.oid,
      kind: k.fields?.kind ?? null,
      subject: k.subject,
      at: new Date(k.time * 1000).toISOString(),
    }));
    edge.io.out(JSON.stringify({ ...changeJson(change), base: chain.base, commits, diff }, null, 2));
    return;
  }
  const body =
    diff.trimEnd() ||
    (change.state === 'incomplete'
      ? '(no result recorded: the tool call has not reported back; it may wait at a permission prompt, or was refused)'
      : '(no difference)');
  edge.io.page([...details(change, chain, ctx.now()), '', body].join('\n'));
};
