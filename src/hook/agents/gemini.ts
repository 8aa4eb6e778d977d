// Gemini CLI's hooks (settings.json, `hooks.<Event>: [{matcher, hooks: [...]}]`). Its file tools are `write_file` and
// `replace`; BeforeTool runs after Gemini's own confirmation and right before the tool, AfterTool after it (with
// `tool_response.error` when it failed). Gemini's input has no tool-call id: a call is named by its session, tool and
// input, which BeforeTool and AfterTool share. A deny is `{"decision":"deny","reason"}`, which the model reads as "Tool
// execution blocked: <reason>"; AfterTool's additionalContext is appended to the tool's result. BeforeAgent counts
// turns (its prompt kept); AfterAgent ends a turn, SessionEnd the session. Its shell tool, `run_shell_command`
// (`command`, and `dir_path` for another directory than the session's), is recorded by the same snapshot and comparison
// as Claude Code's Bash (hook/bash.ts), the call named by its input as a write is.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { renderHeldForPerson } from '../../core/agent-messages';
import { predictReplace, predictWriteFile } from '../../core/gemini-tools';
import { renderDirect } from '../../core/direct-note';
import { renderRefused, renderStaged } from '../../core/messages';
import { ruledText } from '../ruled';
import type { WriteCall } from '../../core/tool-call';
import { invocationFor, selfCommand } from '../../io/self';
import type { Context, Origin } from '../../protocol/context';
import { afterFailedWrite, afterWrite } from '../../protocol/write/after';
import { type Decided, beforeWrite } from '../../protocol/write/before';
import type { HookEdge } from '../edge';
import { settleSession } from '../end';
import { isOutcome, writeContext, writeFailure } from '../failure';
import { pass, replayed, warn, type HookOutcome } from '../outcome';
import { commandProblem, str, usablePath, type Obj } from '../payload';
import { runShell } from '../bash';
import { isObj } from '../../core/json';
import { countTurn } from '../turn';
import { shownTarget } from '../../core/shown-path';

export const GEMINI_WRITE_TOOLS = ['write_file', 'replace'] as const;
export const GEMINI_SHELL_TOOL = 'run_shell_command';

/** A call's name: Gemini CLI gives none, so its tool and input, which BeforeTool and AfterTool share. */
const callName = (tool: string, input: Obj): string =>
  `gemini-${createHash('sha1')
    .update(`${tool}\0${JSON.stringify(input)}`)
    .digest('hex')
    .slice(0, 24)}`;

const runGeminiShell = (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  const input = isObj(data.tool_input) ? data.tool_input : {};
  const problem = commandProblem(input.command, GEMINI_SHELL_TOOL);
  if (problem !== undefined || typeof input.command !== 'string')
    return Promise.resolve(warn(`fettle: ${problem}; this command was not protected by fettle.`));
  const cwd = str(data.cwd) ?? edge.cwd;
  const dir = input.dir_path;
  const call = {
    command: input.command,
    cwd: usablePath(dir) ? resolve(cwd, dir) : cwd,
    session: str(data.session_id),
    toolUse: callName(GEMINI_SHELL_TOOL, input),
    agent: 'gemini',
    tool: GEMINI_SHELL_TOOL,
  };
  const error = isObj(data.tool_response) && isObj(data.tool_response.error) ? data.tool_response.error : undefined;
  const phase = data.hook_event_name === 'BeforeTool' ? 'before' : error ? 'failed' : 'after';
  return runShell({ phase, call, error: error && str(error.message) }, edge, geminiContext);
};

/** Gemini CLI's answers: a decision with its reason, or context for the model. */
const geminiDeny = (reason: string): HookOutcome => ({
  exitCode: 0,
  stops: true,
  stdout: JSON.stringify({ decision: 'deny', reason }),
});
const geminiContext = (text: string, user?: string): HookOutcome => ({
  exitCode: 0,
  stdout: JSON.stringify({
    ...(user ? { systemMessage: user } : {}),
    hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: text },
  }),
});

/**
 * The tool call as the write protocol takes it, or why fettle cannot tell which file it writes: Gemini strips NULs
 * and reads a leading `@` as a reference; a relative `replace` path that does not exist is searched for in the
 * workspace (not reproduced: the file it finds is written unprotected).
 */
const callOf = (tool: string, input: Obj, cwd: string): WriteCall | string => {
  const path = input.file_path;
  if (!usablePath(path) || path.startsWith('@'))
    return 'file_path is missing or not a path fettle resolves as Gemini CLI does';
  const filePath = isAbsolute(path) ? path : resolve(cwd, path);
  if (tool === 'write_file') {
    if (typeof input.content !== 'string') return 'write_file content is missing or not a string';
    const content = input.content;
    return { tool: 'Rewrite', filePath, input, predict: (old) => predictWriteFile(filePath, content, old) };
  }
  if (typeof input.old_string !== 'string' || typeof input.new_string !== 'string')
    return 'replace old_string and new_string must be strings';
  const r = { oldString: input.old_string, newString: input.new_string, allowMultiple: input.allow_multiple === true };
  return { tool: 'Rewrite', filePath, input, predict: (old) => predictReplace(r, old) };
};

