// `fettle doctor`'s look at fettle's opencode plugin (install-opencode.ts writes it): in which plugin directory it
// is, which fettle it runs (the FETTLE_COMMAND line install filled in), whether that fettle is still there, and
// whether it is the plugin this fettle ships (one an older fettle installed is stale: opencode keeps loading it).
// opencode loads every `*.js` of its plugin directories, so a plugin in both the user's and the project's runs
// fettle twice per write. A `fettle.js` that is not fettle's (its first line says whose it is) is not reported.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Env } from '../config';
import { keepOneFix } from '../core/install-scopes';
import { allOnPath, shellQuote } from '../io/self';
import type { Check } from './doctor';
import { COMMAND_LINE, HEADER, opencodePluginPath, shippedPlugin, type OpencodeScope } from './install-opencode';

const readText = (path: string): Promise<string | null> => readFile(path, 'utf8').catch(() => null);

/** The command a plugin runs fettle with, from its FETTLE_COMMAND line; null when the line is not one install writes. */
export const pluginCommand = (text: string): string[] | null => {
  const line = COMMAND_LINE.exec(text)?.[0];
  if (!line) return null;
  try {
    const value = JSON.parse(line.slice(line.indexOf('['), line.lastIndexOf(']') + 1)) as unknown;
    return Array.isArray(value) && value.length > 0 && value.every((w) => typeof w === 'string') ? value : null;
  } catch {
    return null;
  }
};

/** What is wrong with one installed plugin, or null. */
const problemOf = async (
  env: Env,
  script: string | undefined,
  p: { scope: OpencodeScope; path: string; text: string },
): Promise<Check | null> => {
  const reinstall = `Run \`fettle install --agent opencode${p.scope === 'project' ? ' --scope project' : ''}\` again.`;
  const command = pluginCommand(p.text);
  if (!command)
    return {
      name: 'opencode',
      status: 'fail',
      detail: `${p.path}: fettle's plugin, but its FETTLE_COMMAND line is not one install writes: it may run nothing`,
      fix: reinstall,
    };
  const runs = command.map(shellQuote).join(' ');
  const gone = command.filter((w) => isAbsolute(w) && !existsSync(w));
  if (gone.length > 0)
    return {
      name: 'opencode',
      status: 'fail',
      detail: `${p.path}: the plugin runs ${gone.join(', ')}, which does not exist: opencode's writes are not protected`,
      fix: reinstall,
    };
  if (command.length === 1 && command[0] === 'fettle' && allOnPath(env, 'fettle').length === 0)
    return {
      name: 'opencode',
      status: 'warn',
      detail: `${p.path}: the plugin runs whatever fettle is on PATH, and there is none on PATH here: unless opencode's PATH has one, its writes are not protected`,
      fix: 'Put fettle on PATH (`npm install -g`), or install the plugin for yourself: `fettle install --agent opencode`.',
    };
  const shipped = await readText(shippedPlugin(script));
  if (shipped !== null && COMMAND_LINE.test(shipped)) {
    const current = shipped.replace(COMMAND_LINE, `const FETTLE_COMMAND = ${JSON.stringify(command)};`);
    if (current !== p.text)
      return {
        name: 'opencode',
        status: 'warn',
        detail: `${p.path}: the plugin (it runs ${runs}) is not the one this fettle ships: another fettle version installed it, and opencode keeps loading it as it is`,
        fix: reinstall,
      };
  }
  return null;
};

/** The opencode check: nothing when the plugin is in neither directory. */
export const opencodeChecks = async (env: Env, root: string, script: string | undefined): Promise<Check[]> => {
  const found: { scope: OpencodeScope; path: string; text: string }[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = opencodePluginPath(root, env, scope);
    const text = await readText(path);
    if (text?.startsWith(HEADER)) found.push({ scope, path, text });
  }
  if (found.length === 0) return [];
  const problems: Check[] = [];
  for (const p of found) {
    const problem = await problemOf(env, script, p);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) return problems;
  const where = found
    .map((p) => `${p.path} (${p.scope}; runs ${(pluginCommand(p.text) ?? []).map(shellQuote).join(' ')})`)
    .join(', ');
  if (found.length > 1)
    return [
      {
        name: 'opencode',
        status: 'warn',
        detail: `plugin installed in ${found.length} places (${where}): opencode loads both, so every write runs fettle twice`,
        fix: keepOneFix(
          found.map((p) => p.scope),
          'opencode',
        ),
      },
    ];
  return [{ name: 'opencode', status: 'ok', detail: `plugin installed in ${where}` }];
};
