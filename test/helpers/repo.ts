// Real git repositories in temp dirs, deterministic by construction (git's own test-lib does the same:
// HOME in the trash dir, no system config, fixed identity and dates).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after } from 'node:test';

const roots: string[] = [];
after(() => {
  // A hook's background work (a PostToolUse, storage maintenance) may still be adding files to a repository's
  // .git as the test file ends: a directory emptied and then refilled fails the removal with ENOTEMPTY, so retry.
  for (const root of roots) rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** A fresh temp dir (real path), removed when the test file ends. */
export const tempDir = (prefix = 'fettle-test-'): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  roots.push(dir);
  return dir;
};

/**
 * The PATH tests run with: the developer's, without any directory holding a `fettle`, so what fettle prints is
 * spelled as on a machine where it is not installed (tests that want `fettle` on PATH add their own).
 */
export const PATH_WITHOUT_FETTLE = (process.env.PATH ?? '/usr/bin:/bin')
  .split(delimiter)
  .filter((dir) => dir && !existsSync(join(dir, 'fettle')))
  .join(delimiter);

/**
 * The environment every process of a test sees: nothing from the developer's own git setup, and command hooks that
 * start no resident server (a test that starts one, or tests the start, says so: helpers/resident.ts,
 * test/hook/autostart.test.ts), so that each call runs in process as the test means and no server outlives it.
 */
export const baseEnv = (home: string): Record<string, string> => ({
  FETTLE_SERVE_AUTOSTART: '0',
  PATH: PATH_WITHOUT_FETTLE,
  HOME: home,
  XDG_DATA_HOME: join(home, '.data'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'user@example.com',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'user@example.com',
  GIT_AUTHOR_DATE: '@1700000000 +0000',
  GIT_COMMITTER_DATE: '@1700000000 +0000',
  LANG: 'C',
});

export interface Repo {
  /** the work tree */
  dir: string;
  /** a HOME for processes of this test (holds .data for the private store) */
  home: string;
  env: Record<string, string>;
  git: (...args: string[]) => string;
  gitBytes: (...args: string[]) => Buffer;
  write: (path: string, content: string | Buffer, mode?: number) => string;
  read: (path: string) => Buffer;
  path: (path: string) => string;
  commit: (message?: string) => void;
}

export const repoAt = (dir: string, home: string): Repo => {
  const env = baseEnv(home);
  const gitBytes = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  const repo: Repo = {
    dir,
    home,
    env,
    gitBytes,
    git: (...args) =>
      gitBytes(...args)
        .toString('utf8')
        .trim(),
    path: (p) => join(dir, p),
    write: (p, content, mode) => {
      const file = join(dir, p);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      if (mode !== undefined) chmodSync(file, mode);
      return file;
    },
    read: (p) => readFileSync(join(dir, p)),
    commit: (message = 'commit') => {
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', message);
    },
  };
  return repo;
};

/** `git init` with files committed (unless `commit: false`, which leaves HEAD unborn). */
export const makeRepo = (
  files: Record<string, string | Buffer> = {},
  options: { commit?: boolean; objectFormat?: 'sha1' | 'sha256' } = {},
): Repo => {
  const root = tempDir();
  const dir = join(root, 'repo');
  mkdirSync(dir);
  const repo = repoAt(dir, root);
  repo.git('init', '-q', '-b', 'main', ...(options.objectFormat ? [`--object-format=${options.objectFormat}`] : []));
  repo.git('config', 'gc.auto', '0');
  repo.git('config', 'maintenance.auto', 'false');
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  if (options.commit !== false && Object.keys(files).length > 0) repo.commit('initial');
  return repo;
};

/** n numbered lines of text. */
export const lines = (n: number, word = 'line', from = 1): string =>
  Array.from({ length: n }, (_, i) => `${word} ${i + from}`).join('\n') + (n > 0 ? '\n' : '');

/**
 * Everything of the user's that fettle must never change: HEAD, branches and tags, the index, config, stash
 * and hooks. Compare a snapshot before and after.
 */
export const userState = (repo: Repo): string => {
  const gitDir = repo.git('rev-parse', '--git-common-dir');
  const abs = (p: string) => (p.startsWith('/') ? p : join(repo.dir, p));
  const safe = (f: () => string) => {
    try {
      return f();
    } catch {
      return '<none>';
    }
  };
  return JSON.stringify({
    head: safe(() => readFileSync(join(abs(repo.git('rev-parse', '--git-dir')), 'HEAD'), 'utf8')),
    refs: repo.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags', 'refs/stash'),
    index: safe(() => repo.git('ls-files', '-s', '--debug')),
    config: readFileSync(join(abs(gitDir), 'config'), 'utf8'),
    hooks: safe(() =>
      readdirSync(join(abs(gitDir), 'hooks'))
        .map((f) => `${f} ${readFileSync(join(abs(gitDir), 'hooks', f)).length}`)
        .join(','),
    ),
  });
};

/** New contents under a directory of their own, as a generator would leave them. */
export const generated = (files: Record<string, string>): string => {
  const dir = tempDir('fettle-gen-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
};
