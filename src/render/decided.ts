// What a confirm or a discard says it did, for every edge: one change in a sentence, several as a list, all or
// nothing; the dialect names the undo.
import { stat } from '../core/record-message';
import { plural } from '../core/plural';
import type { Change } from '../protocol/changes';
import type { Confirmed } from '../protocol/review/confirm';
import type { Decided } from '../protocol/review/split-off';
import { hunkListText } from '../core/hunks';
import type { Dialect } from './dialect';
import { shownFile } from '../core/shown-path';

/** What a decision was asked about: one change by name (a sentence), or a set (`label`: " of changeset …"). */
export interface Asked {
  one: boolean;
  label: string;
}

const HOW: Record<Confirmed['how'], (c: Confirmed) => string> = {
  written: () => '',
  merged: () => ', merged with the edits made on disk since it was staged',
  'already-on-disk': () => ' (the file already held it)',
  conflicts: (c) =>
    `, merged with the edits made on disk since it was staged; ${plural(c.conflicts ?? 0, 'overlapping region')} ${c.conflicts === 1 ? 'is' : 'are'} marked in the file (<<<<<<< on disk ... >>>>>>> fettle)`,
};

const counts = (c: Change): string => stat(c.fields.added, c.fields.removed) || c.fields.reason || '-';

const leftOut = (skipped: Change[]): string[] =>
  skipped.length === 0
    ? []
    : [`Left out ${skipped.length} already decided: ${skipped.map((c) => `${c.id} (${c.state})`).join(', ')}.`];

export const confirmedText = (
  outcome: { confirmed: Confirmed[]; skipped: Change[] },
  asked: Asked,
  dialect: Dialect,
): string => {
  const { confirmed, skipped } = outcome;
  const marked = confirmed.filter((c) => c.how === 'conflicts');
  const them = marked.length === 1 && marked[0]?.conflicts === 1 ? 'it' : 'them';
  const resolve = `Resolve ${them} in your editor, or undo this with ${dialect.rollback(marked.map((c) => c.change.id))}.`;
  const undo = `Undo this with ${dialect.rollback(confirmed.map((c) => c.change.id))}.`;
  const after = marked.length > 0 ? resolve : confirmed.length > 0 ? undo : '';
  const [only] = confirmed;
  if (asked.one && only && confirmed.length === 1) {
    const { fields } = only.change;
    const applied = `Applied ${only.change.id} to ${shownFile(fields)} (${stat(fields.added, fields.removed)})${HOW[only.how](only)}`;
    // One change by name: the person who named it knows its id, so only a conflict says how to undo.
    return marked.length > 0 ? `${applied}. ${resolve}` : `${applied}.`;
  }
  return [
    `Applied ${plural(confirmed.length, 'change')}${asked.label}, all or nothing:`,
    ...confirmed.map((c) => `  ${c.change.id}  ${shownFile(c.change.fields)}  ${counts(c.change)}${HOW[c.how](c)}`),
    ...leftOut(skipped),
    ...(after ? [after] : []),
  ].join('\n');
};

export const discardedText = (outcome: { discarded: Change[]; skipped: Change[] }, asked: Asked): string => {
  const { discarded, skipped } = outcome;
  const [only] = discarded;
  if (asked.one && only && discarded.length === 1)
    return `Discarded ${only.id}; ${shownFile(only.fields)} was not touched.`;
  return [
    `Discarded ${plural(discarded.length, 'change')}${asked.label}; no file was touched:`,
    ...discarded.map((c) => `  ${c.id}  ${shownFile(c.fields)}`),
    ...leftOut(skipped),
  ].join('\n');
};

/** " of changeset …" or " of session …", or nothing. */
export const setLabel = (changeset: string | undefined, session: string | undefined): string =>
  changeset ? ` of changeset ${changeset}` : session !== undefined ? ` of session ${session}` : '';

/** What a decision about some hunks of one change did: which it took, and where the others wait. */
export const partlyText = (d: Decided, dialect: Dialect): string => {
  const picked = d.picked;
  const { id, fields } = d.change;
  if (!picked) return '';
  const which = (list: number[]) => `${list.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(list)}`;
  const of = `(of ${picked.count}) of change ${id}`;
  const rest = d.remainder
    ? `${picked.rest.length === 1 ? 'Hunk' : 'Hunks'} ${hunkListText(picked.rest)} ${picked.rest.length === 1 ? 'stays' : 'stay'} pending as change ${d.remainder}: ${dialect.review(d.remainder)}.`
    : '';
  if (d.outcome === 'discarded')
    return [`Dropped ${which(picked.drop)} ${of}; ${shownFile(fields)} was not touched.`, rest]
      .filter(Boolean)
      .join(' ');
  const how =
    d.how && d.how !== 'written' ? HOW[d.how]({ change: d.change, path: '', how: d.how, conflicts: d.conflicts }) : '';
  const dropped = picked.drop.length > 0 ? ` Dropped ${which(picked.drop)}.` : '';
  return [
    `Applied ${which(picked.keep)} ${of} to ${shownFile(fields)} (${stat(fields.added, fields.removed)})${how}.${dropped}`,
    rest,
    `Undo this with ${dialect.rollback([id])}.`,
  ]
    .filter(Boolean)
    .join(' ');
};
