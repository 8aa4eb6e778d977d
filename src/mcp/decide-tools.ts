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
import { confirmedText, discardedText, setLabel } from '../render/decided';
import { toolDialect } from '../render/dialect';
import { rolledBackText } from '../render/rolled-back';
import { type Args, contextFor, dirOf, invokeIn, type McpEdge, text, type ToolResult } from './edge';
import { plural } from '../core/plural';
import { shownFile, shownTarget } from '../core/shown-path';

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
    `${held.length === 1 ? `Change ${first.id} to ${shownFile(first.fields)} needs` : `${plural(held.length, 'change')} (${ids}) need`} a person's approval (${why}), and fettle_confirm is asked by the model. Nothing was written.`,
    {
      hint: `The user applies it from their own terminal: ${invoke} review <id>, then ${invoke} confirm ${ids}. You may drop it with fettle_discard.`,
    },
  );
};

export const confirmTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const request = requestOf('confirm', args);
  const ctx = contextFor(edge, args);
  const store = await openStore(ctx);
  await refusePersonOnly(ctx, store, request, invokeIn(edge, dirOf(edge, args)));
  const outcome = await confirmChanges(ctx, store, request);
  return text(confirmedText(outcome, { one: false, label: setLabel(outcome.changeset, undefined) }, toolDialect));
};

export const discardTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const request = requestOf('discard', args);
  const ctx = contextFor(edge, args);
  const outcome = await discardChanges(ctx, await openStore(ctx), request);
  return text(discardedText(outcome, { one: false, label: setLabel(outcome.changeset, undefined) }));
};

const stepText = (s: Step): string =>
  s.to === null
    ? 'remove the file (the change created it)'
    : s.how === 'merged'
      ? 'undo it, keeping the edits made since'
      : 'restore the previous bytes';

const dryRun = (outcome: RollbackOutcome): string[] => {
  const refused = outcome.refusals.map((r) => `  refused: ${r.message}${r.hint ? ` ${r.hint}` : ''}`);
  const steps = outcome.plans.flatMap((p) => [
    ...p.steps.map((s) => `  ${shownTarget(p.target)}: undo ${s.covers.map((c) => c.id).join(', ')}: ${stepText(s)}`),
    ...p.skipped.map((k) => `  ${shownTarget(p.target)}: ${k.id} left nothing to undo`),
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
  const label = session === undefined ? '' : ` of session ${session}`;
  return text(rolledBackText(outcome, { one: session === undefined, label }, toolDialect));
};
