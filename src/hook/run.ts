// `fettle hook`: one hook call. Another agent's input goes to its adapter (agents/); Claude Code's is handled
// here, in its dialect. The write protocol itself is protocol/write/before.ts; here: parse the payload, call it, render
// its answer, and map failures to outcomes (failure.ts).
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { renderDirect } from '../core/direct-note';
import { renderAsk, renderNoop, renderRefused, renderStaged } from '../core/messages';
import type { ToolCall, WriteCall } from '../core/tool-call';
import { invocationFor, selfCommand } from '../io/self';
import type { Context } from '../protocol/context';
import * as writeAfter from '../protocol/write/after';
import * as writeBefore from '../protocol/write/before';
import { agentOf, unknownAgent, withoutAdapter } from './agents/detect';
import { noteAfter, noteBefore } from './audit';
import { settleSession } from './end';
import { isOutcome, writeContext, writeFailure } from './failure';
import { countTurn } from './turn';
import { withFeedback } from './feedback';
import type { HookEdge } from './edge';
import { ask, context, deny, pass, replayed, warn, type HookOutcome } from './outcome';
import { runBash } from './bash';
import { parseData, readJson, type Payload } from './payload';
import { serveRead } from './read';
import { forgetReads, forgetSeen, readerOf, rereadAfter, rereadBefore, wroteSeen } from './reread';
import { askedText, ruledText } from './ruled';
import { shownTarget } from '../core/shown-path';
import { clockFrom } from '../config';
import { noteCall } from '../protocol/session-state';

type WritePayload = Payload & { call: WriteCall };
type ReadCall = Extract<ToolCall, { tool: 'Read' }>;

export const runHook = async (raw: string, edge: HookEdge): Promise<HookOutcome> => {
  const input = readJson(raw);
  const out = await answerHook(input, edge);
  if (!('data' in input)) return out;
  const { hook_event_name: event, session_id: session } = input.data;
  const agent = agentOf(input.data, edge.agent);
  // The events whose answer carries context to the model; opencode's adapter adds it to the tool's output itself.
  if (agent && CONTEXT_EVENTS[agent]?.includes(event as string) && typeof session === 'string')
    return withFeedback(out, event as string, session, edge);
  return out;
};

/** Per agent, the hook events whose `additionalContext` the model reads: a tool's result, a new prompt. */
const CONTEXT_EVENTS: Record<string, string[]> = {
  claude: ['PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit'],
  codex: ['PostToolUse', 'UserPromptSubmit'],
  gemini: ['AfterTool', 'BeforeAgent'],
};

const answerHook = async (input: ReturnType<typeof readJson>, edge: HookEdge): Promise<HookOutcome> => {
  if ('why' in input) return warn(`fettle: ${input.why}. This tool call was not protected by fettle.`);
  // opencode's plugin marks its events (plugins/opencode/fettle.mjs) and runs `fettle hook --agent opencode`.
  if (input.data.fettle_adapter === 'opencode')
    return edge.adapters ? edge.adapters('opencode', input.data, edge) : withoutAdapter('opencode');
  const agent = agentOf(input.data, edge.agent);
  if (agent === null) return unknownAgent(input.data, edge.agent);
  if (agent !== 'claude') return edge.adapters ? edge.adapters(agent, input.data, edge) : withoutAdapter(agent);
  const parsed = parseData(input.data);
  if (parsed.kind === 'ignore') return pass();
  if (parsed.kind === 'invalid') {
    return warn(`fettle: ${parsed.why}. This tool call was not protected by fettle.`);
  }
  if (parsed.kind === 'end') return settleSession(parsed.end, edge);
  if (parsed.kind === 'turn') return countTurn(parsed.turn, edge);
  if (parsed.kind === 'compact') return forgetReads(readerOf(parsed.session, parsed.agentId), parsed.cwd, edge);
  if (parsed.kind === 'bash') return runBash(parsed.bash, edge);
  const payload = parsed.payload;
  if (payload.call.tool === 'Read') return answerRead(payload as Payload & { call: ReadCall }, edge);
  // PreToolUse runs before Claude Code's permission check, in plan mode too: do nothing there.
  if (payload.event === 'PreToolUse' && payload.permissionMode === 'plan') return pass();
  const p = payload as WritePayload;

  const ctx = writeContext(edge, p.cwd, p.event === 'PreToolUse');
  if (isOutcome(ctx)) return ctx;
  try {
    if (p.event === 'PostToolUseFailure') return await afterFailure(ctx, p);
    return p.event === 'PreToolUse' ? await beforeWrite(ctx, p, edge) : await afterWrite(ctx, p, edge);
  } catch (error) {
    const step = p.event === 'PreToolUse' ? 'before' : p.event === 'PostToolUse' ? 'after' : 'failed';
    return writeFailure(error, ctx, step, p.call.filePath);
  }
};

