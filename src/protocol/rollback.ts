// `fettle rollback`: put back the bytes changes replaced, from their commits. Only over what fettle wrote: a
// file changed since is merged three ways and applied only if clean (or --force). All or nothing: every file
// is planned first and nothing is written if one cannot be restored; a write failing midway puts the files
// already written back. Each undone change is recorded as a change of its own (`Fettle-Reverts`), with the
// bytes on disk committed before anything is replaced, so a rollback can itself be rolled back.
import { sameBytes } from '../core/content';
import { countChanges } from '../core/diff';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FettleError, toFettleError } from '../errors';
import { removeFile, replaceFile, type DiskFile } from '../io/atomic-write';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import type { RecordFields } from '../core/record-message';
import type { Store } from '../store/store';
import { changeRef, updateRefs } from '../store/refs';
import type { Change } from './changes';
import type { Context } from './context';
import { fileLockPath } from './paths';
import type { Fields } from './record';
import { recordAfters, recordBefores } from './record-many';
import { currentTurn } from './turns';
import { planRollback, refuseAll, type FilePlan, type How, type RollbackPlan, type Step } from './rollback-plan';

export interface RolledBack {
  change: Change;
  /** id of the change recording this rollback (roll it back to redo) */
  undoId: string;
  how: How;
}

export interface RollbackOutcome {
  plans: FilePlan[];
  /** files that cannot be rolled back (a dry run reports them; a rollback refuses as a whole) */
  refusals: FettleError[];
  /** empty for a dry run */
  done: RolledBack[];
}

type Undo = { id: string; tip: string; fields: RecordFields };

/** Refuses changes that never reached the disk. */
const requireWritten = (change: Change): void => {
  const { id, state } = change;
  if (state === 'pending' || state === 'expired' || state === 'discarded') {
    throw new FettleError(
      'E_USAGE',
      `Change ${id} was never written to disk (it is ${state}); there is nothing to roll back.`,
      {
        hint: state === 'pending' ? `Drop it with \`fettle discard ${id}\`.` : undefined,
      },
    );
  }
};

const planChecked = async (store: Store, changes: Change[], force: boolean): Promise<RollbackPlan> => {
  const planned = await planRollback(store, changes, { force });
  const only = changes.length === 1 ? planned.plans[0] : undefined;
  if (only && only.steps.length === 0) {
    const change = changes[0] as Change;
    throw new FettleError(
      'E_USAGE',
      `${change.fields.path} already holds the bytes change ${change.id} replaced; nothing to roll back.`,
    );
  }
  return planned;
};

/** Locks taken in one global order, so two multi-file rollbacks cannot deadlock. */
const withLocks = <T>(paths: string[], fn: () => Promise<T>): Promise<T> => {
  const [first, ...rest] = paths;
  return first === undefined ? fn() : withLock(first, () => withLocks(rest, fn));
};

const sameFile = (a: DiskFile | null, b: DiskFile | null): boolean =>
  sameBytes(a?.bytes, b?.bytes) && a?.mode === b?.mode;

const put = async (path: string, next: DiskFile | null, current: DiskFile | null): Promise<void> => {
  if (next === null) {
    if (current !== null) await removeFile(path, current.bytes);
    return;
  }
  if (current === null) await mkdir(dirname(path), { recursive: true });
  await replaceFile(path, next.bytes, { mode: next.mode, createOnly: current === null, expect: current?.bytes });
};

/** One undo record per step: the bytes on disk now, then what the rollback put there (Fettle-Reverts names all). */
const undoFields = (plan: FilePlan, step: Step, turn: number | undefined): Fields => ({
  tier: 'direct',
  path: plan.target.treePath,
  file: plan.target.realPath,
  reason: 'rollback',
  tool: 'fettle rollback',
  reverts: step.covers.map((c) => c.id).join(' '),
  // A rollback of a session's change lands in that session: its ref shows the undo.
  session: step.change.fields.session,
  ...(turn === undefined ? {} : { turn }),
  ...countChanges(step.from?.bytes ?? null, step.to?.bytes ?? null),
});

/** After a failed write: the files already written get their original bytes back. Returns what could not be. */
const putBack = async (written: FilePlan[]): Promise<string[]> => {
  const failed: string[] = [];
  for (const plan of [...written].reverse()) {
    await put(plan.target.realPath, plan.original, plan.final).catch(() => failed.push(plan.target.realPath));
  }
  return failed;
};

const writeAll = async (store: Store, plans: FilePlan[], undos: Undo[]): Promise<void> => {
  const written: FilePlan[] = [];
  let current: FilePlan | undefined;
  try {
    await failpoint('rollback.recorded');
    for (current of plans) {
      if (sameFile(current.original, current.final)) continue;
      await put(current.target.realPath, current.final, current.original);
      written.push(current);
      await failpoint('rollback.file-written');
    }
  } catch (error) {
    const e = toFettleError(error);
    const stuck = await putBack(written);
    if (stuck.length === 0) {
      // Nothing changed on disk, so the undo records would claim rollbacks that did not happen.
      await updateRefs(
        store,
        undos.map((u) => ({ op: 'delete' as const, ref: changeRef(u.id), old: u.tip })),
        'fettle: rollback failed',
      ).catch(() => undefined);
    }
    const files =
      written.length === 1 ? 'The file already rolled back' : `The ${written.length} files already rolled back`;
    const back =
      stuck.length > 0
        ? `could not all be put back (${stuck.join(', ')}); the bytes they held are recorded (see \`fettle log\`)`
        : written.length === 1
          ? 'was put back'
          : 'were put back';
    const restored = written.length === 0 ? '' : ` ${files} ${back}.`;
    throw new FettleError(
      e.code,
      `${current?.target.realPath ?? 'a file'} could not be rolled back: ${e.message.replace(/\.$/, '')}.${restored}${stuck.length === 0 ? ' Nothing was changed.' : ''}`,
      {
        cause: error,
        hint: e.hint,
      },
    );
  }
};

/** Rolls back `changes` (newest first), or with `dryRun` only plans it. */
export const rollbackChanges = async (
  ctx: Context,
  store: Store,
  changes: Change[],
  options: { force?: boolean; dryRun?: boolean } = {},
): Promise<RollbackOutcome> => {
  changes.forEach(requireWritten);
  const force = options.force ?? false;
  if (options.dryRun) return { ...(await planChecked(store, changes, force)), done: [] };
  const locks = [...new Set(changes.map((c) => fileLockPath(store, c.fields.path)))].sort();
  return withLocks(locks, async () => {
    const { plans, refusals } = await planChecked(store, changes, force);
    if (refusals.length > 0) throw refuseAll(refusals);
    const steps = plans.flatMap((plan) => plan.steps.map((step) => ({ plan, step })));
    // Each rollback lands in the current turn of the session it undoes changes of.
    const turns = new Map<string | undefined, number | undefined>();
    for (const { step } of steps) {
      const session = step.change.fields.session;
      if (!turns.has(session)) turns.set(session, await currentTurn(ctx.config.dataDir, session));
    }
    const undos = await recordBefores(
      ctx,
      store,
      steps.map(({ plan, step }) => ({
        old: step.from,
        fields: undoFields(plan, step, turns.get(step.change.fields.session)),
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
      done: steps.flatMap(({ step }, n) =>
        step.covers.map((change) => ({ change, undoId: (undos[n] as Undo).id, how: step.how })),
      ),
    };
  });
};
