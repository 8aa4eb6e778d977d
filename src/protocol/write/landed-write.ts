// A write an agent made with no hook before it (Cursor: afterFileEdit only). The adapter recovers the previous
// bytes from the bytes on disk now (core/cursor-edits.ts) when it can; fettle then records the change as any
// direct one (a `before` commit with the recovered bytes, an `after` with what is on disk), so `fettle log`,
// `show` and `rollback` treat it like the others. Nothing can be staged: the write has happened. The path rules
// still decide what is recorded, as for a shell command (bash-policy.ts): a path under `ignore` is not; one under
// `block` is recorded and reported, since nothing could stop the edit; the record names the rule that matched.
import { ruleDecider, ruleText } from '../../core/policy';
import type { RecordFields } from '../../core/record-message';
import { toFettleError } from '../../errors';
import { readDisk, type DiskFile } from '../../io/atomic-write';
import { locateTarget } from '../../store/locate';
import type { Target } from '../../store/store';
import type { Context, Origin } from '../context';
import { planWrite } from '../decide/plan';
import { PROJECT_POLICY, policyFor, type PathPolicy } from '../decide/policy';
import { fieldsOf } from '../record/record';
import { recordAfters, recordMany } from '../record/record-many';
import { housekeep } from '../retention/housekeeping';
import { currentTurn } from '../turns';

export type Recovered = { ok: true; previous: Buffer | null } | { ok: false; why: string };

export type Landed =
  | { kind: 'none' }
  /** a policy `ignore` rule covers the path: nothing recorded */
  | { kind: 'ignored'; target: Target }
  | { kind: 'unknown'; target: Target; why: string }
  | {
      kind: 'recorded';
      target: Target;
      id: string;
      fields: RecordFields;
      /** the `block` rule the edit broke, as a person reads it */
      blocked?: string | undefined;
      /** why no policy rule was applied (an invalid policy file) */
      policyInvalid?: string | undefined;
    };

/** The path's policy; an invalid policy file decides nothing here (the edit happened: it is recorded anyway). */
const policyOf = (ctx: Context, target: Target): { policy?: PathPolicy; invalid?: string } => {
  try {
    return { policy: policyFor(ctx, target) };
  } catch (error) {
    const e = toFettleError(error);
    if (e.code !== 'E_POLICY') throw error;
    return { invalid: e.message };
  }
};

const NOTE = 'Written by the agent before any hook ran, so it was recorded afterwards; it could not be staged.';

export const recordLandedWrite = async (
  ctx: Context,
  w: { filePath: string; recover: (current: Buffer) => Recovered; origin: Origin },
): Promise<Landed> => {
  const target = await locateTarget(w.filePath, ctx.cwd, ctx.env, ctx.config.dataDir);
  const { policy, invalid } = policyOf(ctx, target);
  if (policy?.effect.kind === 'ignore') return { kind: 'ignored', target };
  const current = await readDisk(target.realPath);
  if (!current) return { kind: 'none' };
  const recovered = w.recover(current.bytes);
  if (!recovered.ok) return { kind: 'unknown', target, why: recovered.why };
  const previous: DiskFile | null = recovered.previous && { bytes: recovered.previous, mode: current.mode };
  const plan = await planWrite(ctx, target, previous, current.bytes);
  if (plan.decision.tier === 'noop') return { kind: 'none' };
  const turn = await currentTurn(ctx.config.dataDir, w.origin.session);
  const origin = turn === undefined ? w.origin : { ...w.origin, turn };
  const large = plan.decision.tier === 'staged';
  const winner = policy?.winner;
  const decidedBy = winner ? ruleDecider(winner) : 'threshold';
  const fields = { ...fieldsOf(plan, origin), tier: 'direct' as const, decidedBy, ...(large ? { note: NOTE } : {}) };
  const [record] = await recordMany(ctx, target.store, [{ old: previous, fields }]);
  if (!record) return { kind: 'none' };
  await recordAfters(ctx, target.store, [{ previous: record, landed: current }]);
  await housekeep(ctx, target.store);
  const files = { user: ctx.config.userPolicy, project: PROJECT_POLICY };
  const blocked = winner?.action === 'block' ? ruleText(winner, files[winner.layer]) : undefined;
  return { kind: 'recorded', target, id: record.id, fields: record.fields, blocked, policyInvalid: invalid };
};
