// `fettle rollback`: put back the bytes changes replaced, from their commits. Only over what fettle wrote: a
// file changed since is merged three ways and applied only if clean (or --force). All or nothing: every file
// is planned first and nothing is written if one cannot be restored; a write failing midway puts the files
// already written back. Each undone change is recorded as a change of its own (`Fettle-Reverts`), with the
// bytes on disk committed before anything is replaced, so a rollback can itself be rolled back.
import { sameBytes } from '../../core/content';
import { countChanges } from '../../core/diff';
import { FettleError } from '../../errors';
import type { DiskFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { withLocks } from '../../io/lock';
import type { RecordFields } from '../../core/record-message';
import type { Store } from '../../store/store';
import { changeRef, updateRefs } from '../../store/refs';
import { failedMidway, putBack, putFile } from '../journal/apply-files';
import type { Change } from '../changes';
import type { Context } from '../context';
import { newId } from '../ids';
import { commandDecider } from '../decide/person-review';
import { fileLockPath } from '../paths';
import type { Fields } from '../record/record';
import { recordAfters, recordBefores } from '../record/record-many';
import { currentTurn } from '../turns';
import { planRollback, refuseAll, type FilePlan, type RollbackPlan, type WhoWroteOf } from './rollback-plan';
import { claimedFrom, laterWriters } from './later-writers';
import { listChanges } from '../changes';
import type { Claimed, How, Step } from './rollback-step';
import { changeHunks, hunksTrailer, pickHunks, withHunks } from '../hunks';
import type { FileEntry } from '../../store/object-read';
import { hashObject } from '../../store/tree-codec';
import { hunkListText } from '../../core/hunks';

export interface RolledBack {
  change: Change;
  /** id of the change recording this rollback (roll it back to redo) */
  undoId: string;
  how: How;
  /** `--hunks`: which hunks of it were undone, as `hunks 2, 3 (of 3)` */
  hunks?: string | undefined;
  /** merged or forced: who wrote the file since (another session, a person, someone fettle did not record) */
  by?: string | undefined;
}

export interface RollbackOutcome {
  plans: FilePlan[];
  /** files that cannot be rolled back (a dry run reports them; a rollback refuses as a whole) */
  refusals: FettleError[];
  /** empty for a dry run */
  done: RolledBack[];
  /** the changeset of the undo records, when there are several: `fettle rollback <it>` redoes them all */
  undoChangeset?: string | undefined;
  /** changes whose bytes fettle did not keep (a Bash command's file over the size cap): left as they are */
  notKept: Change[];
}

/** A change that only says a file changed: a Bash command's file whose bytes fettle did not keep. */
export const notKept = (change: Change): boolean => change.fields.reason === 'not-kept';

type Undo = { id: string; tip: string; fields: RecordFields };

/** Some hunks of one change undone (`--hunks`): the bytes to put back instead, and the trailer saying which. */
interface Part {
  instead: Map<string, FileEntry>;
  hunks: string;
  /** as a person reads it: `hunks 2, 3 (of 3)` */
  said: string;
}

/** The bytes one change replaced, but with every hunk not in `undo` kept as it wrote it. */
const partOf = async (store: Store, changes: Change[], undo: number[]): Promise<Part> => {
  const [change] = changes;
  if (!change || changes.length !== 1)
    throw new FettleError('E_USAGE', '--hunks undoes part of one change: name exactly one change id.', {
      hint: '`fettle review <id>` numbers its hunks.',
    });
  const h = await changeHunks(store, change);
  const picked = pickHunks(h, [], undo);
  const mode = h.from?.mode ?? h.to?.mode ?? '100644';
  const bytes = withHunks(h, picked.rest);
  const oid = hashObject('blob', bytes, store.objectFormat);
  const said = `${picked.drop.length === 1 ? 'hunk' : 'hunks'} ${hunkListText(picked.drop)} (of ${h.hunks.length})`;
  return {
    instead: new Map([[change.id, { bytes, mode, oid }]]),
    hunks: hunksTrailer(picked.drop, h.hunks.length),
    said,
  };
};

/** Refuses changes that never reached the disk. */
const requireWritten = (change: Change): void => {
  const { id, state } = change;
  if (state === 'pending' || state === 'expired' || state === 'discarded') {
    throw new FettleError(
      'E_NOTHING_TO_ROLL_BACK',
      `Change ${id} was never written to disk (it is ${state}); there is nothing to roll back.`,
      {
        hint: state === 'pending' ? `Drop it with \`fettle discard ${id}\`.` : undefined,
      },
    );
  }
};

const planChecked = async (
  store: Store,
  changes: Change[],
  o: { force: boolean; part?: Part | undefined; who: WhoWroteOf; claimed: Claimed },
): Promise<RollbackPlan> => {
  const { force, who, claimed } = o;
  const planned = await planRollback(store, changes, { force, instead: o.part?.instead, who, claimed });
  const only = changes.length === 1 ? planned.plans[0] : undefined;
  if (only && only.steps.length === 0) {
    const change = changes[0] as Change;
    throw new FettleError(
      'E_NOTHING_TO_ROLL_BACK',
      `${change.fields.path} already holds the bytes change ${change.id} replaced; nothing to roll back.`,
    );
  }
  return planned;
};

const sameFile = (a: DiskFile | null, b: DiskFile | null): boolean =>
  sameBytes(a?.bytes, b?.bytes) && a?.mode === b?.mode;

/** One undo record per step: the bytes on disk now, then what the rollback put there (Fettle-Reverts names all). */
const undoFields = (
  plan: FilePlan,
  step: Step,
  o: { turn: number | undefined; changeset: string | undefined; decidedBy: string; hunks?: string | undefined },
): Fields => ({
  ...(o.hunks ? { hunks: o.hunks } : {}),
  tier: 'direct',
  path: plan.target.treePath,
  file: plan.target.realPath,
  reason: 'rollback',
  tool: 'fettle rollback',
  decidedBy: o.decidedBy,
  reverts: step.covers.map((c) => c.id).join(' '),
  // The agent's own rollback (its shell, its MCP tool) lands in the session it undoes, in the turn it is in; a
  // person's or a script's is theirs, in no session: it neither counts among the session's changes nor moves its ref.
  ...(o.decidedBy === 'model' ? { session: step.change.fields.session } : {}),
  ...(o.turn === undefined || o.decidedBy !== 'model' ? {} : { turn: o.turn }),
  ...(o.changeset === undefined ? {} : { changeset: o.changeset }),
  // A mode restored alone changes no line.
  ...(step.from && step.to && sameBytes(step.from.bytes, step.to.bytes)
    ? {}
    : countChanges(step.from?.bytes ?? null, step.to?.bytes ?? null)),
});

const writeAll = async (store: Store, plans: FilePlan[], undos: Undo[]): Promise<void> => {
  const written: FilePlan[] = [];
  let current: FilePlan | undefined;
  try {
    await failpoint('rollback.recorded');
    for (current of plans) {
      if (sameFile(current.original, current.final)) continue;
      await putFile(current.target.realPath, current.final, current.original);
      written.push(current);
      await failpoint('rollback.file-written');
    }
  } catch (error) {
    const stuck = await putBack(written.map((p) => ({ file: p.target.realPath, from: p.original, to: p.final })));
    if (stuck.length === 0) {
      // Nothing changed on disk, so the undo records would claim rollbacks that did not happen.
      await updateRefs(
        store,
        undos.map((u) => ({ op: 'delete' as const, ref: changeRef(u.id), old: u.tip })),
        'fettle: rollback failed',
      ).catch(() => undefined);
    }
    const file = current?.target.realPath ?? 'a file';
    throw failedMidway(error, { file, verb: 'rolled back', done: 'rolled back' }, written.length, stuck);
  }
};

/** Rolls back `changes` (newest first), or with `dryRun` only plans it. */
export const rollbackChanges = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  options: { force?: boolean; dryRun?: boolean; hunks?: number[] } = {},
): Promise<RollbackOutcome> => {
  changes.forEach(requireWritten);
  const unkept = changes.filter(notKept);
  const only = unkept[0];
  if (only && unkept.length === changes.length)
    throw new FettleError(
      'E_NOTHING_TO_ROLL_BACK',
      `Change ${only.id} only records that a command changed ${only.fields.path}: ${only.fields.note?.split('\n')[0] ?? 'fettle did not keep its bytes, so it cannot be restored.'}`,
      { hint: 'Run `fettle show ' + only.id + '` to see what was recorded.' },
    );
  return rollbackKept(
    ctx,
    store,
    changes.filter((c) => !notKept(c)),
    { ...options, unkept },
  );
};

