// `fettle install` / `fettle uninstall`: fettle's hooks in one Claude Code settings file
// (protocol/settings-file.ts does the careful read-modify-write).
import { HOOK_EVENTS, MATCHER, READ_MATCHER, SESSION_EVENTS, TURN_EVENTS } from '../core/settings';
import {
  hookCommand,
  installHooks,
  otherInstalls,
  portableHookCommand,
  type Scope,
  settingsPath,
  uninstallHooks,
} from '../protocol/settings-file';
import { installOpencode, type OpencodeScope, uninstallOpencode } from '../protocol/install-opencode';
import { FettleError } from '../errors';
import { cwdFor, spelled, type Edge } from './edge';

/** The agents `--agent` names (Claude Code's hooks are the default). */
export const AGENTS = ['claude', 'opencode'];

export interface InstallOptions {
  agent?: string;
  read?: boolean;
  json?: boolean;
}

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
        ? `Installed fettle's opencode plugin as ${done.path}; it runs ${done.command.join(' ')} hook.\nopencode loads it the next time it starts.`
        : `fettle's opencode plugin is already installed as ${done.path}; nothing changed.`,
    );
};

/** The command the hooks run: absolute paths in this machine's files; nothing of this machine in a shared one. */
const commandFor = (edge: Edge, root: string, scope: Scope, file: string): string =>
  scope === 'project' ? portableHookCommand(edge.env, edge.io.script, root, file) : hookCommand(edge.io.script);

export const install = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: InstallOptions = {},
): Promise<void> => {
  if (options.agent === 'opencode') return installIntoOpencode(edge, dir, scope, options);
  const root = cwdFor(edge, dir);
  const file = settingsPath(root, edge.env, scope);
  const command = commandFor(edge, root, scope, file);
  const { path, result } = await installHooks(edge.env, file, command, options);
  const others = await otherInstalls(edge.env, root, scope);
  if (options.json) {
    edge.io.out(JSON.stringify({ path, scope, result, command, alsoInstalled: others }));
    return;
  }
  const what = `${HOOK_EVENTS.join(' and ')} hooks on ${MATCHER}${options.read ? ` (and PreToolUse on ${READ_MATCHER})` : ''}, and ${[...SESSION_EVENTS, ...TURN_EVENTS].join(', ')} hooks`;
  edge.io.out(
    result === 'changed'
      ? `Installed fettle's ${what} in ${path}.\nHook command: ${command}`
      : `fettle's ${what} are already installed in ${path}; nothing changed.`,
  );
  // Claude Code runs every hook it finds: two installs record and stage every write twice.
  for (const o of others)
    edge.io.err(
      spelled(
        edge,
        dir,
        o.plugin
          ? `fettle: warning: the fettle plugin (${o.plugin}) is also enabled in ${o.path}, so every write would run fettle twice. Keep one: disable the plugin (\`claude plugin disable ${o.plugin}\`), or run \`fettle uninstall --scope ${scope}\`.`
          : `fettle: warning: fettle is also installed in ${o.path} (${o.scope} scope), so every write would run fettle twice. Keep one: \`fettle uninstall --scope ${o.scope}\`.`,
      ),
    );
};

export const uninstall = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  o: InstallOptions = {},
): Promise<void> => {
  if (o.agent === 'opencode') {
    const s = opencodeScope(scope);
    const done = await uninstallOpencode(edge.env, { root: cwdFor(edge, dir), scope: s });
    if (o.json) edge.io.out(JSON.stringify({ agent: 'opencode', scope: s, ...done }));
    else
      edge.io.out(
        done.result === 'changed'
          ? `Removed fettle's opencode plugin ${done.path}.`
          : `No fettle plugin at ${done.path}; nothing changed.`,
      );
    return;
  }
  const { path, result } = await uninstallHooks(edge.env, settingsPath(cwdFor(edge, dir), edge.env, scope));
  if (o.json) edge.io.out(JSON.stringify({ path, scope, result }));
  else
    edge.io.out(
      result === 'changed' ? `Removed fettle's hooks from ${path}.` : `No fettle hooks in ${path}; nothing changed.`,
    );
};
