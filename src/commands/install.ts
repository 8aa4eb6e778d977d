// `fettle install` / `fettle uninstall`: fettle's hooks in one Claude Code settings file
// (protocol/settings-file.ts does the careful read-modify-write); `install --resident`, the resident server's.
import { HOOK_EVENTS, MATCHER, READ_MATCHER, SESSION_EVENTS, TURN_EVENTS } from '../core/settings';
import {
  hookCommand,
  installHooks,
  otherInstalls,
  type OtherInstall,
  portableHookCommand,
  type Scope,
  settingsPath,
  uninstallHooks,
} from '../protocol/settings-file';
import { TOKEN_VAR } from '../core/resident';
import { FettleError } from '../errors';
import { installResident } from '../protocol/resident-install';
import { ensureServer } from '../protocol/serve-control';
import { tokenExport } from '../protocol/serve-state';
import { cwdFor, spelled, type Edge } from './edge';

/** The command the hooks run: absolute paths in this machine's files; nothing of this machine in a shared one. */
const commandFor = (edge: Edge, root: string, scope: Scope, file: string): string =>
  scope === 'project' ? portableHookCommand(edge.env, edge.io.script, root, file) : hookCommand(edge.io.script);

export const install = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: { read?: boolean; json?: boolean } = {},
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
  const what = `${HOOK_EVENTS.join(' and ')} hooks on ${MATCHER}${options.read ? ` (and PreToolUse on ${READ_MATCHER})` : ''}, and ${[...SESSION_EVENTS, ...TURN_EVENTS].join(', ')} hooks`;
  edge.io.out(
    result === 'changed'
      ? `Installed fettle's ${what} in ${path}.\nHook command: ${command}`
      : `fettle's ${what} are already installed in ${path}; nothing changed.`,
  );
  warnOthers(edge, dir, scope, others);
};

/** Claude Code runs every hook it finds: two installs record and stage every write twice. */
const warnOthers = (edge: Edge, dir: string | undefined, scope: Scope, others: OtherInstall[]): void => {
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

/**
 * `fettle install --resident`: fettle's hooks answered by the resident server (`fettle serve`), each with its
 * guard, in a user's or a local settings file; never in the project's shared one, since they name this user's
 * port and paths.
 */
export const installResidentCommand = async (
  edge: Edge,
  dir: string | undefined,
  scope: Scope,
  options: { read?: boolean; json?: boolean } = {},
): Promise<void> => {
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
  if (options.json) {
    const { path, result, port } = done;
    edge.io.out(JSON.stringify({ path, scope, result, resident: { port, pid: started.pid }, alsoInstalled: others }));
    return;
  }
  const hasToken = edge.env[TOKEN_VAR] !== undefined && edge.env[TOKEN_VAR] !== '';
  edge.io.out(
    spelled(
      edge,
      dir,
      [
        done.result === 'changed'
          ? `Installed fettle's resident hooks in ${done.path}: a server on 127.0.0.1:${done.port} answers them.`
          : `fettle's resident hooks are already installed in ${done.path} (127.0.0.1:${done.port}); nothing changed.`,
        started.text,
        `Claude Code sends the server a per-user token from its environment${hasToken ? '' : ' (this shell has none yet)'}. Add this line to your shell profile (~/.bashrc, ~/.zshrc), and start Claude Code from a new shell:`,
        `  ${tokenExport(done.paths)}`,
        'Until then fettle protects writes through its command hook, as before. `fettle serve --status` and `fettle doctor` check the setup.',
      ].join('\n'),
    ),
  );
  warnOthers(edge, dir, scope, others);
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
