// `fettle rollback <id|path|commit>... | --session <id>` [--dry-run] [--force] [--to <path>] [--json]
import { sameBytes } from '../core/content';
import { countChanges } from '../core/diff';
import { stat } from '../core/record-message';
import { FettleError } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import { restoreTo, type RestoreResult } from '../protocol/history/restore-to';
import { rollbackChanges, type RollbackOutcome } from '../protocol/history/rollback';
import type { FilePlan } from '../protocol/history/rollback-plan';
import { selectSession, selectTargets, selectTurn } from '../protocol/history/rollback-selection';
import { contextFor, type Edge } from './edge';
import { plural } from '../core/plural';

export interface RollbackOptions {
  json?: boolean;
  force?: boolean;
  dryRun?: boolean;
  session?: string;
  /** with or without --session: what the session did since this turn began */
  turn?: string;
  to?: string;
}

const turnOf = (text: string): number => {
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw new FettleError('E_USAGE', `--turn takes a turn number (1 for the first prompt), got '${text}'.`, {
      hint: 'Run `fettle log --session <id>` to see the turns of a session.',
    });
  return Number(text);
};

const HOW = {
  restored: 'restored its previous bytes',
  removed: 'removed it (the change had created it)',
  merged: 'undid the change, keeping the edits made since',
  forced: 'overwrote it with the previous bytes (--force)',
};

const checkArgs = (targets: string[], o: RollbackOptions): void => {
  if ((o.session !== undefined || o.turn !== undefined) && targets.length > 0)
    throw new FettleError('E_USAGE', 'Name changes or use --session <id> / --turn <n>, not both.');
  if (o.session === undefined && o.turn === undefined && targets.length === 0)
    throw new FettleError(
      'E_USAGE',
      'Name a change id, a fettle commit or a file to roll back, or use --session <id>.',
      { hint: 'Run `fettle log` to list changes.' },
    );
  if (o.to !== undefined && (targets.length !== 1 || o.session !== undefined))
    throw new FettleError('E_USAGE', '--to restores one change: name exactly one.');
};

