// Which agent sent a hook input. `fettle install --agent <name>` writes `fettle hook --agent <name>`, which
// settles it; an install without it (older installs, the Claude Code plugin, Cursor running Claude Code's hooks)
// is told apart by the payload's own fields, checked in this order:
//   Cursor: `conversation_id`, `cursor_version` or `workspace_roots` (every Cursor hook input has them);
//   Gemini CLI: one of its own event names (BeforeTool, AfterAgent, ...), or a `timestamp` and no
//     `permission_mode` (its SessionStart and SessionEnd share Claude Code's names);
//   Codex CLI: a `turn_id` (its payloads are Claude Code's shape plus `turn_id` and `model`);
//   Claude Code: one of its event names.
// Anything else is no agent fettle knows: the hook fails open and says so, in one line with exit 1 (a
// non-blocking error to every agent here). So does another agent's input reaching Claude Code's bundle, which
// holds no adapter: `fettle hook` without --agent (cli.ts loads the agents bundle only for --agent).
import { AGENTS, AGENT_TITLES, isAgent, type AgentName } from '../../core/agents';
import { warn, type HookOutcome } from '../outcome';

type Obj = Record<string, unknown>;

const GEMINI_EVENTS = new Set([
  'BeforeTool',
  'AfterTool',
  'BeforeAgent',
  'AfterAgent',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'PreCompress',
]);

/** Claude Code's hook events (its hooks reference), fettle's or not. */
const CLAUDE_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'SessionStart',
  'SessionEnd',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'ConfigChange',
  'CwdChanged',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'Elicitation',
  'ElicitationResult',
]);

/** The agent of a hook input (a parsed JSON object), or null when it is no agent fettle knows. */
export const agentOf = (data: Obj, explicit?: string): AgentName | null => {
  if (explicit !== undefined) return isAgent(explicit) ? explicit : null;
  if (typeof data.conversation_id === 'string' || typeof data.cursor_version === 'string') return 'cursor';
  if (Array.isArray(data.workspace_roots)) return 'cursor';
  const event = data.hook_event_name;
  if (typeof event !== 'string') return null;
  if (GEMINI_EVENTS.has(event)) return 'gemini';
  if (typeof data.timestamp === 'string' && data.permission_mode === undefined) return 'gemini';
  if (typeof data.turn_id === 'string') return 'codex';
  return CLAUDE_EVENTS.has(event) ? 'claude' : null;
};

const KNOWN = AGENTS.map((a) => AGENT_TITLES[a]).join(', ');

export const unknownAgent = (data: Obj, explicit: string | undefined): HookOutcome => {
  if (explicit !== undefined)
    return warn(
      `fettle: --agent ${explicit} names no agent fettle knows (${AGENTS.join(', ')}); this tool call was not protected by fettle.`,
    );
  const name = data.hook_event_name;
  const event = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : 'none';
  return warn(
    `fettle: this hook input comes from no agent fettle knows (hook_event_name ${event}; it knows ${KNOWN}); this tool call was not protected by fettle.`,
  );
};

/** Another agent's input to `fettle hook` without --agent: installed by hand, or Cursor running Claude Code's hooks. */
export const withoutAdapter = (agent: Exclude<AgentName, 'claude'> | 'opencode'): HookOutcome =>
  warn(
    `fettle: this hook input comes from ${agent === 'opencode' ? 'opencode' : AGENT_TITLES[agent]}, but its hook runs fettle without --agent ${agent}, which answers Claude Code only; this tool call was not protected by fettle. Run \`fettle install --agent ${agent}\`.`,
  );