/** A Read (registered with `fettle install --read`): a large file is served a page at a time, a re-read answered. */
const answerRead = async (p: Payload & { call: ReadCall }, edge: HookEdge): Promise<HookOutcome> => {
  const read = { call: p.call, cwd: p.cwd, reader: readerOf(p.sessionId, p.agentId), response: p.response };
  if (p.event === 'PostToolUse') return rereadAfter(read, edge);
  if (p.event !== 'PreToolUse') return pass();
  const cwd = p.cwd ?? edge.cwd;
  await noteCall(cwd, p.sessionId, { tool: 'Read', file: p.call.filePath }, clockFrom(edge.env)().getTime());
  const large = await serveRead(p.call, cwd, edge);
  return large.exitCode === 0 && large.stdout === undefined ? rereadBefore(read, edge) : large;
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

const originOf = (p: WritePayload) => ({
  session: p.sessionId,
  toolUse: p.toolUseId,
  tool: p.call.tool,
  agent: 'claude',
});

const beforeWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const project = edge.env.CLAUDE_PROJECT_DIR || ctx.cwd;
  const w = {
    call: p.call,
    origin: originOf(p),
    mode: p.permissionMode,
    inProject: inProject(p.call.filePath, project),
  };
  const before = await writeBefore.beforeWrite(ctx, w);
  noteBefore(edge, before);
  // Answered before (a retried call, or fettle installed twice): the same answer, nothing recorded again.
  if (before.kind === 'replay') return replayed(before.answer) ?? pass();
  // Being answered right now by the other fettle: the client takes the most restrictive of the two answers.
  if (before.kind === 'duplicate') return pass();
  const outcome = answer(ctx, p, edge, before);
  await before.remember?.(JSON.stringify(outcome)).catch(() => undefined);
  // The session's log sees the write the tool now makes (state conditions: "since its last write").
  if (before.kind === 'pass' || before.kind === 'ignored') {
    const write = { tool: p.call.tool, file: p.call.filePath, write: true };
    await noteCall(ctx.cwd, p.sessionId, write, ctx.now().getTime());
  }
  return outcome;
};

const answer = (ctx: Context, p: WritePayload, edge: HookEdge, before: writeBefore.Decided): HookOutcome => {
  switch (before.kind) {
    case 'pass':
      return pass(); // Claude Code now writes through its normal permission flow; PostToolUse reports.
    case 'noop':
      return context('PreToolUse', renderNoop(shownTarget(before.target)));
    case 'refused':
      return deny(
        renderRefused({
          path: shownTarget(before.target),
          decision: before.decision,
          thresholds: before.thresholds,
          tool: p.call.tool,
          rule: before.rule,
          check: before.check,
        }),
      );
    case 'ignored':
      return pass(); // a policy rule leaves this path to the tool: nothing recorded
    case 'blocked':
      return before.ask ? ask(askedText(before)) : deny(ruledText(before, p.call.tool));
    case 'unstageable':
      return deny(ruledText(before, p.call.tool));
  }
  const { id, target, decision, supersedes, thresholds, rule, check } = before;
  const path = shownTarget(target);
  const message = { id, path, decision, ttlSeconds: ctx.config.ttlSeconds, thresholds, rule, check };
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  if (before.review === 'person') return ask(renderAsk({ ...message, invoke }));
  return deny(renderStaged({ ...message, diff: before.diff, invoke, tool: p.call.tool, supersedes }));
};

/** PostToolUseFailure: the record PreToolUse started for this call is settled. */
const afterFailure = async (ctx: Context, p: WritePayload): Promise<HookOutcome> => {
  await writeAfter.afterFailedWrite(ctx, p.call, originOf(p), p.error);
  // The write failed as it ran: what the session holds of the file is not known for sure, so its next Read is the
  // file. (A write the client refuses before it runs, "modified since read", reaches no hook.)
  await forgetSeen(ctx, readerOf(p.sessionId, p.agentId), p.call.filePath);
  return pass();
};

const afterWrite = async (ctx: Context, p: WritePayload, edge: HookEdge): Promise<HookOutcome> => {
  const after = await writeAfter.afterWrite(ctx, p.call, originOf(p));
  noteAfter(edge, after);
  if (after.kind === 'none') return pass();
  await wroteSeen(ctx, readerOf(p.sessionId, p.agentId), after);
  const { target, id, fields, shape, since } = after;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), p.cwd, target.store, target.realPath);
  return context('PostToolUse', renderDirect({ id, path: shownTarget(target), fields, shape, invoke, since }));
};
