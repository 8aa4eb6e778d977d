// Where each agent keeps its hooks, what command fettle puts there, and how the file is edited (settings-file.ts
// does the careful read-modify-write, the same for every agent: only what fettle adds or removes changes).
//   Claude Code  ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json (settings-file.ts)
//   Codex CLI    $CODEX_HOME/hooks.json (~/.codex), .codex/hooks.json
//   Gemini CLI   ~/.gemini/settings.json ($GEMINI_CLI_HOME for ~), .gemini/settings.json
//   Cursor       ~/.cursor/hooks.json, .cursor/hooks.json
import { isAbsolute, join, relative } from 'node:path';
import { CURSOR_EVENTS, cursorTarget, specOf } from '../core/agent-hooks';
import { AGENT_TITLES, type AgentName } from '../core/agents';
import { isFettleHandler, SettingsShapeError } from '../core/settings';
import { homeFrom, type Env } from '../config';
import { FettleError } from '../errors';
import { applyEdits } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { realPathOrAbsolute } from '../io/atomic-write';
import { selfCommand } from '../io/self';
import {
  claudeFormat,
  hookCommand,
  portableHookCommand,
  settingsPath,
  type Scope,
  type SettingsFormat,
} from './settings-file';
import { find, insertion, layoutOf, nodeValue, parseSettingsText, propertyInsertion, removal } from './settings-text';
import { isObj } from '../core/json';

/** The scopes each agent has: Claude Code alone has a local (this checkout, not committed) one. */
export const scopesOf = (agent: AgentName): Scope[] =>
  agent === 'claude' ? ['user', 'project', 'local'] : ['user', 'project'];

export const agentSettingsPath = (agent: AgentName, root: string, env: Env, scope: Scope): string => {
  if (!scopesOf(agent).includes(scope))
    throw new FettleError('E_USAGE', `${AGENT_TITLES[agent]} has no ${scope} scope; nothing was written.`, {
      hint: `Use \`--scope user\` or \`--scope project\` with --agent ${agent}.`,
    });
  const home = homeFrom(env);
  switch (agent) {
    case 'claude':
      return settingsPath(root, env, scope);
    case 'codex':
      return scope === 'project'
        ? join(root, '.codex', 'hooks.json')
        : join(env.CODEX_HOME || join(home, '.codex'), 'hooks.json');
    case 'gemini':
      return join(scope === 'project' ? root : env.GEMINI_CLI_HOME || home, '.gemini', 'settings.json');
    case 'cursor':
      return join(scope === 'project' ? root : home, '.cursor', 'hooks.json');
  }
};

/**
 * The command an agent's hook runs. Claude Code's is as it always was; the others name themselves
 * (`--agent`). A project's shared file names no path of this machine: `fettle` on PATH, or for Gemini CLI, which
 * expands $GEMINI_PROJECT_DIR itself, a fettle inside the project.
 */
export const agentHookCommand = (
  agent: AgentName,
  {
    env,
    script,
    root,
    file,
    scope,
  }: { env: Env; script: string | undefined; root: string; file: string; scope: Scope },
): string => {
  if (agent === 'claude')
    return scope === 'project' ? portableHookCommand(env, script, root, file) : hookCommand(script);
  const flag = ` --agent ${agent}`;
  if (scope !== 'project') return `${hookCommand(script)}${flag}`;
  if (selfCommand(env, script) === 'fettle') return `fettle hook${flag}`;
  const rel = relative(realPathOrAbsolute(root), realPathOrAbsolute(script ?? 'fettle'));
  if (agent === 'gemini' && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
    return `node "$GEMINI_PROJECT_DIR"/${rel.includes("'") ? JSON.stringify(rel) : `'${rel}'`} hook${flag}`;
  throw new FettleError(
    'E_USAGE',
    `--scope project writes ${file}, which everyone who checks out the project shares, and this fettle is not on PATH: on another checkout the hook would run nothing. Nothing was written.`,
    {
      hint: `Install it for yourself with \`fettle install --agent ${agent}\` (user scope), or put fettle on PATH (\`npm install -g\`; the hook then runs 'fettle hook${flag}') and run this again.`,
    },
  );
};

/** Cursor's hooks.json, edited as text: `{"version": 1, "hooks": {"<event>": [{"command": ...}]}}`. */
const cursorFormat: SettingsFormat = {
  add: (before, command) => {
    if (before === null) return `${JSON.stringify(cursorTarget({}, command), null, 2)}\n`;
    const value = parseSettingsText(before).value;
    if (value.hooks !== undefined && !isObj(value.hooks)) throw new SettingsShapeError('"hooks" is not an object');
    if (isDeepStrictEqual(value, cursorTarget(value, command))) return before;
    let out = cursorFormat.remove(before);
    const layout = layoutOf(out);
    const at = () => parseSettingsText(out).root;
    if (parseSettingsText(out).value.version === undefined)
      out = applyEdits(out, [propertyInsertion(out, at(), 'version', 1, layout)]);
    for (const event of CURSOR_EVENTS) {
      const handler = { command };
      const list = find(at(), ['hooks', event]);
      const hooks = find(at(), ['hooks']);
      const edit =
        list?.type === 'array'
          ? insertion(out, list, list.children?.length ?? 0, handler, layout)
          : hooks?.type === 'object'
            ? propertyInsertion(out, hooks, event, [handler], layout)
            : propertyInsertion(out, at(), 'hooks', { [event]: [handler] }, layout);
      out = applyEdits(out, [edit]);
    }
    return out;
  },
  remove: (text) => {
    let out = text;
    for (;;) {
      const { root } = parseSettingsText(out);
      const hooks = find(root, ['hooks']);
      if (hooks !== undefined && hooks.type !== 'object') throw new SettingsShapeError('"hooks" is not an object');
      const events = hooks?.children ?? [];
      const property = events.find((p) => (p.children?.[1]?.children ?? []).some((h) => isFettleHandler(nodeValue(h))));
      const list = property?.children?.[1];
      const ours = list?.children?.find((h) => isFettleHandler(nodeValue(h)));
      if (!property || !list || !ours) return out;
      // The last handler of an event takes the event with it; the last event, `hooks`.
      const gone = (list.children ?? []).length > 1 ? ours : events.length > 1 ? property : hooks?.parent;
      out = applyEdits(out, removal(out, gone as NonNullable<typeof gone>));
    }
  },
  empty: (text) => Object.keys(parseSettingsText(text).value).every((k) => k === 'version'),
};

export const formatOf = (agent: AgentName): SettingsFormat => {
  if (agent === 'cursor') return cursorFormat;
  return claudeFormat({}, specOf(agent));
};
