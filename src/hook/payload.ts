// The hook input, checked without trusting it. Claude Code sends JSON on stdin; other agents (Cursor's
// third-party loader) may send other shapes, which fettle lets pass untouched.
import type { EditOp } from '../core/edits';
import { COMPACT_EVENTS, forgetsReads, HOOK_EVENTS, SESSION_EVENTS, TURN_EVENTS } from '../core/settings';
import { WRITE_TOOLS, type ToolCall } from '../core/tool-call';
import { isObj } from '../core/json';

export type HookEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure';

/** The events install registers: a payload of another one is not fettle's. */
const EVENTS = new Set<unknown>(HOOK_EVENTS);

export interface Payload {
  event: HookEvent;
  call: ToolCall;
  cwd: string | undefined;
  permissionMode: string | undefined;
  sessionId: string | undefined;
  toolUseId: string | undefined;
  /** PostToolUseFailure: the tool's error message */
  error?: string | undefined;
  /** PostToolUse of a Read: what the tool returned, unchecked (core/client-read.ts reads it) */
  response?: unknown;
  /** the subagent the call comes from (absent: the main conversation), which has a context of its own */
  agentId?: string | undefined;
}

/** The end of a turn (Stop) or of the session (SessionEnd): the session's open records are settled. */
export interface EndPayload {
  event: (typeof SESSION_EVENTS)[number];
  session: string | undefined;
  cwd: string | undefined;
  transcript: string | undefined;
  /** every tool call of the turn is over (an agent whose end of turn comes after its tools' after hooks) */
  callsOver?: boolean | undefined;
}

/** A Bash tool call (before or after it ran): what it changed in the repository is recorded. */
export interface BashPayload {
  event: HookEvent;
  command: string;
  cwd: string | undefined;
  sessionId: string | undefined;
  toolUseId: string | undefined;
  /** PostToolUseFailure: the tool's error message */
  error?: string | undefined;
}

/**
 * A command longer than this is not recorded (a notice says so): the shell gets it whole anyway, and fettle
 * keeps commands in one-line trailers.
 */
export const MAX_COMMAND_CHARS = 1024 * 1024;

/** A user prompt (UserPromptSubmit): the session's next turn starts. */
export interface TurnPayload {
  session: string | undefined;
  /** what the person typed (kept locally, for the review page's timeline) */
  prompt?: string | undefined;
  /** the client's transcript of the session (Claude Code's transcript_path), for `fettle rewind` */
  transcript?: string | undefined;
}

export type Parsed =
  | { kind: 'call'; payload: Payload }
  | { kind: 'bash'; bash: BashPayload }
  | { kind: 'end'; end: EndPayload }
  | { kind: 'turn'; turn: TurnPayload }
  | { kind: 'compact'; session: string | undefined; cwd: string | undefined; agentId: string | undefined }
  | { kind: 'ignore'; why: string }
  | { kind: 'invalid'; why: string };

export type Obj = Record<string, unknown>;
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : `a ${typeof value === 'object' ? 'JSON object' : typeof value}`;
export const usablePath = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !value.includes('\0');

const editOp = (v: Obj): EditOp | string => {
  if (typeof v.old_string !== 'string' || typeof v.new_string !== 'string')
    return 'old_string and new_string must be strings';
  if (v.replace_all !== undefined && typeof v.replace_all !== 'boolean') return 'replace_all must be a boolean';
  return { oldString: v.old_string, newString: v.new_string, replaceAll: v.replace_all === true };
};

const TOOLS = new Set<string>([...WRITE_TOOLS, 'Read']);

const parseCall = (tool: string, input: Obj): ToolCall | string => {
  const filePath = tool === 'NotebookEdit' ? input.notebook_path : input.file_path;
  if (!usablePath(filePath))
    return `${tool} ${tool === 'NotebookEdit' ? 'notebook_path' : 'file_path'} is missing or not a usable path`;
  switch (tool) {
    case 'Write':
      return typeof input.content === 'string'
        ? { tool, filePath, content: input.content }
        : 'Write content is missing or not a string';
    case 'Edit': {
      const op = editOp(input);
      return typeof op === 'string' ? `Edit ${op}` : { tool, filePath, edits: [op] };
    }
    case 'MultiEdit': {
      if (!Array.isArray(input.edits) || input.edits.length === 0) return 'MultiEdit edits must be a non-empty array';
      const ops = input.edits.map((e) => (isObj(e) ? editOp(e) : 'each edit must be an object'));
      const bad = ops.find((o): o is string => typeof o === 'string');
      return bad ? `MultiEdit ${bad}` : { tool, filePath, edits: ops as EditOp[] };
    }
    case 'NotebookEdit': {
      const mode = input.edit_mode ?? 'replace';
      const type = input.cell_type;
      if (mode !== 'replace' && mode !== 'insert' && mode !== 'delete')
        return 'NotebookEdit edit_mode must be replace, insert or delete';
      if (type !== undefined && type !== 'code' && type !== 'markdown')
        return 'NotebookEdit cell_type must be code or markdown';
      if (typeof input.new_source !== 'string' && mode !== 'delete') return 'NotebookEdit new_source must be a string';
      return {
        tool,
        filePath,
        op: { cellId: str(input.cell_id), newSource: str(input.new_source) ?? '', cellType: type, editMode: mode },
      };
    }
    default: {
      const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
      return { tool: 'Read', filePath, offset: num(input.offset), limit: num(input.limit) };
    }
  }
};

