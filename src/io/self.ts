// How to spell a fettle command so that it runs as printed from the agent's shell: plain `fettle` when that
// name on PATH is this very program, else the absolute node and script paths; plus `-C <dir>` when the
// change lives in another repository than the shell's directory.
import { realpathSync, statSync } from 'node:fs';
import { delimiter, join, relative, isAbsolute } from 'node:path';
import type { Env } from '../config';

export const shellQuote = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

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

const onPath = (env: Env, name: string): string | null => {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return null;
};

export const selfCommand = (env: Env, script: string | undefined): string => {
  if (!script) return 'fettle';
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return 'fettle';
  }
  if (onPath(env, 'fettle') === real) return 'fettle';
  return `${shellQuote(process.execPath)} ${shellQuote(real)}`;
};

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
