// The hook input, checked without trusting it. Claude Code sends JSON on stdin; other agents (Cursor's
// third-party loader) may send other shapes, which fettle lets pass untouched.

export type HookEvent = 'PreToolUse' | 'PostToolUse';

export interface WritePayload {
  event: HookEvent;
  tool: 'Write';
  filePath: string;
  content: string;
  cwd: string | undefined;
  permissionMode: string | undefined;
  sessionId: string | undefined;
  toolUseId: string | undefined;
}

export type Parsed =
  | { kind: 'write'; payload: WritePayload }
  | { kind: 'ignore'; why: string }
  | { kind: 'invalid'; why: string };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export const parsePayload = (raw: string): Parsed => {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    const detail = raw.trim() === '' ? 'stdin was empty' : `not JSON (${(error as Error).message})`;
    return { kind: 'invalid', why: `hook input is ${detail}; expected the JSON object Claude Code sends` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { kind: 'invalid', why: 'hook input is not a JSON object' };
  }
  const input = data as Record<string, unknown>;
  const event = input.hook_event_name;
  if (event !== 'PreToolUse' && event !== 'PostToolUse') return { kind: 'ignore', why: `event ${String(event)}` };
  if (input.tool_name !== 'Write') return { kind: 'ignore', why: `tool ${String(input.tool_name)}` };
  const toolInput = input.tool_input;
  if (typeof toolInput !== 'object' || toolInput === null) {
    return { kind: 'invalid', why: 'Write hook input has no tool_input object' };
  }
  const { file_path: filePath, content } = toolInput as Record<string, unknown>;
  if (typeof filePath !== 'string' || filePath === '' || filePath.includes('\0')) {
    return { kind: 'invalid', why: 'Write tool_input.file_path is missing or not a usable path' };
  }
  if (typeof content !== 'string') return { kind: 'invalid', why: 'Write tool_input.content is missing or not a string' };
  return {
    kind: 'write',
    payload: {
      event,
      tool: 'Write',
      filePath,
      content,
      cwd: str(input.cwd),
      permissionMode: str(input.permission_mode),
      sessionId: str(input.session_id),
      toolUseId: str(input.tool_use_id),
    },
  };
};