/** The hook input as JSON: the object, or why it is not one (said without quoting it: it may be large). */
export const readJson = (raw: string): { data: Obj } | { why: string } => {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    // JSON.parse's message quotes the input, which may be large or span lines: say only what is wrong.
    const detail =
      raw.trim() === '' ? 'the hook input was empty' : `the hook input is not valid JSON (${raw.length} characters)`;
    return { why: `${detail}; expected the JSON object the agent sends` };
  }
  return isObj(data) ? { data } : { why: 'hook input is not a JSON object' };
};

export const parsePayload = (raw: string): Parsed => {
  const read = readJson(raw);
  return 'why' in read ? { kind: 'invalid', why: read.why } : parseData(read.data);
};

/** A Claude Code hook input, already read as a JSON object. */
export const parseData = (data: Obj): Parsed => {
  const event = data.hook_event_name;
  if (SESSION_EVENTS.some((e) => e === event)) {
    const end = { session: str(data.session_id), cwd: str(data.cwd), transcript: str(data.transcript_path) };
    return { kind: 'end', end: { event: event as EndPayload['event'], ...end } };
  }
  if (TURN_EVENTS.some((e) => e === event))
    return {
      kind: 'turn',
      turn: { session: str(data.session_id), prompt: str(data.prompt), transcript: str(data.transcript_path) },
    };
  // SessionStart only after `/clear` or a compaction (its matcher; the source is checked again here).
  if (event === 'SessionStart' && !forgetsReads(data.source)) return { kind: 'ignore', why: 'a session starting' };
  if (COMPACT_EVENTS.some((e) => e === event))
    return { kind: 'compact', session: str(data.session_id), cwd: str(data.cwd), agentId: str(data.agent_id) };
  // Names are strings; anything else is malformed input (and may not even print: {"toString": 1}).
  if (event !== undefined && typeof event !== 'string')
    return { kind: 'invalid', why: `hook_event_name is ${kindOf(event)}, not a string` };
  if (!EVENTS.has(event)) return { kind: 'ignore', why: `event ${event ?? 'missing'}` };
  const tool = data.tool_name;
  if (tool !== undefined && typeof tool !== 'string')
    return { kind: 'invalid', why: `tool_name is ${kindOf(tool)}, not a string` };
  if (tool === 'Bash') return parseBash(data, event as HookEvent);
  if (tool === undefined || !TOOLS.has(tool)) return { kind: 'ignore', why: `tool ${tool ?? 'missing'}` };
  if (!isObj(data.tool_input)) return { kind: 'invalid', why: `${tool} hook input has no tool_input object` };
  const call = parseCall(tool, data.tool_input);
  if (typeof call === 'string') return { kind: 'invalid', why: call };
  return {
    kind: 'call',
    payload: {
      event: event as HookEvent,
      call,
      cwd: str(data.cwd),
      permissionMode: str(data.permission_mode),
      sessionId: str(data.session_id),
      toolUseId: str(data.tool_use_id),
      ...(event === 'PostToolUseFailure' ? { error: str(data.error) } : {}),
      ...(event === 'PostToolUse' && call.tool === 'Read' ? { response: data.tool_response } : {}),
      ...(typeof data.agent_id === 'string' ? { agentId: data.agent_id } : {}),
    },
  };
};

/** A lone surrogate: what JSON's \\uD800 escapes and bytes that are not UTF-8 leave in a string. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a shell command cannot be recorded (every agent's shell), or undefined when it can. */
export const commandProblem = (command: unknown, tool = 'Bash'): string | undefined => {
  if (typeof command !== 'string') return `${tool} command is missing or not a string`;
  if (command.length > MAX_COMMAND_CHARS)
    return `the ${tool} command is ${command.length} characters long, more than fettle records (${MAX_COMMAND_CHARS})`;
  // The clients send UTF-8; U+FFFD is what the input's bytes that were not UTF-8 became when read.
  if (LONE_SURROGATE.test(command) || command.includes('\ufffd')) return `the ${tool} command is not valid UTF-8`;
  return undefined;
};

const parseBash = (data: Obj, event: HookEvent): Parsed => {
  if (!isObj(data.tool_input)) return { kind: 'invalid', why: 'Bash hook input has no tool_input object' };
  const command = data.tool_input.command;
  const problem = commandProblem(command);
  if (problem !== undefined || typeof command !== 'string') return { kind: 'invalid', why: problem ?? '' };
  return {
    kind: 'bash',
    bash: {
      event,
      command,
      cwd: str(data.cwd),
      sessionId: str(data.session_id),
      toolUseId: str(data.tool_use_id),
      ...(event === 'PostToolUseFailure' ? { error: str(data.error) } : {}),
    },
  };
};
