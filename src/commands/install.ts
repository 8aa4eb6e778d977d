// `fettle install` / `fettle uninstall`: a read-modify-write of one Claude Code settings file. Claude Code
// writes these files too (/config, permission approvals), so the write is atomic and only happens if the
// file is still what was read.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { addFettleHooks, HOOK_EVENTS, MATCHER, READ_MATCHER, parseSettings, removeFettleHooks, serializeLike, SettingsShapeError } from '../core/settings';
import { FettleError } from '../errors';
import { replaceFile, resolveRealPathSync } from '../io/atomic-write';
import { shellQuote } from '../io/self';
import type { Edge } from './edge';

type Scope = 'user' | 'project' | 'local';

export const settingsPath = (edge: Edge, dir: string | undefined, scope: Scope): string => {
  const root = dir ? resolve(edge.cwd, dir) : edge.cwd;
  if (scope === 'project') return join(root, '.claude', 'settings.json');
  if (scope === 'local') return join(root, '.claude', 'settings.local.json');
  const config = edge.env.CLAUDE_CONFIG_DIR ?? join(edge.env.HOME ?? '', '.claude');
  return join(config, 'settings.json');
};

/** Shell form, absolute paths: works whatever PATH Claude Code's hook process gets. */
export const hookCommand = (script: string | undefined): string =>
  `${shellQuote(process.execPath)} ${shellQuote(resolveRealPathSync(script ?? 'fettle'))} hook`;

const readText = async (path: string): Promise<string | null> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const edit = async (path: string, change: (settings: Record<string, never>) => object): Promise<'changed' | 'unchanged'> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await readText(path);
    let next: string;
    try {
      const updated = change((before === null ? {} : parseSettings(before)) as Record<string, never>);
      // Settings left empty by an uninstall are removed: the file did not exist, or held only fettle's hooks.
      const empty = Object.keys(updated).length === 0;
      next = empty && before?.trim() !== '{}' ? '' : serializeLike(before, updated as never);
    } catch (error) {
      const why = error instanceof SettingsShapeError ? error.message : `it is not valid JSON (${(error as Error).message})`;
      throw new FettleError('E_SETTINGS', `${path} cannot be updated: ${why}. fettle changed nothing.`, {
        hint: 'Fix the file (or move it aside), then run the command again.',
        cause: error,
      });
    }
    if (next === (before ?? '')) return 'unchanged';
    // Claude Code may have written the file meanwhile: only replace what was read.
    if ((await readText(path)) !== before) continue;
    if (next === '') await rm(path);
    else {
      await mkdir(dirname(path), { recursive: true });
      await replaceFile(path, Buffer.from(next, 'utf8'));
    }
    return 'changed';
  }
  throw new FettleError('E_SETTINGS', `${path} kept changing while fettle tried to update it; fettle changed nothing.`, { hint: 'Run the command again.' });
};

export const install = async (edge: Edge, dir: string | undefined, scope: Scope, options: { read?: boolean } = {}): Promise<void> => {
  const path = settingsPath(edge, dir, scope);
  const command = hookCommand(edge.io.script);
  const result = await edit(path, (s) => addFettleHooks(s, command, options));
  const what = `${HOOK_EVENTS.join(' and ')} hooks on ${MATCHER}${options.read ? ` (and PreToolUse on ${READ_MATCHER})` : ''}`;
  edge.io.out(result === 'changed' ? `Installed fettle's ${what} in ${path}.\nHook command: ${command}` : `fettle's ${what} are already installed in ${path}; nothing changed.`);
};

export const uninstall = async (edge: Edge, dir: string | undefined, scope: Scope): Promise<void> => {
  const path = settingsPath(edge, dir, scope);
  const result = await edit(path, (s) => removeFettleHooks(s));
  edge.io.out(result === 'changed' ? `Removed fettle's hooks from ${path}.` : `No fettle hooks in ${path}; nothing changed.`);
};