/** The agent's own rollback lands in the current turn of each session it undoes changes of. */
const turnsOf = async (ctx: Context, steps: Step[]): Promise<Map<string | undefined, number | undefined>> => {
  const turns = new Map<string | undefined, number | undefined>();
  for (const step of steps) {
    const session = step.change.fields.session;
    if (!turns.has(session)) turns.set(session, await currentTurn(ctx.config.dataDir, session));
  }
  return turns;
};

/**
 * Other sessions share the tree: who wrote a file since, for a merge or a refusal to name, and whose bytes a shell
 * command's file holds (later-writers.ts). The changes are listed once, and only when one of them asks.
 */
const othersOf = (ctx: Context, store: Store, changes: Change[]) => {
  let all: Promise<Change[]> | undefined;
  const listed = () => (all ??= listChanges(ctx, store));
  return {
    who: (path: string) => laterWriters(store, listed, changes, path),
    claimed: (change: Change) => claimedFrom(store, listed, change, changes),
  };
};

const rollbackKept = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  options: { force?: boolean; dryRun?: boolean; hunks?: number[]; unkept: Change[] },
): Promise<RollbackOutcome> => {
  const force = options.force ?? false;
  const notKept = options.unkept;
  const part = options.hunks ? await partOf(store, changes, options.hunks) : undefined;
  const plan = { force, part, ...othersOf(ctx, store, changes) };
  if (options.dryRun) return { ...(await planChecked(store, changes, plan)), done: [], notKept };
  return withLocks(
    changes.map((c) => fileLockPath(store, c.fields.path)),
    async () => {
      const { plans, refusals } = await planChecked(store, changes, plan);
      if (refusals.length > 0) throw refuseAll(refusals);
      const steps = plans.flatMap((plan) => plan.steps.map((step) => ({ plan, step })));
      const turns = await turnsOf(
        ctx,
        steps.map(({ step }) => step),
      );
      // Several undo records are one changeset: one id names the whole rollback, to undo it again.
      const undoChangeset = steps.length > 1 ? newId() : undefined;
      const undos = await recordBefores(
        ctx,
        store,
        steps.map(({ plan, step }) => ({
          old: step.from,
          fields: undoFields(plan, step, {
            turn: turns.get(step.change.fields.session),
            changeset: undoChangeset,
            decidedBy: commandDecider(ctx),
            hunks: part?.hunks,
          }),
        })),
      );
      await writeAll(store, plans, undos);
      await recordAfters(
        ctx,
        store,
        steps.map(({ step }, n) => ({ previous: undos[n] as Undo, landed: step.to })),
      );
      return {
        plans,
        refusals,
        undoChangeset,
        notKept,
        done: steps.flatMap(({ step }, n) =>
          step.covers.map((change) => ({
            change,
            undoId: (undos[n] as Undo).id,
            how: step.how,
            hunks: part?.said,
            by: step.by,
          })),
        ),
      };
    },
  );
};
