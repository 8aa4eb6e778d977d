// Claude Code settings files, read-modify-written: Claude Code writes these files too (/config, permission
// approvals), so the write is atomic and only happens if the file is still what was read. A symlinked settings
// file (dotfiles) is written through, the link kept.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { homeFrom, type Env } from '../config';
import {
  addFettleHooks,
  fettleHandlers,
  removeFettleHooks,
  SettingsShapeError,
  type CustomHooks,
  type HooksSpec,
} from '../core/settings';
import { FettleError } from '../errors';
import { replaceFile, realPathOrAbsolute } from '../io/atomic-write';
import { selfCommand, shellQuote } from '../io/self';
import { resolveRealPath } from '../store/locate';
import { createdBy, forgetCreated, rememberCreated, removeEmptyUpTo } from './made-by-install';
import { parseSettingsText, withFettle, withoutFettle } from './settings-text';

export type Scope = 'user' | 'project' | 'local';

/** The settings file of a scope: `root` is the project directory, `env` says where the user's config lives. */
export const settingsPath = (root: string, env: Env, scope: Scope): string => {
  if (scope === 'project') return join(root, '.claude', 'settings.json');
  if (scope === 'local') return join(root, '.claude', 'settings.local.json');
  return join(env.CLAUDE_CONFIG_DIR || join(homeFrom(env), '.claude'), 'settings.json');
};

/** Shell form, absolute paths: works whatever PATH Claude Code's hook process gets (user and local scope). */
export const hookCommand = (script: string | undefined): string =>
  `${shellQuote(process.execPath)} ${shellQuote(realPathOrAbsolute(script ?? 'fettle'))} hook`;

/**
 * The hook command for a project's shared settings, which teams commit: no path of this machine. `fettle hook`
 * when `fettle` on PATH is this fettle; a path under `$CLAUDE_PROJECT_DIR` when this fettle lives inside the
 * project (vendored, or in its node_modules); otherwise it refuses, saying why and what to do instead.
 */
export const portableHookCommand = (env: Env, script: string | undefined, project: string, file: string): string => {
  if (selfCommand(env, script) === 'fettle') return 'fettle hook';
  const real = realPathOrAbsolute(script ?? 'fettle');
  const rel = relative(realPathOrAbsolute(project), real);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
    return `node "$CLAUDE_PROJECT_DIR"/${shellQuote(rel)} hook`;
  throw new FettleError(
    'E_USAGE',
    `--scope project writes ${file}, which everyone who checks out the project shares, and this fettle runs from ${real}, a path on this machine only: on another checkout the hook would run nothing. Nothing was written.`,
    {
      hint: "Install for this checkout only with `fettle install --scope local`; or put this fettle on PATH (`npm install -g`; the hook then runs 'fettle hook'), or add it to the project (`npm install --save-dev`; the hook then runs it from $CLAUDE_PROJECT_DIR), and run this again.",
    },
  );
};

const readText = async (path: string): Promise<string | null> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

/** Runs `fn` (parsing or editing settings), turning a bad file into one clear E_SETTINGS error. */
const refusing = <T>(path: string, fn: () => T): T => {
  try {
    return fn();
  } catch (error) {
    const why =
      error instanceof SettingsShapeError || error instanceof SyntaxError
        ? error.message
        : `it is not valid JSON (${(error as Error).message})`;
    throw new FettleError('E_SETTINGS', `${path} cannot be updated: ${why}. fettle changed nothing.`, {
      hint: 'Fix the file (or move it aside), then run the command again.',
      cause: error,
    });
  }
};

export type Outcome = 'changed' | 'unchanged';

/** `change` maps the file's text (null: no file) to its new text (null: remove the file). */
type TextChange = (before: string | null) => string | null;

/** Applies `change`; writes (or removes) only if the file still holds what was read. Returns a made directory. */
const edit = async (path: string, change: TextChange): Promise<{ result: Outcome; made?: string }> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await readText(path);
    const after = refusing(path, () => change(before));
    if (after === before) return { result: 'unchanged' };
    if ((await readText(path)) !== before) continue; // Claude Code wrote it meanwhile: start over
    if (after === null) {
      await rm(path);
      return { result: 'changed' };
    }
    const made = await mkdir(dirname(path), { recursive: true });
    await replaceFile(path, Buffer.from(after, 'utf8'));
    return { result: 'changed', made };
  }
  throw new FettleError(
    'E_SETTINGS',
    `${path} kept changing while fettle tried to update it; fettle changed nothing.`,
    { hint: 'Run the command again.' },
  );
};

