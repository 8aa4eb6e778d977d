// `fettle status`: what is waiting for a decision, and what happened lately.
import { inEffect, type Change } from '../protocol/changes';
import type { Context } from '../protocol/context';
import { settledChanges, openStore } from '../protocol/select/open';
import { currentSession } from '../protocol/select/names';
import { currentTurn } from '../protocol/turns';
import { needsPerson } from '../protocol/decide/person-review';
import { unresolved } from '../protocol/record/failed';
import { ago, changeJson, countsText, expiryText, stateText, storeJson, storeNote } from './change-view';
import { contextFor, invokeFor, type Edge } from './edge';
import { plural } from '../core/plural';
import { shownFile } from '../core/shown-path';

const RECENT = 10;

/** Changes in their order, the members of one changeset together where its newest member is. */
const byChangeset = (changes: Change[]): Change[][] => {
  const groups: Change[][] = [];
  const of = new Map<string, Change[]>();
  for (const c of changes) {
    const set = c.fields.changeset;
    const known = set === undefined ? undefined : of.get(set);
    if (known) known.push(c);
    else {
      const group = [c];
      groups.push(group);
      if (set !== undefined) of.set(set, group);
    }
  }
  return groups;
};

const row = (c: Change, now: Date): string => {
  const when =
    c.state === 'pending' || c.state === 'expired'
      ? `staged ${ago(now, c.at)}, ${expiryText(c, now) ?? ''}`
      : `${c.fields.tier}, ${stateText(c)} ${ago(now, c.at)}`;
  return `  ${c.id}  ${shownFile(c.fields)}  ${countsText(c)}  ${when}`;
};

/** The agent session in progress and its turn: how many changes the turn made so far, and how to undo them. */
const sessionLines = (
  session: string | undefined,
  turn: number | undefined,
  changes: Change[],
  invoke: string,
): string[] => {
  if (session === undefined) return [];
  if (turn === undefined) return [`Session ${session} (turns not counted).`, ''];
  const inTurn = changes.filter((c) => c.fields.session === session && c.fields.turn === turn && !c.fields.reverts);
  const live = inTurn.filter(inEffect);
  // Only what is still in effect is offered: a turn rolled back already has nothing left to undo.
  const said =
    live.length > 0
      ? `${plural(live.length, 'change')} so far; undo them with \`${invoke} rollback --turn ${turn}\``
      : inTurn.some((c) => c.revertedBy)
        ? `its ${plural(inTurn.length, 'change')} ${inTurn.length === 1 ? 'is' : 'are'} rolled back`
        : 'no changes so far';
  return [`Session ${session}, turn ${turn} (${said}).`, ''];
};

/** What waits for a decision, a changeset's members together, each marked if expired or a person's to confirm. */
const pendingLines = (ctx: Context, pending: Change[], now: Date, invoke: string): string[] => {
  const lines = [pending.length ? `Pending (${pending.length}):` : 'No staged changes waiting.'];
  const person = (c: Change) => c.state === 'pending' && needsPerson(ctx, c);
  const marked = (c: Change, indent = '') =>
    `${indent}${c.state === 'expired' ? `${row(c, now)}  EXPIRED` : person(c) ? `${row(c, now)}  (a person confirms)` : row(c, now)}`;
  for (const group of byChangeset(pending)) {
    const [first] = group;
    const set = first?.fields.changeset;
    if (set === undefined || group.length < 2) {
      lines.push(...group.map((c) => marked(c)));
      continue;
    }
    lines.push(
      `  changeset ${set} (${group.length} changes, decided together: \`fettle confirm ${set}\`, \`fettle discard ${set}\`)`,
      ...group.map((c) => marked(c, '  ')),
    );
  }
  if (pending.some((c) => c.state === 'pending'))
    lines.push(`  apply with \`${invoke} confirm <id>\`, drop with \`${invoke} discard <id>\``);
  if (pending.some((c) => c.state === 'expired'))
    lines.push(
      `  EXPIRED ones are past their time to confirm: a person may still apply one with \`${invoke} confirm <id> --expired\``,
    );
  if (pending.some(person))
    lines.push("  those marked (a person confirms) are applied only from a person's own terminal, never the agent's");
  return lines;
};

