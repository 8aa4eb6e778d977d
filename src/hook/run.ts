// `fettle hook`: one Claude Code hook call. PreToolUse records the file's current bytes (direct) or stages
// the write and denies it (large); PostToolUse records what landed. Failures map to outcomes here, once.
import { clockFrom, loadConfig, type Env } from '../config';
import { renderDirect, renderNoop, renderStaged, summarize } from '../core/messages';
import { FettleError, toFettleError } from '../errors';
import { entryKind, readDisk } from '../io/atomic-write';
import { invocationFor, selfCommand } from '../io/self';
import { loadChange } from '../protocol/changes';
import type { Context } from '../protocol/context';
import { planWrite } from '../protocol/plan';
import { fieldsOf, recordAfter, recordBefore, stage } from '../protocol/record';
import { rememberWrite, takeWrite } from '../protocol/tool-use';
import { locateTarget } from '../store/locate';
import { block, context, deny, pass, warn, type HookOutcome } from './outcome';
import { parsePayload, type WritePayload } from './payload';

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
}

const debug = (env: Env, error: unknown): string =>
  env.FETTLE_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : '';

export const runHook = async (raw: string, edge: HookEdge): Promise<HookOutcome> => {
  const parsed = parsePayload(raw);
  if (parsed.kind === 'ignore') return pass();
  if (parsed.kind === 'invalid') {
    return warn(`fettle: ${parsed.why}. This tool call was not protected by fettle.`);
  }
  const payload = parsed.payload;
  // PreToolUse runs before Claude Code's permission check, in plan mode too: do nothing there.
  if (payload.event === 'PreToolUse' && payload.permissionMode === 'plan') return pass();

  let ctx: Context;
  try {
    const config = loadConfig(edge.env);
    ctx = { cwd: payload.cwd ?? edge.cwd, env: edge.env, now: clockFrom(edge.env), config };
  } catch (error) {
    const e = toFettleError(error);
    if (payload.event === 'PostToolUse') return warn(`fettle: ${e.message}`);
    return block(`fettle blocked this write because its configuration is invalid; nothing was written. ${e.message}${e.hint ? ` ${e.hint}` : ''}`);
  }

  try {
    return payload.event === 'PreToolUse' ? await beforeWrite(ctx, payload, edge) : await afterWrite(ctx, payload, edge);
  } catch (error) {
    const e = toFettleError(error);
    if (e.code === 'E_FORBIDDEN_PATH') return pass(); // .git paths: not fettle's to handle, never written by it
    const detail = `${e.message}${e.hint ? ` ${e.hint}` : ''}${debug(edge.env, error)}`;
    if (payload.event === 'PostToolUse') {
      return warn(`fettle: the write to ${payload.filePath} happened, but recording its result failed: ${detail}`);
    }
    if (ctx.config.onError === 'allow') {
      return warn(`fettle could not save the previous content of ${payload.filePath}, so this write is NOT protected (FETTLE_ON_ERROR=allow): ${detail}`);
    }
    return block(
      `fettle blocked this write because it could not save the previous content of ${payload.filePath} first; nothing was written. ` +
        `Cause: ${detail} To let writes through unprotected until this is fixed, set FETTLE_ON_ERROR=allow.`,
    );
  }
};

const beforeWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const target = await locateTarget(p.filePath, ctx.cwd, ctx.env, ctx.config.dataDir);
  // Not a file (a directory, a device): the tool will fail on its own and say why.
  if ((await entryKind(target.realPath)) === 'other') return pass();
  const plan = await planWrite(ctx, target, Buffer.from(p.content, 'utf8'));
  const origin = { session: p.sessionId, toolUse: p.toolUseId, tool: p.tool };
  const d = plan.decision;
  if (d.tier === 'noop') return context('PreToolUse', renderNoop(target.treePath));
  if (d.tier === 'direct') {
    const { id } = await recordBefore(ctx, plan.target, plan.old, fieldsOf(plan, origin));
    if (p.toolUseId) await rememberWrite(target.store, p.toolUseId, { id, file: target.realPath });
    return pass(); // Claude Code now writes through its normal permission flow; PostToolUse reports.
  }
  const { id } = await stage(ctx, plan, origin);
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  return deny(renderStaged({ id, path: target.treePath, decision: d, diff: plan.diff, invoke, ttlSeconds: ctx.config.ttlSeconds, thresholds: ctx.config }));
};

const afterWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  if (!p.toolUseId) return pass();
  const target = await locateTarget(p.filePath, ctx.cwd, ctx.env, ctx.config.dataDir);
  const pending = await takeWrite(target.store, p.toolUseId);
  if (!pending || pending.file !== target.realPath) return pass();
  const change = await loadChange(target.store, pending.id, ctx.config.ttlSeconds, ctx.now());
  if (change.fields.kind !== 'before') {
    throw new FettleError('E_CONFLICT', `change ${pending.id} was already completed by another process.`);
  }
  await recordAfter(ctx, target.store, pending.id, { tip: change.tip, fields: change.fields }, await readDisk(target.realPath));
  const summary = summarize(change.fields.reason, change.fields.added, change.fields.removed);
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  return context('PostToolUse', renderDirect(pending.id, target.treePath, summary, invoke));
};
