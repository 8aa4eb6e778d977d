// Which store records a file: the repository whose work tree holds it (for a linked worktree, its common
// dir; for a submodule or nested repo, that inner repo), or a private bare repository for paths outside
// any repository. One git spawn to locate it (the hook also starts, alongside, the readers it will need);
// nothing here looks at the rest of the work tree.
import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { realpath, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Env } from '../config';
import { isInsideDotGit } from '../core/dot-git';
import { pseudoFilesystemOf } from '../io/pseudo-fs';
import { FettleError } from '../errors';
import { createGit, createWarmPool, GitError } from './git';
import { makeOwnDir } from '../io/fettle-dir';
import type { StoreCache } from './store-cache';
import type { Store, Target } from './store';
import { readStamp } from './store-format';
import { exists } from '../io/exists';

export { isInsideDotGit };

// Path lookups here are synchronous: each costs microseconds on the calling thread, where a round trip through
// libuv's thread pool costs tens of them, and a hook call makes several.
const nearestExistingDir = async (dir: string): Promise<{ existing: string; rest: string[] }> => {
  const rest: string[] = [];
  let current = dir;
  for (;;) {
    try {
      const info = statSync(current);
      if (info.isDirectory()) return { existing: realpathSync(current), rest };
    } catch {
      // keep walking up
    }
    const parent = dirname(current);
    if (parent === current) return { existing: current, rest };
    rest.unshift(current.slice(parent.length).replace(/^[\\/]/, ''));
    current = parent;
  }
};

/** The real path a write to `abs` lands on: symlinks are followed, the link itself stays a link. */
export const resolveRealPath = async (abs: string): Promise<string> => {
  let target = abs;
  for (let hops = 0; hops < 40; hops++) {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(target);
    } catch {
      break;
    }
    if (!info.isSymbolicLink()) return realpathSync(target);
    const link = readlinkSync(target);
    target = isAbsolute(link) ? link : resolve(dirname(target), link);
  }
  const { existing, rest } = await nearestExistingDir(dirname(target));
  return join(existing, ...rest, target.slice(dirname(target).length + 1));
};

export interface OpenOptions {
  /** git commands to start while the repository is being located (see GitRunner.warm) */
  warm?: readonly (readonly string[])[];
  /** a long-lived process's remembered repositories and kept git processes (store/store-cache.ts) */
  resident?: StoreCache | undefined;
  /** the file about to be recorded: a resident store reads the trees along its path with HEAD */
  file?: string | undefined;
  /** a resident store may come back while HEAD is read: see Store.ready */
  early?: boolean | undefined;
}

export const locateTarget = async (
  filePath: string,
  cwd: string,
  env: Env,
  dataDir: string,
  options: OpenOptions = {},
): Promise<Target> => {
  const abs = resolve(cwd, filePath);
  const realPath = await resolveRealPath(abs);
  if (isInsideDotGit(abs) || isInsideDotGit(realPath)) {
    throw new FettleError('E_FORBIDDEN_PATH', `${abs} is inside a .git directory; fettle never writes there.`);
  }
  const pseudo = await pseudoFilesystemOf(realPath);
  if (pseudo) {
    throw new FettleError(
      'E_FORBIDDEN_PATH',
      `${abs} is on a ${pseudo} pseudo-filesystem (live kernel state, not a file anyone wrote); fettle does not record it.`,
    );
  }
  const { existing } = await nearestExistingDir(dirname(realPath));
  const store = await openStoreAt(existing, env, dataDir, { ...options, file: realPath });
  if (store.kind === 'private') return { store, realPath, treePath: realPath.split(sep).filter(Boolean).join('/') };
  const rel = relative(store.workTree, realPath);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new FettleError('E_INTERNAL', `internal error: ${realPath} is not inside ${store.workTree}`);
  }
  return { store, realPath, treePath: rel.split(sep).join('/') };
};

/** The store for the repository containing `dir`, or the private store when there is none. */
export const openStoreAt = async (
  dir: string,
  env: Env,
  dataDir: string,
  options: OpenOptions = {},
): Promise<Store> => {
  const resident = options.resident;
  const key = `${dir}\0${dataDir}`;
  const known = resident && (await resident.reopen(key, dir, env, options.file, options.early));
  if (known) {
    known.stamped = readStamp(known); // read again each call: a newer fettle may have stamped it since
    return known;
  }
  const { remember: cwd, ...store } = await discover(dir, env, dataDir, options);
  // Only the two usual outcomes are remembered: a work tree's repository, and the private store for a
  // directory in none. The rarer ones (a bare repository's directory, core.worktree elsewhere) ask git each time.
  if (resident && cwd) {
    const { kind, workTree, commonDir, objectFormat, zeroOid } = store;
    const extraArgs = kind === 'private' ? ['--git-dir', commonDir] : [];
    resident.remember(key, { kind, workTree, commonDir, objectFormat, zeroOid, cwd, extraArgs });
  }
  // Before anything of fettle's is read or written there: a store a newer fettle stamped is refused.
  store.stamped = readStamp(store);
  return store;
};