/** The first line of a failure's reason, as its record keeps it. */
const firstLine = (c: Change): string => (c.fields.note ?? '').split('\n', 1)[0] ?? '';

/** Confirms and applies that failed and are not resolved since: what was attempted, when, why, and what resolves it. */
const failedLines = (failed: Change[], now: Date, invoke: string): string[] => {
  if (failed.length === 0) return [];
  const what = (c: Change) =>
    c.fields.attempt === 'confirm'
      ? `confirm of ${(c.fields.of ?? '').split(' ').join(', ')} (${shownFile(c.fields)})`
      : `apply of ${c.fields.contractPath ?? c.fields.path}`;
  return [
    '',
    `Failed (${failed.length}):`,
    ...failed.map((c) => `  ${c.id}  ${what(c)} failed ${ago(now, c.at)}: ${firstLine(c)}`),
    `  why in full: \`${invoke} show <id>\`; each is listed until its changes are decided or its contract applies`,
  ];
};

/** Shown by name before "and N more". */
const OPEN_NAMED = 3;

/**
 * Records whose tool call has not reported back (`incomplete`): one block, not a row each, saying what becomes of
 * them, since a person has nothing to do about them.
 */
const openLines = (open: Change[], invoke: string): string[] => {
  if (open.length === 0) return [];
  const named = open.slice(0, OPEN_NAMED).map((c) => `${c.id} ${shownFile(c.fields)}`);
  const more = open.length > OPEN_NAMED ? `, and ${open.length - OPEN_NAMED} more` : '';
  return [
    '',
    `Not reported back (${open.length}): ${named.join(', ')}${more}`,
    '  fettle kept the previous bytes before the tool ran, and the tool has not said whether it wrote (a permission',
    "  prompt may still be open). Each is settled from the disk when the agent's turn or session ends: a write that",
    `  landed is recorded, one that never happened is dropped. Nothing to do; \`${invoke} show <id>\` shows one.`,
  ];
};

export const status = async (
  edge: Edge,
  dir: string | undefined,
  o: { json?: boolean; session?: string },
): Promise<void> => {
  const ctx = contextFor(edge, dir);
  const now = ctx.now();
  const store = await openStore(ctx, { lists: true });
  const changes = await settledChanges(ctx, store, edge.io.err);
  const pending = changes.filter((c) => c.state === 'pending' || c.state === 'expired');
  const recent = changes.filter((c) => !pending.includes(c)).slice(0, RECENT);
  const open = changes.filter((c) => c.state === 'incomplete');
  const failed = unresolved(changes);
  const session = o.session ?? (await currentSession(ctx, changes));
  const turn = await currentTurn(ctx.config.dataDir, session);
  if (o.json) {
    const current = session === undefined ? null : { id: session, turn: turn ?? null };
    edge.io.out(
      JSON.stringify(
        {
          store: storeJson(store),
          session: current,
          pending: pending.map(changeJson),
          failed: failed.map(changeJson),
          recent: recent.filter((c) => !failed.includes(c)).map(changeJson),
        },
        null,
        2,
      ),
    );
    return;
  }
  const lines: string[] = storeNote(store);
  if (lines.length > 0) lines.push('');
  const invoke = invokeFor(edge, dir);
  lines.push(...sessionLines(session, turn, changes, invoke));
  lines.push(...pendingLines(ctx, pending, now, invoke));
  const shown = (c: Change) => pending.includes(c) || open.includes(c) || failed.includes(c);
  const settled = changes.filter((c) => !shown(c)).slice(0, RECENT);
  lines.push(...failedLines(failed, now, invoke));
  lines.push(...openLines(open, invoke));
  if (settled.length) lines.push('', 'Recent:', ...settled.map((c) => row(c, now)));
  edge.io.out(lines.join('\n'));
};
