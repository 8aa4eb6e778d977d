// `fettle install` / `fettle uninstall`: fettle's hooks in one agent's settings file, Claude Code's unless
// `--agent` names another (setup/agent-settings.ts knows where each keeps them; setup/settings-file.ts does
// the careful read-modify-write); `install --resident`, the resident server's (Claude Code only).
import { AGENT_TITLES, AGENTS, type AgentName } from '../core/agents';
import { keepOneFix } from '../core/install-scopes';
import { PEER_AUTH_TEXT, TOKEN_VAR, type ServeAuth } from '../core/hook-server';
import {
  BASH_MATCHER,
  COMPACT_EVENTS,
  HOOK_EVENTS,
  MATCHER,
  READ_MATCHER,
  SESSION_EVENTS,
  TURN_EVENTS,
} from '../core/settings';
import { FettleError } from '../errors';
import { agentHookCommand, agentSettingsPath, formatOf } from '../setup/agent-settings';
import { installOpencode, type OpencodeScope, uninstallOpencode } from '../setup/install-opencode';
import { installResident } from '../setup/resident-install';
import { ensureServer } from '../protocol/serve/serve-control';
import { serverAuth, tokenExport, type ServePaths } from '../protocol/serve/serve-state';
import {
  installHooks,
  otherInstalls,
  type OtherInstall,
  type Scope,
  settingsPath,
  uninstallHooks,
} from '../setup/settings-file';
import { cwdFor, spelled, type Edge } from './edge';

/** What `--agent` takes: the agents with hooks, and opencode, whose plugin is a file in its plugin directory. */
export const INSTALL_AGENTS = [...AGENTS, 'opencode'] as const;
export type InstallAgent = (typeof INSTALL_AGENTS)[number];

/** opencode has a user configuration and a project's `.opencode/`, nothing like Claude Code's local settings. */
const opencodeScope = (scope: Scope, read?: boolean): OpencodeScope => {
  if (scope === 'local')
    throw new FettleError('E_USAGE', 'opencode has no local scope: use --scope user (the default) or --scope project.');
  if (read) throw new FettleError('E_USAGE', '--read is for Claude Code; opencode reads large files itself.');
  return scope;
};

const installIntoOpencode = async (edge: Edge, dir: string | undefined, scope: Scope, o: InstallOptions) => {
  const s = opencodeScope(scope, o.read);
  const done = await installOpencode(edge.env, { root: cwdFor(edge, dir), scope: s, script: edge.io.script });
  if (o.json) edge.io.out(JSON.stringify({ agent: 'opencode', scope: s, ...done }));
  else
    edge.io.out(
      done.result === 'changed'
        ? `Installed fettle's opencode plugin as ${done.path}; it runs ${done.command.join(' ')} hook --agent opencode.\nopencode loads it the next time it starts.`
        : `fettle's opencode plugin is already installed as ${done.path}; nothing changed.`,
    );
};

const uninstallFromOpencode = async (edge: Edge, dir: string | undefined, scope: Scope, o: InstallOptions) => {
  const s = opencodeScope(scope);
  const done = await uninstallOpencode(edge.env, { root: cwdFor(edge, dir), scope: s });
  if (o.json) edge.io.out(JSON.stringify({ agent: 'opencode', scope: s, ...done }));
  else
    edge.io.out(
      done.result === 'changed'
        ? `Removed fettle's opencode plugin ${done.path}.`
        : `No fettle plugin at ${done.path}; nothing changed.`,
    );
};

export interface InstallOptions {
  read?: boolean;
  bash?: boolean;
  json?: boolean;
  agent?: InstallAgent;
}

/** What each agent's hooks do there, said once installed. */
const AFTER_INSTALL: Record<Exclude<AgentName, 'claude'>, string> = {
  codex:
    "fettle's PreToolUse and PostToolUse hooks on apply_patch and on Bash (its shell commands), and its UserPromptSubmit and Stop hooks. Codex runs a new or changed hook only once you trust it: start `codex`, run /hooks and trust fettle's six hooks (`fettle doctor` says whether they are).",
  gemini:
    "fettle's BeforeTool and AfterTool hooks on write_file, replace and run_shell_command, and its BeforeAgent and AfterAgent hooks.",
  cursor:
    "fettle's afterFileEdit and beforeSubmitPrompt hooks. Cursor runs no hook before an edit, so fettle records each edit after it lands (when it can tell what the file held) and can stage nothing.",
};

export const install = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: InstallOptions = {},
): Promise<void> => {
  if (options.agent === 'opencode') return installIntoOpencode(edge, dir, scope, options);
  const agent = options.agent ?? 'claude';
  const root = cwdFor(edge, dir);
  const file = agentSettingsPath(agent, root, edge.env, scope);
  const command = agentHookCommand(agent, { env: edge.env, script: edge.io.script, root, file, scope });
  const format = agent === 'claude' ? undefined : formatOf(agent);
  const { path, result } = await installHooks(edge.env, file, command, options, format);
  const others = agent === 'claude' ? await otherInstalls(edge.env, root, scope) : [];
  if (options.json) {
    edge.io.out(JSON.stringify({ agent, path, scope, result, command, alsoInstalled: others }));
    return;
  }
  const tools = options.bash === false ? MATCHER : `${MATCHER} and ${BASH_MATCHER}`;
  const what =
    agent === 'claude'
      ? `${HOOK_EVENTS.join(' and ')} hooks on ${tools}${options.read ? ` (and PreToolUse and PostToolUse on ${READ_MATCHER})` : ''}, and ${[...SESSION_EVENTS, ...TURN_EVENTS, ...(options.read ? COMPACT_EVENTS : [])].join(', ')} hooks`
      : AFTER_INSTALL[agent];
  const title = agent === 'claude' ? '' : ` for ${AGENT_TITLES[agent]}`;
  edge.io.out(
    spelled(
      edge,
      dir,
      result === 'changed'
        ? agent === 'claude'
          ? `Installed fettle's ${what} in ${path}.\nHook command: ${command}`
          : `Installed fettle${title} in ${path}: ${what}\nHook command: ${command}`
        : `fettle's hooks${title} are already installed in ${path}; nothing changed.`,
    ),
  );
  warnOthers(edge, dir, scope, others);
};