export const runGemini = async (data: Obj, edge: HookEdge): Promise<HookOutcome> => {
  const event = data.hook_event_name;
  const session = str(data.session_id);
  const cwd = str(data.cwd);
  if (event === 'BeforeAgent') return countTurn({ session, prompt: str(data.prompt) }, edge);
  if (event === 'AfterAgent' || event === 'SessionEnd') {
    const kind = event === 'AfterAgent' ? ('Stop' as const) : ('SessionEnd' as const);
    return settleSession({ event: kind, session, cwd, transcript: undefined, callsOver: true }, edge);
  }
  const tool = data.tool_name;
  if (event !== 'BeforeTool' && event !== 'AfterTool') return pass();
  if (tool === GEMINI_SHELL_TOOL) return runGeminiShell(data, edge);
  if (!GEMINI_WRITE_TOOLS.some((t) => t === tool)) return pass();
  const input = isObj(data.tool_input) ? data.tool_input : {};
  const call = callOf(tool as string, input, cwd ?? edge.cwd);
  if (typeof call === 'string') return warn(`fettle: ${call}; this tool call was not protected by fettle.`);
  const ctx = writeContext(edge, cwd, event === 'BeforeTool');
  if (isOutcome(ctx)) return ctx;
  const origin: Origin = { session, toolUse: callName(tool as string, input), tool: tool as string, agent: 'gemini' };
  const failed = isObj(data.tool_response) && data.tool_response.error != null;
  try {
    if (event === 'BeforeTool') return await before(ctx, edge, call, origin);
    if (failed) {
      const error =
        isObj(data.tool_response) && isObj(data.tool_response.error)
          ? str(data.tool_response.error.message)
          : undefined;
      await afterFailedWrite(ctx, call, origin, error);
      return pass();
    }
    return await after(ctx, edge, call, origin);
  } catch (error) {
    return writeFailure(error, ctx, event === 'BeforeTool' ? 'before' : failed ? 'failed' : 'after', call.filePath);
  }
};

const before = async (ctx: Context, edge: HookEdge, call: WriteCall, origin: Origin): Promise<HookOutcome> => {
  // BeforeTool runs once Gemini CLI has its user's go-ahead (or needs none): a large write goes to the model to
  // confirm, unless FETTLE_REVIEW=human.
  const decided = await beforeWrite(ctx, { call, origin, mode: undefined, inProject: true, asks: false });
  if (decided.kind === 'replay') return replayed(decided.answer) ?? pass();
  if (decided.kind === 'duplicate') return pass();
  const outcome = answer(ctx, edge, decided, origin.tool ?? 'write');
  await decided.remember?.(JSON.stringify(outcome)).catch(() => undefined);
  return outcome;
};

const answer = (ctx: Context, edge: HookEdge, d: Decided, tool: string): HookOutcome => {
  // BeforeTool takes no context for the model: a write of the same bytes just goes ahead.
  if (d.kind === 'pass' || d.kind === 'noop') return pass();
  const path = shownTarget(d.target);
  if (d.kind === 'refused')
    return geminiDeny(renderRefused({ path, decision: d.decision, thresholds: d.thresholds, tool, rule: d.rule }));
  // A policy rule: `ignore` leaves the path to the tool, `block` denies with the rule's message.
  if (d.kind === 'ignored') return pass();
  if (d.kind === 'blocked' || d.kind === 'unstageable') return geminiDeny(ruledText(d, tool));
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), ctx.cwd, d.target.store, d.target.realPath);
  const { thresholds, rule } = d;
  if (d.review === 'person')
    return geminiDeny(renderHeldForPerson({ id: d.id, path, decision: d.decision, thresholds, invoke, tool }));
  const message = { id: d.id, path, decision: d.decision, ttlSeconds: ctx.config.ttlSeconds, thresholds, rule, invoke };
  const check = d.check;
  return geminiDeny(renderStaged({ ...message, diff: d.diff, tool, supersedes: d.supersedes, check }));
};

const after = async (ctx: Context, edge: HookEdge, call: WriteCall, origin: Origin): Promise<HookOutcome> => {
  const done = await afterWrite(ctx, call, origin);
  if (done.kind === 'none') return pass();
  const { target, id, fields, shape, since } = done;
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), ctx.cwd, target.store, target.realPath);
  return geminiContext(renderDirect({ id, path: shownTarget(target), fields, shape, invoke, since }));
};
