// What `fettle install --agent <name>` puts in each agent's hook settings, as data. Codex CLI's hooks.json and
// Gemini CLI's settings.json have Claude Code's shape (settings.ts edits them); Cursor's hooks.json lists
// handlers straight under each event, edited here. Pure.
import type { AgentName } from './agents';
import { isFettleHandler, STATUS_MESSAGE, type HooksSpec } from './settings';
import { isObj, type JsonObject, type Json } from './json';

/**
 * Codex CLI: apply_patch and the shell (`Bash`, every shell tool's hook name) before and after, turns, the end of
 * a turn. Timeouts in seconds. The shell's are groups of their own after apply_patch's: Codex trusts a hook by a
 * hash of its event, matcher and handler, so an install from before them keeps its trusted apply_patch hooks.
 */
export const CODEX_HOOKS: HooksSpec = {
  events: [
    { event: 'PreToolUse', matcher: '^apply_patch$' },
    { event: 'PreToolUse', matcher: '^Bash$' },
    { event: 'PostToolUse', matcher: '^apply_patch$' },
    { event: 'PostToolUse', matcher: '^Bash$' },
    { event: 'UserPromptSubmit' },
    { event: 'Stop' },
  ],
  handler: (command) => ({ type: 'command', command, timeout: 60, statusMessage: STATUS_MESSAGE }),
};

/** Gemini CLI: write_file, replace and its shell before and after, turns, the end of a turn. Timeouts in ms. */
export const GEMINI_HOOKS: HooksSpec = {
  events: [
    { event: 'BeforeTool', matcher: '^(write_file|replace|run_shell_command)$' },
    { event: 'AfterTool', matcher: '^(write_file|replace|run_shell_command)$' },
    { event: 'BeforeAgent' },
    { event: 'AfterAgent' },
  ],
  handler: (command) => ({ type: 'command', name: 'fettle', command, timeout: 60000, description: STATUS_MESSAGE }),
};

/** Cursor: its edits after the fact, and prompts (turns). */
export const CURSOR_EVENTS = ['afterFileEdit', 'beforeSubmitPrompt'] as const;

export const specOf = (agent: AgentName): HooksSpec | undefined =>
  agent === 'codex' ? CODEX_HOOKS : agent === 'gemini' ? GEMINI_HOOKS : undefined;

/** fettle's handlers in a Cursor hooks.json, by event. */
export const cursorHandlers = (settings: JsonObject): { event: string; command: string }[] => {
  const hooks = isObj(settings.hooks) ? settings.hooks : {};
  return Object.entries(hooks).flatMap(([event, list]) =>
    (Array.isArray(list) ? list : [])
      .filter((h) => isFettleHandler(h) && isObj(h))
      .map((h) => ({ event, command: String((h as JsonObject).command) })),
  );
};

/** A Cursor hooks.json with fettle's handlers for `command` (what an install leaves). */
export const cursorTarget = (settings: JsonObject, command: string): JsonObject => {
  const hooks: JsonObject = {};
  const current = isObj(settings.hooks) ? settings.hooks : {};
  for (const [event, list] of Object.entries(current))
    hooks[event] = (Array.isArray(list) ? list : []).filter((h) => !isFettleHandler(h));
  for (const event of CURSOR_EVENTS) hooks[event] = [...((hooks[event] as Json[] | undefined) ?? []), { command }];
  return { version: settings.version ?? 1, ...settings, hooks };
};