/** Claude Code runs every hook it finds: two installs run fettle twice on every write. Which to keep: core/install-scopes.ts. */
const warnOthers = (edge: Edge, dir: string | undefined, scope: Scope, others: OtherInstall[]): void => {
  const say = (text: string) => edge.io.err(spelled(edge, dir, `fettle: warning: ${text}`));
  for (const o of others)
    if (o.plugin)
      say(
        `the fettle plugin (${o.plugin}) is also enabled in ${o.path}, so every write would run fettle twice. Keep one: disable the plugin (\`claude plugin disable ${o.plugin}\`), or run \`fettle uninstall --scope ${scope}\`.`,
      );
  const scoped = others.filter((o) => !o.plugin);
  if (scoped.length === 0) return;
  const where = scoped.map((o) => `${o.path} (${o.scope} scope)`).join(' and ');
  const times = scoped.length === 1 ? 'twice' : `${scoped.length + 1} times`;
  say(
    `fettle is also installed in ${where}, so every write would run fettle ${times}. ${keepOneFix([scope, ...scoped.map((o) => o.scope)])}`,
  );
};

/** What the person does next: nothing where the server checks who connects; else the token's line for a profile. */
const nextSteps = (edge: Edge, auth: ServeAuth, paths: ServePaths): string[] => {
  if (auth === 'peer') return [`Authentication: ${PEER_AUTH_TEXT}. The next Claude Code session uses the server.`];
  const hasToken = edge.env[TOKEN_VAR] !== undefined && edge.env[TOKEN_VAR] !== '';
  return [
    `Claude Code sends the server a per-user token from its environment${hasToken ? '' : ' (this shell has none yet)'}: this system does not tell the server who a connection comes from. Add this line to your shell profile (~/.bashrc, ~/.zshrc), and start Claude Code from a new shell:`,
    `  ${tokenExport(paths)}`,
    'Until then fettle protects writes through its command hook, as before.',
  ];
};

/**
 * `fettle install --resident`: fettle's hooks answered by the resident server (`fettle serve`), each with its
 * guard, in a user's or a local settings file; never in the project's shared one, since they name this user's
 * port and paths.
 */
export const installResidentCommand = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: InstallOptions = {},
): Promise<void> => {
  if (options.agent !== undefined && options.agent !== 'claude')
    throw new FettleError(
      'E_USAGE',
      `--resident answers Claude Code's HTTP hooks; ${options.agent === 'opencode' ? 'opencode' : AGENT_TITLES[options.agent]} has no such hooks, so its hooks stay command hooks.`,
      { hint: `Run \`fettle install --agent ${options.agent}\` without --resident.` },
    );
  if (scope === 'project')
    throw new FettleError(
      'E_USAGE',
      "resident hooks name this user's server port and paths, so they do not belong in the project's shared settings.",
      { hint: 'Use `fettle install --resident` (your user settings) or `--scope local`.' },
    );
  const root = cwdFor(edge, dir);
  const file = settingsPath(root, edge.env, scope);
  const done = await installResident(edge.env, file, edge.io.script, options);
  const started = await ensureServer(done.paths, edge.env, edge.io.script ?? 'fettle').then(
    (r) => ({ pid: r.pid, text: `The server runs now (pid ${r.pid}).` }),
    (e: Error) => ({
      pid: null,
      text: `The server did not start now (${e.message}); the first hook call of a session starts it.`,
    }),
  );
  const others = await otherInstalls(edge.env, root, scope);
  const auth = await serverAuth(done.paths);
  if (options.json) {
    const { path, result, port } = done;
    const resident = { port, pid: started.pid, auth };
    edge.io.out(JSON.stringify({ path, scope, result, resident, alsoInstalled: others }));
    return;
  }
  edge.io.out(
    spelled(
      edge,
      dir,
      [
        done.result === 'changed'
          ? `Installed fettle's resident hooks in ${done.path}: a server on 127.0.0.1:${done.port} answers them.`
          : `fettle's resident hooks are already installed in ${done.path} (127.0.0.1:${done.port}); nothing changed.`,
        started.text,
        ...nextSteps(edge, auth, done.paths),
        '`fettle serve --status` and `fettle doctor` check the setup.',
      ].join('\n'),
    ),
  );
  warnOthers(edge, dir, scope, others);
};

export const uninstall = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  o: InstallOptions = {},
): Promise<void> => {
  if (o.agent === 'opencode') return uninstallFromOpencode(edge, dir, scope, o);
  const agent = o.agent ?? 'claude';
  const file = agentSettingsPath(agent, cwdFor(edge, dir), edge.env, scope);
  const { path, result } = await uninstallHooks(edge.env, file, agent === 'claude' ? undefined : formatOf(agent));
  if (o.json) edge.io.out(JSON.stringify({ agent, path, scope, result }));
  else
    edge.io.out(
      result === 'changed' ? `Removed fettle's hooks from ${path}.` : `No fettle hooks in ${path}; nothing changed.`,
    );
};
