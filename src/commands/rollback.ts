import { stat } from '../core/record-message';
import { parseHunkList } from '../core/hunks';
import { EXIT, exitCodeFor, FettleError } from '../errors';
import { invocationFor, selfCommand, spellCommands } from '../io/self';
import { restoreTo, type RestoreResult } from '../protocol/history/restore-to';
import { rollbackChanges, type RollbackOutcome } from '../protocol/history/rollback';
import { refuseAll } from '../protocol/history/rollback-plan';
import { selectSession, selectTargets, selectTurn } from '../protocol/history/rollback-selection';
import { shellDialect } from '../render/dialect';
import { dryRunText, fileRows, notKeptRows, rolledBackText, skippedRows, undoOf } from '../render/rolled-back';
import { contextFor, type Edge } from './edge';
import { shownFile } from '../core/shown-path';

export interface RollbackOptions {
  json?: boolean;
  force?: boolean;
  dryRun?: boolean;
  session?: string;
  /** with or without --session: what the session did since this turn began */
  turn?: string;
  to?: string;
  /** of one change: the hunks to undo */
  hunks?: string;
}

const turnOf = (text: string): number => {
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw new FettleError('E_USAGE', `--turn takes a turn number (1 for the first prompt), got '${text}'.`, {
      hint: 'Run `fettle log --session <id>` to see the turns of a session.',
    });
  return Number(text);
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
  if (o.hunks !== undefined && (targets.length !== 1 || o.session !== undefined || o.turn !== undefined || o.to))
    throw new FettleError('E_USAGE', '--hunks undoes part of one change: name exactly one change id.', {
      hint: '`fettle review <id>` numbers its hunks.',
    });
};

const notKeptJson = (outcome: RollbackOutcome) => (outcome.notKept.length > 0 ? { notKept: notKeptRows(outcome) } : {});

const printDryRun = (edge: Edge, outcome: RollbackOutcome, json: boolean, invoke: string): void => {
  if (!json) {
    // A refusal's hint names the command that would go through (`--force`): spelled for this shell.
    edge.io.out(spellCommands(dryRunText(outcome), invoke));
    return;
  }
  const refused = outcome.refusals.map((e) => ({ message: e.message, hint: e.hint ?? null }));
  const files = fileRows(outcome.plans);
  edge.io.out(
    JSON.stringify({ dryRun: true, files, skipped: skippedRows(outcome.plans), refused, ...notKeptJson(outcome) }),
  );
};

const printDone = (
  edge: Edge,
  outcome: RollbackOutcome,
  json: boolean,
  session: string | undefined,
  invoke: string,
): void => {
  const rows = outcome.done.map((d) => ({
    id: d.change.id,
    path: d.change.fields.path,
    how: d.how,
    undoId: d.undoId,
    // a merge (or --force) over edits made since: whose they are
    ...(d.by ? { by: d.by } : {}),
  }));
  const [only] = rows;
  const one = session === undefined;
  if (!json) {
    const hunks = outcome.done[0]?.hunks;
    edge.io.out(
      rolledBackText(outcome, { one, label: one ? '' : ` of session ${session}`, hunks }, shellDialect(invoke)),
    );
    return;
  }
  edge.io.out(
    JSON.stringify(
      rows.length === 1 && one && outcome.notKept.length === 0
        ? only
        : {
            changes: rows,
            skipped: skippedRows(outcome.plans),
            undo: undoOf(outcome).ids,
            undoChangeset: outcome.undoChangeset ?? null,
            ...notKeptJson(outcome),
          },
    ),
  );
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
      `Dry run: would write the bytes change ${id} replaced in ${shownFile(r.change.fields)} to ${r.dest.realPath}${counts ? ` (${counts})` : ''}; nothing was changed.`,
    );
  } else {
    // The destination may be recorded in another store than the shell's directory finds.
    const invoke = invocationFor(selfCommand(edge.env, edge.io.script), edge.cwd, r.dest.store, r.dest.realPath);
    edge.io.out(
      `Restored the bytes change ${id} replaced in ${shownFile(r.change.fields)} to ${r.dest.realPath}. Undo this with \`${invoke} rollback ${r.undoId}\`.`,
    );
  }
};

/** The exit code: a dry run's is the one the real run would give (its refusals are the real run's error). */
export const rollbackCommand = async (
  edge: Edge,
  dir: string | undefined,
  targets: string[],
  o: RollbackOptions,
): Promise<number> => {
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
    return EXIT.ok;
  }
  const hunks = o.hunks === undefined ? undefined : parseHunkList(o.hunks, Number.MAX_SAFE_INTEGER);
  const outcome = await rollbackChanges(ctx, store, changes, { force: o.force, dryRun: o.dryRun, hunks });
  // `fettle`, plus -C <repo> when the shell's directory would not find this store.
  const invoke = invocationFor(
    selfCommand(edge.env, edge.io.script),
    edge.cwd,
    store,
    changes[0]?.fields.file ?? edge.cwd,
  );
  if (o.dryRun) {
    printDryRun(edge, outcome, o.json ?? false, invoke);
    return outcome.refusals.length > 0 ? exitCodeFor(refuseAll(outcome.refusals)) : EXIT.ok;
  }
  const label = o.turn !== undefined ? `${changes[0]?.fields.session ?? ''} since turn ${o.turn} began` : o.session;
  printDone(edge, outcome, o.json ?? false, label, invoke);
  return EXIT.ok;
};
