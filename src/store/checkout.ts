// The branch checked out in the work tree around a directory, read from git's own files (the `.git` directory or
// file, then HEAD) without starting git: `fettle write` asks it on every call. Null whenever it is not certain
// (no work tree, GIT_DIR or GIT_WORK_TREE set, a detached HEAD, a file git would not have written).
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { branchOfHead, gitdirOfFile } from '../core/session-ladder';

/** How far up a directory is searched for its work tree. */
const MAX_DEPTH = 100;

const gitDirAt = async (dir: string): Promise<string | null | undefined> => {
  const dotGit = join(dir, '.git');
  const info = await stat(dotGit).catch(() => null);
  if (!info) return undefined;
  if (info.isDirectory()) return dotGit;
  const target = gitdirOfFile(await readFile(dotGit, 'utf8').catch(() => ''));
  return target === null ? null : isAbsolute(target) ? target : resolve(dir, target);
};

export const checkoutAt = async (
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ branch: string; workTree: string } | null> => {
  if (env.GIT_DIR || env.GIT_WORK_TREE) return null;
  let dir = await realpath(cwd).catch(() => null);
  for (let depth = 0; dir !== null && depth < MAX_DEPTH; depth++) {
    const gitDir = await gitDirAt(dir);
    if (gitDir === null) return null;
    if (gitDir !== undefined) {
      const branch = branchOfHead(await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => ''));
      return branch === null ? null : { branch, workTree: dir };
    }
    const up = dirname(dir);
    dir = up === dir ? null : up;
  }
  return null;
};
