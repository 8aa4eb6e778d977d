// `fettle hook`: one Claude Code hook call. PreToolUse records the file's current bytes (direct) or stages
// the write and denies it (large); PostToolUse records what landed. Failures map to outcomes here, once.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import { renderAsk, renderDirect, renderNoop, renderRefused, renderStaged, summarize } from '../core/messages';
import { routeStaged } from '../core/permission';
import type { RecordFields } from '../core/record';
import type { WriteCall } from '../core/tool-call';
import { FettleError, toFettleError } from '../errors';
import { countChanges } from '../core/diff';
import { sameBytes } from '../core/content';
import { entryKind, readDisk } from '../io/atomic-write';
import { invocationFor, selfCommand } from '../io/self';
import { loadChange } from '../protocol/changes';
import type { Context } from '../protocol/context';
import { planWrite } from '../protocol/plan';
import { propose } from '../protocol/propose';
import { settleFailedWrite } from '../protocol/failed-write';
import { fieldsOf, recordAfter, recordBefore, stage } from '../protocol/record';
import { retainQuietly } from '../protocol/retention';
import { digest, rememberWrite, takeWrite } from '../protocol/tool-use';
import { locateTarget } from '../store/locate';
import { READ_BATCH, readFile } from '../store/objects';
import { removeHiddenWorktree } from '../store/worktrees';
import { ask, block, context, deny, pass, warn, type HookOutcome } from './outcome';
import { parsePayload, type Payload } from './payload';
import { serveRead } from './read';
import { settleSession } from './end';

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
}

type WritePayload = Payload & { call: WriteCall };

/** Both events read trees along the written path: start that reader while the repository is located. */
const WARM = { warm: [READ_BATCH] };

/** Ends `text` with a full stop unless it already ends a sentence. */
const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

const debug = (env: Env, error: unknown): string =>
  env.FETTLE_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : '';

export const runHook = async (raw: string, edge: HookEdge): Promise<HookOutcome> => {
  const parsed = parsePayload(raw);
  if (parsed.kind === 'ignore') return pass();
  if (parsed.kind === 'invalid') {
    return warn(`fettle: ${parsed.why}. This tool call was not protected by fettle.`);
  }
  if (parsed.kind === 'end') return settleSession(parsed.end, edge);
  const payload = parsed.payload;
  if (payload.call.tool === 'Read') {
    return payload.event === 'PreToolUse' ? serveRead(payload.call, payload.cwd ?? edge.cwd, edge) : pass();
  }
  // PreToolUse runs before Claude Code's permission check, in plan mode too: do nothing there.
  if (payload.event === 'PreToolUse' && payload.permissionMode === 'plan') return pass();
  const p = payload as WritePayload;

  let ctx: Context;
  try {
    const config = loadConfig(edge.env);
    ctx = { cwd: p.cwd ?? edge.cwd, env: edge.env, now: clockFrom(edge.env), config };
  } catch (error) {
    const e = toFettleError(error);
    if (p.event !== 'PreToolUse') return warn(`fettle: ${e.message}`);
    return block(
      `fettle blocked this write because its configuration is invalid; nothing was written. ${e.message}${e.hint ? ` ${e.hint}` : ''}`,
    );
  }

  try {
    if (p.event === 'PostToolUseFailure') return await afterFailure(ctx, p);
    return p.event === 'PreToolUse' ? await beforeWrite(ctx, p, edge) : await afterWrite(ctx, p, edge);
  } catch (error) {
    const e = toFettleError(error);
    if (e.code === 'E_FORBIDDEN_PATH') return pass(); // .git paths: not fettle's to handle, never written by it
    // Too large to hold: blocking would stop the agent from ever editing it; say plainly it goes unprotected.
    if (e.code === 'E_TOO_LARGE')
      return warn(`fettle: ${e.message} This write to ${p.call.filePath} is NOT protected: nothing was recorded.`);
    // A symlink loop or an overlong name: no file can be written there, and the tool will say so itself.
    const errno = (e.cause as NodeJS.ErrnoException | undefined)?.code;
    if (errno === 'ELOOP' || errno === 'ENAMETOOLONG') return pass();
    const file = p.call.filePath;
    const detail = `${sentence(e.message)}${e.hint ? ` ${sentence(e.hint)}` : ''}${debug(edge.env, error)}`;
    if (p.event === 'PostToolUse')
      return warn(`fettle: the write to ${file} happened, but recording its result failed: ${detail}`);
    if (p.event === 'PostToolUseFailure')
      return warn(`fettle: the write to ${file} failed, and settling its record failed too: ${detail}`);
    if (ctx.config.onError === 'allow') {
      return warn(
        `fettle could not save the previous content of ${file}, so this write is NOT protected (FETTLE_ON_ERROR=allow): ${detail}`,
      );
    }
    return block(
      `fettle blocked this write because it could not save the previous content of ${file} first; nothing was written. ` +
        `Cause: ${detail} To let writes through unprotected until this is fixed, set FETTLE_ON_ERROR=allow.`,
    );
  }
};

