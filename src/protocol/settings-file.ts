// Claude Code settings files, read-modify-written: Claude Code writes these files too (/config, permission
// approvals), so the write is atomic and only happens if the file is still what was read. A symlinked settings
// file (dotfiles) is written through, the link kept.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { dataDirFrom, homeFrom, type Env } from '../config';
import {
  addFettleHooks,
  parseSettings,
  removeFettleHooks,
  serializeLike,
  SettingsShapeError,
  type CustomHooks,
  type Json,
} from '../core/settings';
import { FettleError } from '../errors';
import { replaceFile, realPathOrAbsolute } from '../io/atomic-write';
import { shellQuote } from '../io/self';
import { resolveRealPath } from '../store/locate';

export type Scope = 'user' | 'project' | 'local';
type Obj = { [key: string]: Json };

/** The settings file of a scope: `root` is the project directory, `env` says where the user's config lives. */
export const settingsPath = (root: string, env: Env, scope: Scope): string => {
  if (scope === 'project') return join(root, '.claude', 'settings.json');
  if (scope === 'local') return join(root, '.claude', 'settings.local.json');
  return join(env.CLAUDE_CONFIG_DIR || join(homeFrom(env), '.claude'), 'settings.json');
};

/** Shell form, absolute paths: works whatever PATH Claude Code's hook process gets. */
export const hookCommand = (script: string | undefined): string =>
  `${shellQuote(process.execPath)} ${shellQuote(realPathOrAbsolute(script ?? 'fettle'))} hook`;

const readText = async (path: string): Promise<string | null> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

/** Remembers that install created the file, so uninstall can remove it and leave exactly what was there. */
const createdMarker = (env: Env, path: string): string =>
  join(dataDirFrom(env), 'settings-created', createHash('sha1').update(path).digest('hex').slice(0, 20));

/** Runs `fn` (parsing or editing settings), turning a bad file into one clear E_SETTINGS error. */
const refusing = <T>(path: string, fn: () => T): T => {
  try {
    return fn();
  } catch (error) {
    const why =
      error instanceof SettingsShapeError ? error.message : `it is not valid JSON (${(error as Error).message})`;
    throw new FettleError('E_SETTINGS', `${path} cannot be updated: ${why}. fettle changed nothing.`, {
      hint: 'Fix the file (or move it aside), then run the command again.',
      cause: error,
    });
  }
};

export type Outcome = 'changed' | 'unchanged';

/** Applies `change`; writes (or, with `remove`, deletes) only if the file still holds what was read. */
const edit = async (
  path: string,
  change: (settings: Obj, existed: boolean) => { next: Obj; remove?: boolean },
): Promise<Outcome> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await readText(path);
    const current = refusing(path, () => (before === null ? {} : parseSettings(before)));
    const { next, remove } = refusing(path, () => change(current, before !== null));
    if (next === current && !remove) return 'unchanged';
    const text = serializeLike(before, next);
    if (!remove && text === before) return 'unchanged';
    if ((await readText(path)) !== before) continue; // Claude Code wrote it meanwhile: start over
    if (remove) await rm(path);
    else {
      await mkdir(dirname(path), { recursive: true });
      await replaceFile(path, Buffer.from(text, 'utf8'));
    }
    return 'changed';
  }
  throw new FettleError(
    'E_SETTINGS',
    `${path} kept changing while fettle tried to update it; fettle changed nothing.`,
    { hint: 'Run the command again.' },
  );
};

/** Adds fettle's hooks to the settings file at `path` (symlinks followed); remembers whether it created it. */
export const installHooks = async (
  env: Env,
  file: string,
  command: string,
  options: { read?: boolean; custom?: CustomHooks } = {},
): Promise<{ path: string; result: Outcome }> => {
  const path = await resolveRealPath(file);
  const marker = createdMarker(env, path);
  let created = false;
  const result = await edit(path, (s, existed) => {
    created = !existed;
    return { next: addFettleHooks(s, command, options) };
  });
  if (created) {
    await mkdir(dirname(marker), { recursive: true });
    await writeFile(marker, `${path}\n`);
  } else if (result === 'changed') {
    await rm(marker, { force: true }); // the file was there before this install: never remove it
  }
  return { path, result };
};

/** Removes fettle's hooks; a file install created and that is left empty goes away again. */
export const uninstallHooks = async (env: Env, file: string): Promise<{ path: string; result: Outcome }> => {
  const path = await resolveRealPath(file);
  const marker = createdMarker(env, path);
  const createdByInstall = (await readText(marker)) !== null;
  const result = await edit(path, (s) => {
    const next = removeFettleHooks(s);
    return { next, remove: next !== s && Object.keys(next).length === 0 && createdByInstall };
  });
  if (result === 'changed') await rm(marker, { force: true });
  return { path, result };
};