/** What git says about `dir`; `remember` is where git ran, when the answer may be reused (see openStoreAt). */
const discover = async (
  dir: string,
  env: Env,
  dataDir: string,
  options: OpenOptions,
): Promise<Store & { remember?: string }> => {
  const pool = createWarmPool();
  const probe = createGit(dir, env, [], pool);
  // One spawn for everything the hook needs to know; `--verify -q` prints HEAD's commit, or exits 1 if unborn.
  const args = [
    'rev-parse',
    '--is-inside-git-dir',
    '--show-toplevel',
    '--git-common-dir',
    '--show-object-format',
    '--verify',
    '-q',
    'HEAD^{commit}',
  ];
  const probing = probe.run({ args, okCodes: [1] });
  // Started second: the answer above is what everything waits for.
  for (const warm of options.warm ?? []) probe.warm(warm);
  let lines: string[];
  try {
    lines = (await probing).stdout.toString('utf8').trim().split('\n');
  } catch (error) {
    if (error instanceof GitError && /not a git repository/i.test(error.stderr))
      return { ...(await openPrivateStore(env, dataDir)), remember: dataDir };
    if (error instanceof GitError && /must be run in a work tree/i.test(error.stderr)) {
      // Inside a git dir, or in a repository with no work tree (core.bare=true, files kept beside it anyway):
      // only the first is forbidden; files of the second are in no work tree, like files outside a repository.
      const inside = await probe.text({ args: ['rev-parse', '--is-inside-git-dir'] }).catch(() => 'true');
      if (inside === 'false') return openPrivateStore(env, dataDir);
      throw new FettleError('E_FORBIDDEN_PATH', `${dir} is inside a git directory; fettle never writes there.`);
    }
    throw error;
  }
  const [insideGitDir, top, common, format, head] = lines;
  if (insideGitDir === 'true' || !top || !common) {
    throw new FettleError('E_FORBIDDEN_PATH', `${dir} is inside a git directory; fettle never writes there.`);
  }
  const workTree = await realpath(top);
  // core.worktree can put the work tree elsewhere: a directory beside the git dir is then in no work tree, and
  // its files are fettle's like any outside a repository (the private store), for the hook and commands alike.
  const within = relative(workTree, await realpath(dir));
  if (within.startsWith('..') || isAbsolute(within)) return openPrivateStore(env, dataDir);
  const commonDir = await realpath(resolve(dir, common));
  const store = finishStore({
    kind: 'repo',
    git: createGit(workTree, env, [], pool),
    commonDir,
    workTree,
    format,
    head: head && /^[0-9a-f]{40,64}$/.test(head) ? head : null,
  });
  return { ...store, remember: workTree };
};

/**
 * Two first writers can race here, and two `git init` into one directory collide copying its template files
 * ("File exists"). So each initialises a directory of its own and renames it into place; the loser drops its
 * copy. A directory left half made by a killed init is completed by `init`, a no-op on what already exists.
 */
const initPrivateStore = async (dir: string, dataDir: string, env: Env): Promise<void> => {
  const init = (path: string) => createGit(dataDir, env).run({ args: ['init', '-q', '--bare', '--template=', path] });
  const temp = `${dir}.init-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await init(temp);
    await rename(temp, dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw error;
    if (!(await exists(join(dir, 'HEAD')))) await init(dir);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
};

const openPrivateStore = async (env: Env, dataDir: string): Promise<Store> => {
  const dir = join(dataDir, 'store.git');
  await makeOwnDir(dataDir);
  const git = createGit(dataDir, env, ['--git-dir', dir]);
  if (!(await exists(join(dir, 'HEAD')))) await initPrivateStore(dir, dataDir, env);
  const format = await git.text({ args: ['rev-parse', '--show-object-format'] });
  return finishStore({ kind: 'private', git, commonDir: await realpath(dir), workTree: '/', format, head: null });
};

/** A store from what locating it found; `format` as `rev-parse --show-object-format` prints it. */
const finishStore = (found: Omit<Store, 'objectFormat' | 'zeroOid'> & { format: string | undefined }): Store => {
  const { format, ...store } = found;
  const objectFormat = format === 'sha256' ? 'sha256' : 'sha1';
  return { ...store, objectFormat, zeroOid: '0'.repeat(objectFormat === 'sha256' ? 64 : 40) };
};

/**
 * The common dir of the repository around `dir`, found from the files alone (`.git` as a directory, or a
 * `gitdir:` file and its `commondir`), without starting git: for a cheap look at fettle's files before deciding
 * whether git is needed at all. Null when there is none; git remains the authority on anything written.
 */
export const commonDirNear = async (dir: string): Promise<string | null> => (await repoNear(dir))?.commonDir ?? null;

const quietly = <T>(fn: () => T): T | null => {
  try {
    return fn();
  } catch {
    return null;
  }
};

/**
 * `commonDirNear`, with the work tree it was found from (the directory holding `.git`). Synchronous calls: each
 * is a few microseconds, and every Bash call looks here up to four times, where a round trip through libuv's
 * thread pool costs more than the call and, on a busy machine, milliseconds (docs/PERFORMANCE.md).
 */
export const repoNear = async (dir: string): Promise<{ workTree: string; commonDir: string } | null> => {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const dotGit = join(current, '.git');
    const info = quietly(() => statSync(dotGit));
    if (info?.isDirectory()) return { workTree: current, commonDir: realpathSync.native(dotGit) };
    if (info?.isFile()) {
      const text = quietly(() => readFileSync(dotGit, 'utf8')) ?? '';
      const gitdir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
      if (!gitdir) return null;
      const at = resolve(current, gitdir);
      const common = quietly(() => readFileSync(join(at, 'commondir'), 'utf8'))?.trim();
      const commonDir = quietly(() => realpathSync.native(common ? resolve(at, common) : at));
      return commonDir ? { workTree: current, commonDir } : null;
    }
    if (dirname(current) === current) return null;
  }
};
