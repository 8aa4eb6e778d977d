// `fettle install` / `fettle uninstall`: fettle's hooks in one Claude Code settings file
// (protocol/settings-file.ts does the careful read-modify-write).
import { BASH_MATCHER, HOOK_EVENTS, MATCHER, READ_MATCHER, SESSION_EVENTS, TURN_EVENTS } from '../core/settings';
import {
  hookCommand,
  installHooks,
  otherInstalls,
  portableHookCommand,
  type Scope,
  settingsPath,
  uninstallHooks,
} from '../protocol/settings-file';
import { cwdFor, spelled, type Edge } from './edge';

/** The command the hooks run: absolute paths in this machine's files; nothing of this machine in a shared one. */
const commandFor = (edge: Edge, root: string, scope: Scope, file: string): string =>
  scope === 'project' ? portableHookCommand(edge.env, edge.io.script, root, file) : hookCommand(edge.io.script);

export const install = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: { read?: boolean; bash?: boolean; json?: boolean } = {},
): Promise<void> => {
  const root = cwdFor(edge, dir);
  const file = settingsPath(root, edge.env, scope);
  const command = commandFor(edge, root, scope, file);
  const { path, result } = await installHooks(edge.env, file, command, options);
  const others = await otherInstalls(edge.env, root, scope);
  if (options.json) {
    edge.io.out(JSON.stringify({ path, scope, result, command, alsoInstalled: others }));
    return;
  }
  const tools = options.bash === false ? MATCHER : `${MATCHER} and ${BASH_MATCHER}`;
  const what = `${HOOK_EVENTS.join(' and ')} hooks on ${tools}${options.read ? ` (and PreToolUse on ${READ_MATCHER})` : ''}, and ${[...SESSION_EVENTS, ...TURN_EVENTS].join(', ')} hooks`;
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
  o: { json?: boolean } = {},
): Promise<void> => {
  const { path, result } = await uninstallHooks(edge.env, settingsPath(cwdFor(edge, dir), edge.env, scope));
  if (o.json) edge.io.out(JSON.stringify({ path, scope, result }));
  else
    edge.io.out(
      result === 'changed' ? `Removed fettle's hooks from ${path}.` : `No fettle hooks in ${path}; nothing changed.`,
    );
};