/** What the rollback does to one file, for --dry-run. */
const action = (plan: FilePlan): string => {
  const hows = new Set(plan.steps.map((s) => s.how));
  if (plan.final === null) return 'remove it';
  if (plan.original === null) return 'recreate it with its previous bytes';
  if (hows.has('forced')) return 'overwrite it with its previous bytes (--force)';
  if (hows.has('merged')) return 'undo the changes, keeping the edits made since';
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

const fileRows = (plans: FilePlan[]) =>
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

const skippedRows = (plans: FilePlan[]) =>
  plans.flatMap((p) => p.skipped.map((c) => ({ id: c.id, path: c.fields.path })));

const ids = (list: string[]): string => (list.length > 3 ? `${list.length} changes` : list.join(', '));

/** Changes whose bytes fettle did not keep (a command's file over the size cap), named with the others. */
const notKeptRows = (outcome: RollbackOutcome) => outcome.notKept.map((c) => ({ id: c.id, path: c.fields.path }));
const notKeptJson = (outcome: RollbackOutcome) => (outcome.notKept.length > 0 ? { notKept: notKeptRows(outcome) } : {});
const notKeptLines = (outcome: RollbackOutcome): string[] =>
  notKeptRows(outcome).map(
    (k) => `  ${k.id}  ${k.path}: not kept when it was recorded (too large or not a regular file); left as it is`,
  );

const printDryRun = (edge: Edge, outcome: RollbackOutcome, json: boolean): void => {
  const files = fileRows(outcome.plans);
  const skipped = skippedRows(outcome.plans);
  const refused = outcome.refusals.map((e) => ({ message: e.message, hint: e.hint ?? null }));
  if (json) {
    edge.io.out(JSON.stringify({ dryRun: true, files, skipped, refused, ...notKeptJson(outcome) }));
    return;
  }
  const lines = [
    refused.length === 0
      ? `Dry run: rolling back would change ${plural(files.length, 'file')}; nothing was changed.`
      : `Dry run: ${plural(refused.length, 'file')} cannot be rolled back, so a rollback would change nothing until ${refused.length === 1 ? 'it is' : 'they are'} resolved (or with --force); without ${refused.length === 1 ? 'it' : 'them'} it would change ${plural(files.length, 'file')}. Nothing was changed.`,
  ];
  for (const f of files)
    lines.push(
      `  ${f.path}  ${f.added === null ? 'binary' : stat(f.added, f.removed ?? 0)}  ${f.action} (${ids(f.changes)})`,
    );
  for (const r of refused) lines.push(`  refused: ${r.message}${r.hint ? ` ${r.hint}` : ''}`);
  if (skipped.length <= 10)
    for (const k of skipped) lines.push(`  ${k.path}  already holds the bytes ${k.id} replaced; nothing to do`);
  else lines.push(`  ${skipped.length} changes left nothing to undo (their files already hold what they replaced)`);
  lines.push(...notKeptLines(outcome));
  edge.io.out(lines.join('\n'));
};

const printDone = (
  edge: Edge,
  outcome: RollbackOutcome,
  json: boolean,
  session: string | undefined,
  invoke: string,
): void => {
  const ids = [...new Set(outcome.done.map((d) => d.undoId))].reverse();
  const undo = outcome.undoChangeset ? [outcome.undoChangeset] : ids;
  const rows = outcome.done.map((d) => ({ id: d.change.id, path: d.change.fields.path, how: d.how, undoId: d.undoId }));
  const [only] = rows;
  if (json) {
    edge.io.out(
      JSON.stringify(
        rows.length === 1 && session === undefined && outcome.notKept.length === 0
          ? only
          : {
              changes: rows,
              skipped: skippedRows(outcome.plans),
              undo: ids,
              undoChangeset: outcome.undoChangeset ?? null,
              ...notKeptJson(outcome),
            },
      ),
    );
    return;
  }
  if (only && rows.length === 1 && session === undefined && outcome.notKept.length === 0) {
    edge.io.out(
      `Rolled back ${only.id}: ${only.path}: ${HOW[only.how]}. Undo this with \`${invoke} rollback ${only.undoId}\`.`,
    );
    return;
  }
  const lines = [
    `Rolled back ${plural(rows.length, 'change')}${session === undefined ? '' : ` of session ${session}`}:`,
  ];
  for (const r of rows) lines.push(`  ${r.id}  ${r.path}: ${HOW[r.how]}`);
  for (const s of skippedRows(outcome.plans))
    lines.push(`  ${s.id}  ${s.path}: already held its previous bytes; nothing to do`);
  lines.push(...notKeptLines(outcome));
  if (undo.length > 0) lines.push(`Undo this with \`${invoke} rollback ${undo.join(' ')}\`.`);
  edge.io.out(lines.join('\n'));
};

const printRestore = (edge: Edge, r: RestoreResult, o: RollbackOptions): void => {
  const { id } = r.change;
  const counts = stat(r.added, r.removed);
  if (o.json) {
    edge.io.out(
      JSON.stringify({
        id,
        path: r.change.fields.path,
        to: r.dest.realPath,
        how: r.how,
        dryRun: o.dryRun ?? false,
        added: r.added ?? null,
        removed: r.removed ?? null,
        undoId: r.undoId ?? null,
      }),
    );
  } else if (r.how === 'already') {
    edge.io.out(`${r.dest.realPath} already holds the bytes change ${id} replaced; nothing was written.`);
  } else if (o.dryRun) {
    edge.io.out(
      `Dry run: would write the bytes change ${id} replaced in ${r.change.fields.path} to ${r.dest.realPath}${counts ? ` (${counts})` : ''}; nothing was changed.`,
    );
  } else {
    // The destination may be recorded in another store than the shell's directory finds.
    const invoke = invocationFor(selfCommand(edge.env, edge.io.script), edge.cwd, r.dest.store, r.dest.realPath);
    edge.io.out(
      `Restored the bytes change ${id} replaced in ${r.change.fields.path} to ${r.dest.realPath}. Undo this with \`${invoke} rollback ${r.undoId}\`.`,
    );
  }
};

export const rollbackCommand = async (
  edge: Edge,
  dir: string | undefined,
  targets: string[],
  o: RollbackOptions,
): Promise<void> => {
  checkArgs(targets, o);
  const ctx = contextFor(edge, dir);
  const { store, changes } =
    o.turn !== undefined
      ? await selectTurn(ctx, o.session, turnOf(o.turn))
      : o.session !== undefined
        ? await selectSession(ctx, o.session)
        : await selectTargets(ctx, targets);
  if (o.to !== undefined) {
    if (changes.length !== 1)
      throw new FettleError('E_USAGE', `--to restores one change, and ${targets[0]} names ${changes.length}.`, {
        hint: `Name one of them by its id (\`fettle show ${targets[0]}\` lists them).`,
      });
    printRestore(edge, await restoreTo(ctx, store, changes[0] as (typeof changes)[number], o.to, o), o);
    return;
  }
  const outcome = await rollbackChanges(ctx, store, changes, { force: o.force, dryRun: o.dryRun });
  if (o.dryRun) printDryRun(edge, outcome, o.json ?? false);
  // `fettle`, plus -C <repo> when the shell's directory would not find this store.
  else
    printDone(
      edge,
      outcome,
      o.json ?? false,
      o.turn !== undefined ? `${changes[0]?.fields.session ?? ''} since turn ${o.turn} began` : o.session,
      invocationFor(selfCommand(edge.env, edge.io.script), edge.cwd, store, changes[0]?.fields.file ?? edge.cwd),
    );
};