const WRITTEN_THEN_REPLACED =
  'The bytes this Write wrote; another writer replaced them before fettle recorded the write.';
const REPLACED_BY_ANOTHER =
  "Found on disk after this Write: another writer replaced its bytes (kept in this commit's second parent) before fettle recorded them.";

/**
 * Inside the project (`CLAUDE_PROJECT_DIR`, else the agent's cwd) and not under a `.claude` directory: where
 * acceptEdits lets Claude Code write without asking. Compared as the client sends the path, before symlinks.
 */
const inProject = (file: string, project: string): boolean => {
  const rel = relative(resolve(project), resolve(project, file));
  return (
    rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel) && !rel.split(sep).includes('.claude')
  );
};

const beforeWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const target = await locateTarget(p.call.filePath, ctx.cwd, ctx.env, ctx.config.dataDir, WARM);
  // Not a file (a directory, a device): the tool will fail on its own and say why.
  if ((await entryKind(target.realPath)) === 'other') return pass();
  const old = await readDisk(target.realPath);
  const origin = { session: p.sessionId, toolUse: p.toolUseId, tool: p.call.tool };
  const proposed = propose(p.call, old);
  // What fettle predicts will land; PostToolUse keeps the predicted counts only if exactly this landed.
  // Hashed only for a record PostToolUse will complete: a staged change the model is told about needs none.
  const expected = () => (proposed.exact ? digest(proposed.next, p.call.tool) : undefined);
  const remember = async (record: { id: string; tip: string; fields: RecordFields }) => {
    if (p.toolUseId)
      await rememberWrite(target.store, p.toolUseId, { ...record, file: target.realPath, expect: expected() });
  };
  if (!proposed.exact) {
    // fettle cannot reproduce the tool's result for sure: keep the previous bytes, let the tool decide.
    if (!old) return pass();
    const fields = {
      tier: 'direct' as const,
      path: target.treePath,
      file: target.realPath,
      reason: 'unsure',
      note: `fettle could not predict the result: ${proposed.why}.`,
      ...origin,
    };
    await remember(await recordBefore(ctx, target, old, fields));
    return pass();
  }
  const plan = await planWrite(ctx, target, old, proposed.next, proposed.counts);
  const d = plan.decision;
  if (d.tier === 'noop') return context('PreToolUse', renderNoop(target.treePath));
  if (d.tier === 'direct') {
    await remember(await recordBefore(ctx, target, old, fieldsOf(plan, origin), plan.stored?.old));
    return pass(); // Claude Code now writes through its normal permission flow; PostToolUse reports.
  }
  const route = routeStaged({
    mode: p.permissionMode,
    review: ctx.config.review,
    inProject: inProject(p.call.filePath, edge.env.CLAUDE_PROJECT_DIR || ctx.cwd),
  });
  if (route === 'refuse')
    return deny(renderRefused({ path: target.treePath, decision: d, thresholds: ctx.config, tool: p.call.tool }));
  const staged = await stage(ctx, plan, route === 'person' ? { ...origin, review: 'person' } : origin);
  const { id } = staged;
  const message = { id, path: target.treePath, decision: d, ttlSeconds: ctx.config.ttlSeconds, thresholds: ctx.config };
  if (route === 'person') {
    // The person answers Claude Code's prompt; if they allow it, the tool writes and PostToolUse marks it applied.
    await remember(staged);
    return ask(renderAsk(message));
  }
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  return deny(renderStaged({ ...message, diff: plan.diff, invoke, tool: p.call.tool }));
};

