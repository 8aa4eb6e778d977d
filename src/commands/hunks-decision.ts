// `fettle confirm <id> --hunks <list>` and `fettle discard <id> --hunks <list> [--reason <text>]`: one change
// decided in part, through the decision set (protocol/review/decide-set.ts); the hunks not named stay pending as
// a change of their own. Shared by the two commands, which hand over when --hunks is given.
import { parseHunkList } from '../core/hunks';
import { FettleError } from '../errors';
import { decideSet } from '../protocol/review/decide-set';
import type { Decided } from '../protocol/review/split-off';
import { openStore } from '../protocol/select/open';
import { discardedText, partlyText } from '../render/decided';
import { shellDialect } from '../render/dialect';
import { contextFor, invokeFor, type Edge } from './edge';
import { shownFile } from '../core/shown-path';

export interface HunkOptions {
  hunks: string;
  json?: boolean | undefined;
  withConflicts?: boolean | undefined;
  expired?: boolean | undefined;
  /** discard: why, for the agent that made the change */
  reason?: string | undefined;
  session?: string | undefined;
  all?: boolean | undefined;
}

const jsonOf = (d: Decided) => ({
  id: d.change.id,
  path: d.change.fields.path,
  outcome: d.outcome,
  how: d.how ?? null,
  hunks: d.picked
    ? { count: d.picked.count, kept: d.picked.keep, dropped: d.picked.drop, pending: d.picked.rest }
    : null,
  remainder: d.remainder ?? null,
});

export const decideHunks = async (
  edge: Edge,
  dir: string | undefined,
  verb: 'confirm' | 'discard',
  names: string[],
  o: HunkOptions,
): Promise<void> => {
  const [id] = names;
  if (names.length !== 1 || o.session !== undefined || o.all)
    throw new FettleError('E_USAGE', `--hunks decides part of one change: name exactly one change id.`, {
      hint: `Each change numbers its own hunks: \`fettle review <id>\` shows them.`,
    });
  // The numbers are checked against the change's hunks once it is read; here only their form.
  const list = parseHunkList(o.hunks, Number.MAX_SAFE_INTEGER);
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const choice = verb === 'confirm' ? { id: id as string, keep: list } : { id: id as string, drop: list };
  const feedback =
    verb === 'discard' && o.reason
      ? [
          {
            change: id as string,
            path: '',
            kind: 'dropped' as const,
            text: o.reason,
            hunk: list.length === 1 ? list[0] : undefined,
          },
        ]
      : undefined;
  const { decided } = await decideSet(ctx, store, {
    choices: [choice],
    feedback,
    withConflicts: o.withConflicts,
    expired: o.expired,
  });
  const [d] = decided;
  if (!d) return;
  if (o.json) edge.io.out(JSON.stringify(jsonOf(d)));
  else edge.io.out(d.picked ? partlyText(d, shellDialect(invokeFor(edge, dir))) : wholeText(d));
};

/**
 * `fettle discard <id>... --reason <text>`: whole changes dropped, and the words delivered to the sessions that
 * made them. Ids only: the reason is said of changes a person names.
 */
export const discardWithReason = async (
  edge: Edge,
  dir: string | undefined,
  names: string[],
  o: { reason: string; json?: boolean | undefined; session?: string | undefined; all?: boolean | undefined },
): Promise<void> => {
  if (names.length === 0 || o.session !== undefined || o.all)
    throw new FettleError('E_USAGE', '--reason is given with the change ids it is about, not --session or --all.');
  if (o.reason.trim() === '') throw new FettleError('E_USAGE', '--reason needs some words for the agent.');
  const ctx = contextFor(edge, dir);
  const store = await openStore(ctx);
  const { decided } = await decideSet(ctx, store, {
    choices: names.map((id) => ({ id, verdict: 'discard' as const })),
    feedback: names.map((id) => ({ change: id, path: '', kind: 'dropped' as const, text: o.reason })),
  });
  if (o.json) {
    edge.io.out(
      JSON.stringify(decided.length === 1 ? jsonOf(decided[0] as Decided) : { changes: decided.map(jsonOf) }),
    );
    return;
  }
  const changes = decided.map((d) => d.change);
  edge.io.out(
    `${discardedText({ discarded: changes, skipped: [] }, { one: changes.length === 1, label: '' })}\nThe reason goes to the agent session that made ${changes.length === 1 ? 'it' : 'them'}.`,
  );
};

/** Every hunk named: the change was decided whole. */
const wholeText = (d: Decided): string =>
  d.outcome === 'confirmed'
    ? `Applied ${d.change.id} to ${shownFile(d.change.fields)}: every hunk was named.`
    : `Discarded ${d.change.id}: every hunk was named; ${shownFile(d.change.fields)} was not touched.`;
