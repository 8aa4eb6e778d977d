// fettle_confirm, fettle_discard, fettle_rollback: the protocol's all-or-nothing decisions, asked for by the model.
// The model is always who calls an MCP tool (a person confirms from their terminal), so what only a person may
// apply is refused here: everything under FETTLE_REVIEW=human, and a change its agent asked a person about.
import { stat } from '../core/record-message';
import { FettleError } from '../errors';
import { openStore } from '../protocol/select/open';
import { selectSession, selectTargets } from '../protocol/history/rollback-selection';
import type { Change } from '../protocol/changes';
import { type DecideRequest, selectDecision } from '../protocol/review/changesets';
import { confirmChanges } from '../protocol/review/confirm';
import type { Context } from '../protocol/context';
import { discardChanges } from '../protocol/review/discard-set';
import { type RollbackOutcome, rollbackChanges } from '../protocol/history/rollback';
import type { Step } from '../protocol/history/rollback-step';
import type { Store } from '../store/store';
import { type Args, contextFor, dirOf, invokeIn, type McpEdge, text, type ToolResult } from './edge';
import { plural } from '../core/plural';

const requestOf = (verb: 'confirm' | 'discard', args: Args): DecideRequest => {
  const names = (args.ids as string[] | undefined) ?? [];
  const session = args.session as string | undefined;
  const all = args.all === true;
  if (all && (names.length > 0 || session !== undefined))
    throw new FettleError('E_USAGE', `all already names every staged change: give no ids or session with it.`);
  if (!all && names.length === 0 && session === undefined)
    throw new FettleError('E_USAGE', `Name what to ${verb}: ids (change or changeset ids), a session, or all: true.`, {
      hint: 'fettle_status lists the pending changes and their ids.',
    });
  return { names, session, all };
};

const counts = (c: Change): string => stat(c.fields.added, c.fields.removed) || c.fields.reason || 'changed';
const leftOut = (skipped: Change[]): string[] =>
  skipped.length === 0 ? [] : [`Left out, already decided: ${skipped.map((c) => `${c.id} (${c.state})`).join(', ')}.`];

/** A person's approval the model cannot give: refused before anything is planned, so nothing is touched. */
const refusePersonOnly = async (ctx: Context, store: Store, request: DecideRequest, invoke: string) => {
  const person = (c: Change) => ctx.config.review === 'human' || c.fields.review === 'person';
  const { candidates } = await selectDecision(ctx, store, 'confirm', request);
  const held = candidates
    .map((c) => c.change)
    .filter((c) => (c.state === 'pending' || c.state === 'expired') && person(c));
  const [first] = held;
  if (!first) return;
  const ids = [...new Set(held.map((c) => c.id))].join(' ');
  const why =
    ctx.config.review === 'human'
      ? 'FETTLE_REVIEW=human is set, so a person applies every staged change'
      : `a person was asked to approve ${held.length === 1 ? 'it' : 'them'}`;
  throw new FettleError(
    'E_PERSON_REQUIRED',
    `${held.length === 1 ? `Change ${first.id} to ${first.fields.path} needs` : `${plural(held.length, 'change')} (${ids}) need`} a person's approval (${why}), and fettle_confirm is asked by the model. Nothing was written.`,
    {
      hint: `The user applies it from their own terminal: ${invoke} review <id>, then ${invoke} confirm ${ids}. You may drop it with fettle_discard.`,
    },
  );
};

const HOW = {
  written: '',
  merged: ', merged with the edits made on disk since it was staged',
  'already-on-disk': ' (the file already held it)',
  conflicts: ', with conflict markers',
} as const;

