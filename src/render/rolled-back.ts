// What a rollback says it did or would do, for every edge: the files it changes, the changes that left nothing to
// undo, the ones whose bytes fettle never kept, and how to undo the rollback itself (the dialect names it).
import { sameBytes } from '../core/content';
import { countChanges } from '../core/diff';
import { plural } from '../core/plural';
import { stat } from '../core/record-message';
import type { RollbackOutcome } from '../protocol/history/rollback';
import type { FilePlan } from '../protocol/history/rollback-plan';
import type { Dialect } from './dialect';
import { shownFile } from '../core/shown-path';

const HOW = {
  restored: 'restored its previous bytes',
  removed: 'removed it (the change had created it)',
  merged: 'undid the change, keeping the edits made since',
  forced: 'overwrote it with the previous bytes (--force)',
} as const;

/** Some hunks undone: the rest of the change stays as it wrote it. */
const PART_HOW = {
  restored: 'put back the lines replaced there; the rest of the change stays',
  removed: 'removed it (the change had created it)',
  merged: 'put back the lines replaced there, keeping the edits made since',
  forced: 'put back the lines replaced there, overwriting the edits made since (--force)',
};

/** Whose edits a merge kept or --force overwrote, as the end of a sentence: ` by session A (change …)`. */
const byOf = (by: string | undefined): string => (by ? ` by ${by}` : '');

/** What one undone change did to its file; a merge or --force names who wrote it since. */
const howOf = (d: { how: keyof typeof HOW; by?: string | undefined }): string => {
  if (d.how === 'merged') return `${HOW.merged}${byOf(d.by)}`;
  return d.how === 'forced' && d.by ? `${HOW.forced}, over the edits made since${byOf(d.by)}` : HOW[d.how];
};

/** What the rollback does to one file, for a dry run. */
const action = (plan: FilePlan): string => {
  const hows = new Set(plan.steps.map((s) => s.how));
  const by = byOf(plan.steps.find((s) => s.by)?.by);
  if (plan.final === null) return 'remove it';
  if (plan.original === null) return 'recreate it with its previous bytes';
  if (hows.has('forced')) return `overwrite it with its previous bytes (--force), over the edits made since${by}`;
  if (hows.has('merged')) return `undo the changes, keeping the edits made since${by}`;
  return 'restore its previous bytes';
};

/** A file whose bytes or mode the rollback changes (a file created, edited and then deleted nets to nothing). */
const changes = (p: FilePlan): boolean =>
  p.steps.length > 0 &&
  !(
    sameBytes(p.original?.bytes, p.final?.bytes) &&
    (p.original === null) === (p.final === null) &&
    p.original?.mode === p.final?.mode
  );

export const fileRows = (plans: FilePlan[]) =>
  plans.filter(changes).map((p) => {
    const counts = countChanges(p.original?.bytes ?? null, p.final?.bytes ?? null);
    return {
      path: p.target.treePath,
      file: p.target.realPath,
      action: action(p),
      added: counts.added ?? null,
      removed: counts.removed ?? null,
      changes: p.steps.flatMap((s) => s.covers.map((c) => c.id)),
    };
  });

export const skippedRows = (plans: FilePlan[]) =>
  plans.flatMap((p) => p.skipped.map((c) => ({ id: c.id, path: c.fields.path })));

/** Changes whose bytes fettle did not keep (a command's file over the size cap), named with the others. */
export const notKeptRows = (outcome: RollbackOutcome) =>
  outcome.notKept.map((c) => ({ id: c.id, path: c.fields.path }));

const notKeptLines = (outcome: RollbackOutcome): string[] =>
  notKeptRows(outcome).map(
    (k) => `  ${k.id}  ${k.path}: not kept when it was recorded (too large or not a regular file); left as it is`,
  );

const ids = (list: string[]): string => (list.length > 3 ? `${list.length} changes` : list.join(', '));

export const dryRunText = (outcome: RollbackOutcome): string => {
  const files = fileRows(outcome.plans);
  const skipped = skippedRows(outcome.plans);
  const refused = outcome.refusals;
  const them = refused.length === 1 ? 'it' : 'them';
  const lines = [
    refused.length === 0
      ? `Dry run: rolling back would change ${plural(files.length, 'file')}; nothing was changed.`
      : `Dry run: ${plural(refused.length, 'file')} cannot be rolled back, so a rollback would change nothing until ${refused.length === 1 ? 'it is' : 'they are'} resolved (or with --force); without ${them} it would change ${plural(files.length, 'file')}. Nothing was changed.`,
  ];
  for (const f of files)
    lines.push(
      `  ${shownFile(f)}  ${f.added === null ? 'binary' : stat(f.added, f.removed ?? 0)}  ${f.action} (${ids(f.changes)})`,
    );
  for (const r of refused) lines.push(`  refused: ${r.message}${r.hint ? ` ${r.hint}` : ''}`);
  if (skipped.length <= 10)
    for (const k of skipped) lines.push(`  ${k.path}  already holds the bytes ${k.id} replaced; nothing to do`);
  else lines.push(`  ${skipped.length} changes left nothing to undo (their files already hold what they replaced)`);
  lines.push(...notKeptLines(outcome));
  return lines.join('\n');
};

/** The rollback's own ids, newest first, and what undoes it as a whole (its changeset, when it made one). */
export const undoOf = (outcome: RollbackOutcome): { ids: string[]; undo: string[] } => {
  const undoIds = [...new Set(outcome.done.map((d) => d.undoId))].reverse();
  return { ids: undoIds, undo: outcome.undoChangeset ? [outcome.undoChangeset] : undoIds };
};

/** `one`: a single change was named (a sentence); `label`: " of session …" for a session's or a turn's. */
export const rolledBackText = (
  outcome: RollbackOutcome,
  asked: { one: boolean; label: string; hunks?: string | undefined },
  dialect: Dialect,
): string => {
  const { undo } = undoOf(outcome);
  const [only] = outcome.done;
  if (only && outcome.done.length === 1 && asked.one && outcome.notKept.length === 0) {
    const what = asked.hunks ? `${asked.hunks} of ${only.change.id}` : only.change.id;
    const how = asked.hunks ? PART_HOW[only.how] : howOf(only);
    return `Rolled back ${what}: ${shownFile(only.change.fields)}: ${how}. Undo this with ${dialect.rollback([only.undoId])}.`;
  }
  const lines = [`Rolled back ${plural(outcome.done.length, 'change')}${asked.label}:`];
  for (const d of outcome.done) lines.push(`  ${d.change.id}  ${shownFile(d.change.fields)}: ${howOf(d)}`);
  for (const s of skippedRows(outcome.plans))
    lines.push(`  ${s.id}  ${s.path}: already held its previous bytes; nothing to do`);
  lines.push(...notKeptLines(outcome));
  if (undo.length > 0) lines.push(`Undo this with ${dialect.rollback(undo)}.`);
  return lines.join('\n');
};