/** How one agent's hook settings file is edited as text (agent-settings.ts has the others'). */
export interface SettingsFormat {
  /** the text with fettle's hooks running `command`; `before` null: there is no file yet */
  add: (before: string | null, command: string) => string;
  /** the text without fettle's hooks, every other byte as it was; throws on a file it cannot read */
  remove: (text: string) => string;
  /** nothing is left in the text that install did not put there */
  empty: (text: string) => boolean;
}

/** Claude Code's settings (and the files of its shape, with `spec`: core/agent-hooks.ts). */
export const claudeFormat = (
  options: { read?: boolean; bash?: boolean; custom?: CustomHooks } = {},
  spec?: HooksSpec,
): SettingsFormat => ({
  add: (before, command) =>
    before === null
      ? `${JSON.stringify(addFettleHooks({}, command, options, spec), null, 2)}\n`
      : withFettle(before, addFettleHooks(parseSettingsText(before).value, command, options, spec)),
  remove: (text) => {
    removeFettleHooks(parseSettingsText(text).value); // refuses a file whose "hooks" is not an object
    return withoutFettle(text);
  },
  empty: (text) => Object.keys(parseSettingsText(text).value).length === 0,
});

/** Adds fettle's hooks to the settings file at `path` (symlinks followed); remembers whether it created it. */
export const installHooks = async (
  env: Env,
  file: string,
  command: string,
  options: { read?: boolean; bash?: boolean; custom?: CustomHooks } = {},
  format: SettingsFormat = claudeFormat(options),
): Promise<{ path: string; result: Outcome }> => {
  const path = await resolveRealPath(file);
  let created = false;
  const { result, made } = await edit(path, (before) => {
    created = before === null;
    return format.add(before, command);
  });
  if (result === 'changed' && created) {
    // This install made the file (and `made`, the first directory it had to make): uninstall takes them away.
    await rememberCreated(env, path, made);
  } else if (result === 'changed') {
    await forgetCreated(env, path); // the file was there before this install: never remove it
  }
  return { path, result };
};

/**
 * Removes fettle's hooks, changing no other byte of the file; a file install created and that is left empty goes
 * away again, with the directories that install made for it when they are empty.
 */
export const uninstallHooks = async (
  env: Env,
  file: string,
  format: SettingsFormat = claudeFormat(),
): Promise<{ path: string; result: Outcome }> => {
  const path = await resolveRealPath(file);
  const recorded = await createdBy(env, path);
  const createdByInstall = recorded !== null;
  const made = recorded?.made;
  const { result } = await edit(path, (before) => {
    if (before === null) return null;
    const after = format.remove(before);
    if (after === before) return before;
    return format.empty(after) && createdByInstall ? null : after;
  });
  if (result === 'changed' && (await readText(path)) === null) {
    await forgetCreated(env, path);
    if (made) await removeEmptyUpTo(dirname(path), made);
  }
  return { path, result };
};

export interface OtherInstall {
  scope: Scope;
  path: string;
  /** the plugin, as named in `enabledPlugins` (`fettle@<marketplace>`), when that is what is installed there */
  plugin?: string;
}

/** fettle's hooks, or its plugin enabled, in the settings of the scopes other than `scope`. */
export const otherInstalls = async (env: Env, root: string, scope: Scope): Promise<OtherInstall[]> => {
  const found: OtherInstall[] = [];
  for (const other of ['user', 'project', 'local'] as const) {
    const path = settingsPath(root, env, other);
    const text = await readText(path).catch(() => null);
    if (text === null) continue;
    let value: ReturnType<typeof parseSettingsText>['value'];
    try {
      value = parseSettingsText(text).value;
    } catch {
      continue; // doctor reports a file that cannot be read
    }
    const plugins = value.enabledPlugins;
    if (plugins && typeof plugins === 'object' && !Array.isArray(plugins))
      for (const [name, on] of Object.entries(plugins))
        if (on === true && /^fettle@/.test(name)) found.push({ scope: other, path, plugin: name });
    if (other !== scope && fettleHandlers(value).length > 0) found.push({ scope: other, path });
  }
  return found;
};
