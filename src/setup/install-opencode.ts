// `fettle install --agent opencode`: fettle's opencode plugin, copied into a plugin directory opencode loads every
// `*.js` of at start (its global config directory's `plugin/`, or a project's `.opencode/plugin/`), with the one
// line that says how to run fettle filled in. No opencode config file is edited. Uninstall removes the file, and
// only a file that is fettle's plugin (its first line says so): a file of the same name fettle did not write is
// left alone, in both directions.
import { mkdir, readFile, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { homeFrom, type Env } from '../config';
import { FettleError } from '../errors';
import { replaceFile, realPathOrAbsolute } from '../io/atomic-write';
import { selfCommand } from '../io/self';
import { createdBy, forgetCreated, rememberCreated, removeEmptyUpTo } from './made-by-install';

export type OpencodeScope = 'user' | 'project';

/** The plugin's first line: how fettle knows a file in opencode's plugin directory is its own. */
export const HEADER = "// fettle's plugin for opencode:";
/** The line install fills in: how the plugin runs fettle. */
export const COMMAND_LINE = /^const FETTLE_COMMAND = \[.*\];$/m;

/** Where opencode loads the plugin from (its global config directory is $XDG_CONFIG_HOME/opencode). */
export const opencodePluginPath = (root: string, env: Env, scope: OpencodeScope): string =>
  scope === 'project'
    ? join(root, '.opencode', 'plugin', 'fettle.js')
    : join(env.XDG_CONFIG_HOME || join(homeFrom(env), '.config'), 'opencode', 'plugin', 'fettle.js');

/** The plugin shipped beside the bundles: <package>/plugins/opencode/fettle.mjs (installed as fettle.js) for <package>/dist/cli.js. */
export const shippedPlugin = (script: string | undefined): string =>
  join(dirname(realPathOrAbsolute(script ?? 'fettle')), '..', 'plugins', 'opencode', 'fettle.mjs');

/**
 * How the plugin runs fettle: this fettle's node and script, absolute, for the user's own configuration; `fettle`
 * from PATH for a project's, which others check out (as for Claude Code's project settings).
 */
const commandFor = (env: Env, script: string | undefined, scope: OpencodeScope, file: string): string[] => {
  if (selfCommand(env, script) === 'fettle') return ['fettle'];
  if (scope === 'user') return [process.execPath, realPathOrAbsolute(script ?? 'fettle')];
  throw new FettleError(
    'E_USAGE',
    `--scope project writes ${file}, which everyone who checks out the project shares, and this fettle is not the \`fettle\` on PATH: on another checkout the plugin would run nothing. Nothing was written.`,
    {
      hint: 'Install it for yourself with `fettle install --agent opencode`, or put this fettle on PATH (`npm install -g`) and run this again.',
    },
  );
};

const readOrNull = async (path: string): Promise<string | null> =>
  readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });

const notOurs = (path: string, verb: string): FettleError =>
  new FettleError(
    'E_SETTINGS',
    `${path} exists and is not fettle's opencode plugin; it was left as it was, and nothing was ${verb}.`,
    {
      hint: 'Move it aside if it should be replaced, then run this again.',
    },
  );

export interface PluginInstall {
  path: string;
  result: 'changed' | 'unchanged';
  command: string[];
}

export const installOpencode = async (
  env: Env,
  o: { root: string; scope: OpencodeScope; script: string | undefined },
): Promise<PluginInstall> => {
  const path = opencodePluginPath(o.root, env, o.scope);
  const command = commandFor(env, o.script, o.scope, path);
  const source = await readFile(shippedPlugin(o.script), 'utf8');
  if (!source.startsWith(HEADER) || !COMMAND_LINE.test(source))
    throw new FettleError('E_INTERNAL', `${shippedPlugin(o.script)} is not the plugin this fettle ships.`);
  const plugin = source.replace(COMMAND_LINE, `const FETTLE_COMMAND = ${JSON.stringify(command)};`);
  const current = await readOrNull(path);
  if (current === plugin) return { path, result: 'unchanged', command };
  if (current !== null && !current.startsWith(HEADER)) throw notOurs(path, 'installed');
  const made = await mkdir(dirname(path), { recursive: true });
  await replaceFile(path, Buffer.from(plugin, 'utf8'));
  // The directories this install made (opencode's config dir itself, on a machine that never ran opencode) go
  // with the plugin on uninstall; a reinstall over fettle's own plugin keeps what the first install made.
  if (current === null) await rememberCreated(env, path, made);
  return { path, result: 'changed', command };
};

export const uninstallOpencode = async (
  env: Env,
  o: { root: string; scope: OpencodeScope },
): Promise<{ path: string; result: 'changed' | 'unchanged' }> => {
  const path = opencodePluginPath(o.root, env, o.scope);
  const current = await readOrNull(path);
  if (current === null) return { path, result: 'unchanged' };
  if (!current.startsWith(HEADER)) throw notOurs(path, 'removed');
  const created = await createdBy(env, path);
  await rm(path);
  await forgetCreated(env, path);
  // The directories install made go too when nothing else is in them; for an install that recorded nothing (an
  // older fettle's), the plugin directory when it is empty.
  if (created === null) await rmdir(dirname(path)).catch(() => undefined);
  else if (created.made) await removeEmptyUpTo(dirname(path), created.made);
  return { path, result: 'changed' };
};