export const confirmTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const request = requestOf('confirm', args);
  const ctx = contextFor(edge, args);
  const store = await openStore(ctx);
  await refusePersonOnly(ctx, store, request, invokeIn(edge, dirOf(edge, args)));
  const { confirmed, skipped, changeset } = await confirmChanges(ctx, store, request);
  const lines = [
    `Applied ${plural(confirmed.length, 'change')}${changeset ? ` of changeset ${changeset}` : ''}, all or nothing:`,
    ...confirmed.map((c) => `  ${c.change.id}  ${c.change.fields.path}  ${counts(c.change)}${HOW[c.how]}`),
    ...leftOut(skipped),
    `Undo with fettle_rollback and these ids as targets.`,
  ];
  return text(lines.join('\n'));
};

export const discardTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const request = requestOf('discard', args);
  const ctx = contextFor(edge, args);
  const { discarded, skipped, changeset } = await discardChanges(ctx, await openStore(ctx), request);
  const lines = [
    `Discarded ${plural(discarded.length, 'change')}${changeset ? ` of changeset ${changeset}` : ''}; no file was touched:`,
    ...discarded.map((c) => `  ${c.id}  ${c.fields.path}`),
    ...leftOut(skipped),
  ];
  return text(lines.join('\n'));
};

const HOW_BACK = {
  restored: 'restored its previous bytes',
  removed: 'removed it (the change had created it)',
  merged: 'undid the change, keeping the edits made since',
  forced: 'overwrote it with the previous bytes',
} as const;

const stepText = (s: Step): string =>
  s.to === null
    ? 'remove the file (the change created it)'
    : s.how === 'merged'
      ? 'undo it, keeping the edits made since'
      : 'restore the previous bytes';

const dryRun = (outcome: RollbackOutcome): string[] => {
  const refused = outcome.refusals.map((r) => `  refused: ${r.message}${r.hint ? ` ${r.hint}` : ''}`);
  const steps = outcome.plans.flatMap((p) => [
    ...p.steps.map((s) => `  ${p.target.treePath}: undo ${s.covers.map((c) => c.id).join(', ')}: ${stepText(s)}`),
    ...p.skipped.map((k) => `  ${p.target.treePath}: ${k.id} left nothing to undo`),
  ]);
  if (refused.length === 0) return ['Dry run, nothing was changed. A rollback would:', ...steps];
  return [
    'Dry run, nothing was changed. A rollback now would be refused as a whole (all or nothing):',
    ...refused,
    ...(steps.length > 0 ? ['For the other files it would:', ...steps] : []),
  ];
};

export const rollbackTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const targets = (args.targets as string[] | undefined) ?? [];
  const session = args.session as string | undefined;
  if (targets.length > 0 === (session !== undefined))
    throw new FettleError(
      'E_USAGE',
      'Give targets (change ids, changeset ids, commits or files) or a session, one of the two.',
      {
        hint: 'fettle_log lists the changes and their ids.',
      },
    );
  const ctx = contextFor(edge, args);
  const { store, changes } =
    session !== undefined ? await selectSession(ctx, session) : await selectTargets(ctx, targets);
  const outcome = await rollbackChanges(ctx, store, changes, { dryRun: args.dry_run === true });
  if (args.dry_run === true) return text(dryRun(outcome).join('\n'));
  const undo = outcome.undoChangeset ?? [...new Set(outcome.done.map((d) => d.undoId))].join(', ');
  const lines = [
    `Rolled back ${plural(outcome.done.length, 'change')}${session === undefined ? '' : ` of session ${session}`}:`,
    ...outcome.done.map((d) => `  ${d.change.id}  ${d.change.fields.path}: ${HOW_BACK[d.how]}`),
    ...outcome.plans.flatMap((p) =>
      p.skipped.map((k) => `  ${k.id}  ${p.target.treePath}: already held its previous bytes`),
    ),
  ];
  if (outcome.done.length > 0)
    lines.push(
      `The rollback is recorded too: fettle_rollback with targets [${undo
        .split(', ')
        .map((u) => JSON.stringify(u))
        .join(', ')}] redoes it.`,
    );
  return text(lines.join('\n'));
};
