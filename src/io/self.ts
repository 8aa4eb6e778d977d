// How to spell a fettle command so that it runs as printed from the agent's shell and the user's: plain `fettle`
// when that name on PATH is this very program, else a plugin's launcher or the absolute node and script paths; plus
// `-C <dir>` when the change lives in another repository than the shell's directory. Every command fettle prints is
// spelled here.
import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import type { Env } from '../config';

import { shellQuote } from '../core/shell-quote';

export { shellQuote };

/** The words of a POSIX shell command line as `sh` splits them (quotes and backslashes; no expansion). */
export const shellWords = (line: string): string[] => {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < line.length && line[i] !== '"'; i++)
        word += line[i] === '\\' && /["\\$`]/.test(line[i + 1] ?? '') ? line[++i] : line[i];
    } else if (c === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
};

/** Every `name` on PATH, resolved, in PATH order. */
export const allOnPath = (env: Env, name: string): string[] => {
  const found: string[] = [];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // a relative PATH entry depends on the shell's directory
    try {
      const candidate = join(dir, name);
      if (statSync(candidate).isFile()) found.push(realpathSync(candidate));
    } catch {
      // not here
    }
  }
  return found;
};

const realOr = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The folder of the package a script belongs to: `<root>/dist/cli.js` (the program) and `<root>/bin/fettle` (the
 * launcher a plugin puts on the agent's PATH) are the same fettle.
 */
const packageRoot = (real: string): string => {
  for (const tail of [join('dist', 'cli.js'), join('bin', 'fettle')])
    if (real.endsWith(`${sep}${tail}`)) return real.slice(0, -tail.length - 1);
  return real;
};

/**
 * How to spell this fettle in a command that must run as printed in the agent's shell and the user's: plain
 * `fettle` when the first `fettle` on PATH is this very program (or its package's launcher); for a Claude Code
 * plugin with no `fettle` on PATH, its launcher's absolute path (the client puts the plugin's `bin/` on its Bash
 * tool's PATH, never on the person's shell's, where plain `fettle` would not be found); else the absolute node and
 * script paths.
 */
export const selfCommand = (env: Env, script: string | undefined): string => {
  const real = script ? realOr(script) : null;
  if (!real) return 'fettle';
  const root = packageRoot(real);
  const [first] = allOnPath(env, 'fettle');
  if (first !== undefined && packageRoot(first) === root) return 'fettle';
  const plugin = env.CLAUDE_PLUGIN_ROOT ? realOr(env.CLAUDE_PLUGIN_ROOT) : null;
  const launcher = join(root, 'bin', 'fettle');
  if (first === undefined && plugin === root && realOr(launcher) !== null) return shellQuote(launcher);
  return `${shellQuote(process.execPath)} ${shellQuote(real)}`;
};

/**
 * Texts written below the edges (errors' messages and hints, doctor's fixes) name a fettle command as
 * `` `fettle …` `` in backticks; the edge that prints them spells each the way this fettle runs. Only backticked
 * commands are rewritten, so a file's content (a diff) is never printed through this.
 */
export const spellCommands = (text: string, invoke: string): string =>
  invoke === 'fettle' ? text : text.replace(/`fettle(?=[ `])/g, `\`${invoke}`);

const inside = (dir: string, root: string): boolean => {
  const rel = relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** `fettle` plus `-C <dir>` if a shell in `cwd` would not find the change's store on its own. */
export const invocationFor = (
  base: string,
  cwd: string | undefined,
  store: { kind: string; workTree: string },
  file: string,
): string => {
  if (store.kind === 'repo') {
    let real = cwd;
    try {
      real = cwd ? realpathSync(cwd) : cwd;
    } catch {
      // a cwd that vanished: spell the directory out
    }
    return real && inside(real, store.workTree) ? base : `${base} -C ${shellQuote(store.workTree)}`;
  }
  // The private store is found from any directory outside a repository, such as the file's own.
  return `${base} -C ${shellQuote(join(file, '..'))}`;
};
