// `fettle install --git-hooks`: git's post-commit and post-rewrite hooks, which note on refs/notes/fettle which
// lines of each commit an agent wrote. They go where git runs hooks from for this repository (core.hooksPath when
// the user set it, else the common git dir's hooks/), read, never set. A hook of that name fettle did not write is
// never replaced (nor one of fettle's a person edited): install refuses, names the line to add to it, and writes neither hook. Uninstall removes only
// hooks exactly as install wrote them, and the directories install made for them.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { Env } from '../config';
import { FettleError } from '../errors';
import { swapFile } from '../io/swap-file';
import type { GitRunner } from '../store/git';
import { createdBy, forgetCreated, rememberCreated, removeEmptyUpTo } from './made-by-install';

export const GIT_HOOKS = ['post-commit', 'post-rewrite'] as const;
export type GitHookName = (typeof GIT_HOOKS)[number];

const MARK = "# fettle's git hook";

/** The line that runs fettle from a hook (a user's own hook may carry it instead of fettle's file). */
export const hookLine = (name: GitHookName, command: string): string => `${command} git-hook ${name} "$@" || true`;

const header = (name: GitHookName): string[] => [
  '#!/bin/sh',
  `${MARK} (${name}): notes which lines of each commit an agent wrote, on refs/notes/fettle.`,
  '# `fettle uninstall --git-hooks` removes it; a commit goes through whatever it does.',
];

/**
 * post-commit's first half in the shell, so a commit starts no Node process: two `git rev-parse`, the commit marked
 * pending (protocol/notes-pending.ts), fettle started in the background to note it. If any step fails, the last
 * line notes the commit in the commit (which first tries the same from Node: notes-pending.ts noteLater).
 */
const laterLine = (command: string): string =>
  `d=$(git rev-parse --git-common-dir 2>/dev/null) && h=$(git rev-parse HEAD 2>/dev/null) && (umask 077 && mkdir -p "$d/fettle/notes-pending") && : > "$d/fettle/notes-pending/$h" && { unset GIT_INDEX_FILE; ${command} git-hook post-commit --pending </dev/null >/dev/null 2>>"$d/fettle/git-hook.log" & exit 0; }`;

/** The hook as installs before the shell's first half wrote it: still fettle's own, to replace or remove. */
const earlierText = (name: GitHookName, command: string): string =>
  [...header(name), hookLine(name, command), ''].join('\n');

export const hookText = (name: GitHookName, command: string): string =>
  name === 'post-commit'
    ? [
        ...header(name),
        '# The note is written in the background: the commit waits for two git rev-parse, not for fettle.',
        laterLine(command),
        hookLine(name, command),
        '',
      ].join('\n')
    : earlierText(name, command);

/** Whether `text` is exactly a hook install wrote (with any command, this version or an earlier): what uninstall may remove. */
const isOwnHook = (name: GitHookName, text: string): boolean => {
  const last = text.trimEnd().split('\n').at(-1) ?? '';
  const suffix = ` git-hook ${name} "$@" || true`;
  if (!last.endsWith(suffix)) return false;
  const command = last.slice(0, -suffix.length);
  return text === hookText(name, command) || text === earlierText(name, command);
};

/** Where git runs this repository's hooks from: core.hooksPath as the user set it, else <common dir>/hooks. */
export const hooksDir = async (git: GitRunner): Promise<string> => {
  const dir = await git.text({ args: ['rev-parse', '--git-path', 'hooks'], userConfig: ['core.hooksPath'] });
  return isAbsolute(dir) ? dir : join(git.cwd, dir);
};

const readOrNull = async (path: string): Promise<string | null> =>
  readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });

export interface HookResult {
  name: GitHookName;
  path: string;
  result: 'changed' | 'unchanged';
}

export const installGitHooks = async (env: Env, git: GitRunner, command: string): Promise<HookResult[]> => {
  const dir = await hooksDir(git);
  const found = await Promise.all(
    GIT_HOOKS.map(async (name) => ({ name, path: join(dir, name), text: await readOrNull(join(dir, name)) })),
  );
  const foreign = found.filter((h) => h.text !== null && !isOwnHook(h.name, h.text));
  if (foreign.length > 0)
    throw new FettleError(
      'E_SETTINGS',
      `${foreign.map((h) => h.path).join(' and ')} ${foreign.length === 1 ? 'is a hook' : 'are hooks'} fettle did not write; ${foreign.length === 1 ? 'it was' : 'they were'} left as ${foreign.length === 1 ? 'it was' : 'they were'}, and no hook was installed.`,
      {
        hint: `Add fettle to your own hook instead, as its last line: ${foreign.map((h) => `\`${hookLine(h.name, command)}\` in ${h.name}`).join('; ')}.`,
      },
    );
  const made = await mkdir(dir, { recursive: true });
  const out: HookResult[] = [];
  for (const h of found) {
    const text = hookText(h.name, command);
    if (h.text === text) {
      out.push({ name: h.name, path: h.path, result: 'unchanged' });
      continue;
    }
    // A new hook is created exclusively (one that appeared since it was read is never overwritten); fettle's
    // own older hook is replaced by a rename.
    if (h.text === null) await writeFile(h.path, text, { flag: 'wx', mode: 0o755 });
    else await swapFile(h.path, text, 0o755);
    // A reinstall over fettle's own hook keeps what the first install made.
    if (h.text === null) await rememberCreated(env, h.path, made);
    out.push({ name: h.name, path: h.path, result: 'changed' });
  }
  return out;
};

export const uninstallGitHooks = async (env: Env, git: GitRunner): Promise<HookResult[]> => {
  const dir = await hooksDir(git);
  const found = await Promise.all(
    GIT_HOOKS.map(async (name) => ({ name, path: join(dir, name), text: await readOrNull(join(dir, name)) })),
  );
  const edited = found.filter((h) => h.text !== null && h.text.includes(MARK) && !isOwnHook(h.name, h.text));
  if (edited.length > 0)
    throw new FettleError(
      'E_SETTINGS',
      `${edited.map((h) => h.path).join(' and ')} changed since fettle installed ${edited.length === 1 ? 'it' : 'them'}; nothing was removed.`,
      { hint: 'Remove the fettle line from the hook yourself, or delete the file if it holds nothing else.' },
    );
  const out: HookResult[] = [];
  for (const h of found) {
    if (h.text === null || !isOwnHook(h.name, h.text)) {
      out.push({ name: h.name, path: h.path, result: 'unchanged' });
      continue;
    }
    const created = await createdBy(env, h.path);
    await rm(h.path);
    await forgetCreated(env, h.path);
    if (created?.made) await removeEmptyUpTo(dirname(h.path), created.made);
    out.push({ name: h.name, path: h.path, result: 'changed' });
  }
  return out;
};