/** The record PreToolUse started for this tool call (its link taken), or null when there is none. */
const startedRecord = async (ctx: Context, p: WritePayload) => {
  if (!p.toolUseId) return null;
  const target = await locateTarget(p.call.filePath, ctx.cwd, ctx.env, ctx.config.dataDir, WARM);
  const pending = await takeWrite(target.store, p.toolUseId);
  if (!pending || pending.file !== target.realPath) return null;
  const change =
    pending.tip && pending.fields
      ? { tip: pending.tip, fields: pending.fields }
      : await loadChange(target.store, pending.id, ctx.config.ttlSeconds, ctx.now());
  return { target, pending, change };
};

/** PostToolUseFailure: the record PreToolUse started for this call is settled (see protocol/failed-write.ts). */
const afterFailure = async (ctx: Context, p: WritePayload): Promise<HookOutcome> => {
  const started = await startedRecord(ctx, p);
  if (started)
    await settleFailedWrite(
      ctx,
      started.target.store,
      started.pending.id,
      started.change,
      started.target.realPath,
      p.error,
    );
  return pass();
};

const afterWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const started = await startedRecord(ctx, p);
  if (!started) return pass();
  const { target, pending, change } = started;
  const kind = change.fields.kind === 'before' ? 'after' : change.fields.kind === 'proposal' ? 'applied' : null;
  if (!kind) throw new FettleError('E_CONFLICT', `change ${pending.id} was already completed by another process.`);
  const landed = await readDisk(target.realPath);
  const predicted =
    pending.expect !== undefined && landed !== null && pending.expect === digest(landed.bytes, p.call.tool);
  // +/- lines from the recorded bytes, when what landed differs from fettle's prediction (read once, if at all).
  let recordedBytes: Promise<Buffer | null> | undefined;
  const countsTo = async (bytes: Buffer | null) => {
    recordedBytes ??= readFile(target.store, change.tip, change.fields.path).then((f) => f?.bytes ?? null);
    return countChanges(await recordedBytes, bytes);
  };
  const fields =
    predicted || change.fields.reason === 'new-file'
      ? change.fields
      : { ...change.fields, ...(await countsTo(landed?.bytes ?? null)) };
  // The tool reported success, so a Write's bytes were on disk; if other bytes are there now, another writer
  // replaced them before this hook ran. The Write's own bytes are kept too, so they can be restored.
  const asked = kind === 'after' && !predicted && p.call.tool === 'Write' ? Buffer.from(p.call.content, 'utf8') : null;
  const replaced =
    asked && !sameBytes(asked, landed?.bytes)
      ? { bytes: asked, fields: { ...change.fields, ...(await countsTo(asked)), note: WRITTEN_THEN_REPLACED } }
      : undefined;
  const recorded = replaced ? { ...fields, note: REPLACED_BY_ANOTHER } : fields;
  await recordAfter(ctx, target.store, pending.id, { tip: change.tip, fields: recorded }, landed, kind, replaced);
  if (kind === 'applied') await removeHiddenWorktree(target.store, pending.id);
  const { reason, added, removed } = fields;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  await retainQuietly(ctx, target.store);
  return context('PostToolUse', renderDirect(pending.id, target.treePath, summarize(reason, added, removed), invoke));
};
