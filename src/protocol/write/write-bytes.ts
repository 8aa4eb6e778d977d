// A write fettle performs itself (`fettle write`, scripts, `fettle mcp`): the same protocol as a tool's write
// (before.ts), but fettle replaces the file too, under its lock, after the previous bytes are in git.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Decision } from '../../core/decide';
import { shapeOf, type WriteShape } from '../../core/direct-note';
import { FettleError } from '../../errors';
import { NotDurableError, readDisk, replaceFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { withLock } from '../../io/lock';
import { locateTarget } from '../../store/locate';
import type { Target } from '../../store/store';
import type { Context, Origin } from '../context';
import { housekeep } from '../retention/housekeeping';
import { fileLockPath } from '../paths';
import { type Plan, planWrite } from '../decide/plan';
import { policyFor } from '../decide/policy';
import { type Fields, fieldsOf, recordAfter, recordBefore } from '../record/record';
import { stage } from '../record/stage';
import { checkOf, runBlockedError, runRules } from './run-rules';
import { deciderOf, ruledOut, type RuledOut, type StagedWrite, stagingRule, withTurn } from './before';

export type Written =
  | { kind: 'noop'; target: Target }
  | StagedWrite
  | { kind: 'written'; target: Target; decision: Extract<Decision, { tier: 'direct' }>; id: string; shape: WriteShape }
  | { kind: 'ignored'; target: Target; ruleText: string };

/** A policy `block` rule's refusal of a write fettle itself would make (`fettle write`). */
export const blockedError = (path: string, ruled: RuledOut): FettleError =>
  new FettleError('E_BLOCKED', `Policy rule ${ruled.ruleText} blocks writing ${path}: ${ruled.rule.message ?? ''}`, {
    hint: 'Nothing was written. Change the rule (`fettle policy check <path>` says which decides) if the write is meant.',
  });

/** A file an `ignore` rule covers: written, unless it already holds the bytes, with no record. */
const writeUnrecorded = async (target: Target, bytes: Buffer, ruleText: string): Promise<Written> => {
  const now = await readDisk(target.realPath);
  if (now?.bytes.equals(bytes)) return { kind: 'noop', target };
  await mkdir(dirname(target.realPath), { recursive: true });
  await replaceFile(target.realPath, bytes, { createOnly: now === null, expect: now?.bytes });
  return { kind: 'ignored', target, ruleText };
};

/**
 * A direct write: the previous bytes recorded, the file checked to hold them still, replaced atomically, then what
 * landed recorded on top. Returns the change's id.
 */
const writeDirect = async (ctx: Context, plan: Plan, bytes: Buffer, decided: Fields): Promise<string> => {
  const { target } = plan;
  const before = await recordBefore(ctx, target, plan.old, decided, { stored: plan.stored?.old });
  await failpoint('write.recorded');
  // The previous bytes are in git; make sure they are still what is on disk before replacing them.
  const now = await readDisk(target.realPath);
  const unchanged = now === null ? plan.old === null : plan.old !== null && now.bytes.equals(plan.old.bytes);
  if (!unchanged) {
    throw new FettleError(
      'E_CONFLICT',
      `${target.realPath} changed while fettle was recording it; nothing was written.`,
      {
        hint: 'Run the write again.',
      },
    );
  }
  await mkdir(dirname(target.realPath), { recursive: true });
  try {
    await replaceFile(target.realPath, bytes, { createOnly: plan.old === null, expect: plan.old?.bytes });
  } catch (error) {
    // Replaced but not durable: the bytes did land, so history says so if it can (the disk is failing, so
    // recording may fail too); the error reported is the first one.
    if (error instanceof NotDurableError) {
      await readDisk(target.realPath)
        .then((landed) => recordAfter(ctx, target.store, before, landed))
        .catch(() => undefined);
    }
    throw error;
  }
  await failpoint('write.file-written');
  await recordAfter(ctx, target.store, before, await readDisk(target.realPath));
  return before.id;
};

/**
 * A write fettle performs itself (`fettle write`, scripts): under the file's lock, record then replace
 * atomically, or stage a large one. The previous bytes are in git before the file changes. The path's policy
 * applies as in the hook: `block` refuses, `ignore` writes it without a record, `run` rules check it.
 */
export const writeBytes = async (
  ctx: Context,
  file: string,
  bytes: Buffer,
  given: Origin,
  /** run on the store once it is located (a command recovers an interrupted confirm there: recover.ts) */
  opened?: (store: Target['store']) => Promise<unknown>,
): Promise<Written> => {
  const origin = await withTurn(ctx, given);
  const target = await locateTarget(file, ctx.cwd, ctx.env, ctx.config.dataDir);
  await opened?.(target.store);
  const policy = policyFor(ctx, target);
  const ruled = ruledOut(policy, target);
  if (ruled?.kind === 'blocked') throw blockedError(target.treePath, ruled);
  const result = await withLock(fileLockPath(target.store, target.treePath), async (): Promise<Written> => {
    if (ruled) return writeUnrecorded(target, bytes, ruled.ruleText);
    const planned = await planWrite(ctx, target, await readDisk(target.realPath), bytes, { policy });
    // The run rules as on the hook's path (before.ts): a failure blocks the write, or stages it with its output.
    const checked = await runRules(ctx, planned, policy, { session: origin.session });
    if (checked.kind === 'block')
      throw runBlockedError(
        target.treePath,
        checked.text,
        policy.feedback.map((f) => f.message),
      );
    const { plan } = checked;
    const decision = plan.decision;
    if (decision.tier === 'noop') return { kind: 'noop', target };
    const decided = { ...fieldsOf(plan, origin), decidedBy: deciderOf(plan) };
    if (decision.tier === 'staged') {
      const { id, supersedes } = await stage(ctx, plan, { ...origin, decidedBy: decided.decidedBy });
      const { thresholds } = policy;
      const check = checkOf(checked);
      const rule = stagingRule(plan);
      return { kind: 'staged', target, decision, id, diff: plan.diff, supersedes, thresholds, rule, check };
    }
    const id = await writeDirect(ctx, plan, bytes, decided);
    return { kind: 'written', target, decision, id, shape: shapeOf(bytes, decision.modified) };
  });
  await housekeep(ctx, target.store);
  return result;
};
