// `fettle hook`: one Claude Code hook call, in Claude Code's dialect. The write protocol itself is
// protocol/write.ts; here: parse the payload, call it, render its answer, and map failures to outcomes, once.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import {
  renderAsk,
  renderBlocked,
  renderDirect,
  renderNoop,
  renderRefused,
  renderStaged,
  renderUnstageable,
  summarize,
} from '../core/messages';
import type { WriteCall } from '../core/tool-call';
import { toFettleError } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import type { Context } from '../protocol/context';
import * as protocol from '../protocol/write';
import { noteAfter, noteBefore } from './audit';
import { settleSession } from './end';
import { countTurn } from './turn';
import type { HookEdge } from './edge';
import { ask, block, context, deny, pass, replayed, warn, type HookOutcome } from './outcome';
import { OPENCODE_MARK, runOpencode } from './opencode';
import { parsePayload, type Payload } from './payload';
import { serveRead } from './read';

type WritePayload = Payload & { call: WriteCall };

/** Ends `text` with a full stop unless it already ends a sentence. */
const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

const debug = (env: Env, error: unknown): string =>
  env.FETTLE_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : '';

export const runHook = async (raw: string, edge: HookEdge): Promise<HookOutcome> => {
  if (raw.startsWith(OPENCODE_MARK)) return runOpencode(raw, edge);
  const parsed = parsePayload(raw);
  if (parsed.kind === 'ignore') return pass();
  if (parsed.kind === 'invalid') {
    return warn(`fettle: ${parsed.why}. This tool call was not protected by fettle.`);
  }
  if (parsed.kind === 'end') return settleSession(parsed.end, edge);
  if (parsed.kind === 'turn') return countTurn(parsed.turn, edge);
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
    // A policy that cannot be read decides nothing: blocked until it is fixed, or let through unrecorded.
    if (e.code === 'E_POLICY') {
      if (ctx.config.onError === 'allow')
        return warn(
          `fettle: ${detail} This write to ${file} is NOT protected (FETTLE_ON_ERROR=allow): nothing was recorded.`,
        );
      return block(
        `fettle blocked this write because a policy file is invalid; nothing was written. ${detail} ` +
          'To let writes through unprotected until it is fixed, set FETTLE_ON_ERROR=allow.',
      );
    }
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

const originOf = (p: WritePayload) => ({ session: p.sessionId, toolUse: p.toolUseId, tool: p.call.tool });

const beforeWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const project = edge.env.CLAUDE_PROJECT_DIR || ctx.cwd;
  const w = {
    call: p.call,
    origin: originOf(p),
    mode: p.permissionMode,
    inProject: inProject(p.call.filePath, project),
  };
  const before = await protocol.beforeWrite(ctx, w);
  noteBefore(edge, before);
  // Answered before (a retried call, or fettle installed twice): the same answer, nothing recorded again.
  if (before.kind === 'replay') return replayed(before.answer) ?? pass();
  // Being answered right now by the other fettle: the client takes the most restrictive of the two answers.
  if (before.kind === 'duplicate') return pass();
  const outcome = answer(ctx, p, edge, before);
  await before.remember?.(JSON.stringify(outcome)).catch(() => undefined);
  return outcome;
};

const answer = (ctx: Context, p: WritePayload, edge: HookEdge, before: protocol.Decided): HookOutcome => {
  switch (before.kind) {
    case 'pass':
      return pass(); // Claude Code now writes through its normal permission flow; PostToolUse reports.
    case 'noop':
      return context('PreToolUse', renderNoop(before.target.treePath));
    case 'refused':
      return deny(
        renderRefused({
          path: before.target.treePath,
          decision: before.decision,
          thresholds: before.thresholds,
          tool: p.call.tool,
          rule: before.rule,
        }),
      );
    case 'ignored':
      return pass(); // a policy rule leaves this path to the tool: nothing recorded
    case 'blocked': {
      const { target, ruleText, rule } = before;
      return deny(
        renderBlocked({ path: target.treePath, rule: ruleText, message: rule.message ?? '', tool: p.call.tool }),
      );
    }
    case 'unstageable': {
      const { target, ruleText, why } = before;
      return deny(renderUnstageable({ path: target.treePath, rule: ruleText, why, tool: p.call.tool }));
    }
  }
  const { id, target, decision, supersedes, thresholds, rule } = before;
  const message = { id, path: target.treePath, decision, ttlSeconds: ctx.config.ttlSeconds, thresholds, rule };
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  if (before.review === 'person') return ask(renderAsk({ ...message, invoke }));
  return deny(renderStaged({ ...message, diff: before.diff, invoke, tool: p.call.tool, supersedes }));
};

/** PostToolUseFailure: the record PreToolUse started for this call is settled. */
const afterFailure = async (ctx: Context, p: WritePayload): Promise<HookOutcome> => {
  await protocol.afterFailedWrite(ctx, p.call, originOf(p), p.error);
  return pass();
};

const afterWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const after = await protocol.afterWrite(ctx, p.call, originOf(p));
  noteAfter(edge, after);
  if (after.kind === 'none') return pass();
  const { target, id, fields } = after;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  const summary = summarize(fields.reason, fields.added, fields.removed);
  return context('PostToolUse', renderDirect(id, target.treePath, summary, invoke));
};
