// The repository around a directory found from its files, as git 2.39 finds it for fettle (whose git runs with
// GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, GIT_CEILING_DIRECTORIES and GIT_DISCOVERY_ACROSS_FILESYSTEM scrubbed,
// io/child-env.ts): walking up for `.git`, a directory or a `gitdir:` file, its `commondir`, HEAD and the branch it
// names, the config's format. It answers only the plain case, where every rule git applies is known to hold, and
// says null for anything else (a bare repository on the way, a mount point crossed, core.worktree, another owner,
// an extension, a symlink, a file it cannot read): git is then asked, which costs one process.
import { lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Env } from '../config';
import { isInsideDotGit } from '../core/dot-git';
import type { PackedRefs } from '../core/packed-refs';
import { plainRepoFormat } from '../core/repo-format';
import { createGit } from './git';
import { packedRefsIn, refTipsFromFiles } from './ref-files';
import { readStamp } from './store-format';
import type { Store } from './store';

export interface FoundRepo {
  workTree: string;
  commonDir: string;
  objectFormat: 'sha1' | 'sha256';
  /** HEAD's commit; null when HEAD's branch is unborn */
  head: string | null;
}

const statOf = (path: string, follow: boolean): Stats | null => {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return null;
  }
};

/** A file's text, '' when there is none; null when something else is there or it cannot be read. */
const textOf = (path: string): string | null => {
  try {
    return readFileSync(path, 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? '' : null;
  }
};

/** A branch name git itself would accept, and nothing unusual (pack-refs.ts reads fettle's refs by the same). */
const BRANCH = /^refs\/heads\/[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const plainBranch = (name: string): boolean => BRANCH.test(name) && !name.includes('..') && !/\.lock(\/|$)/.test(name);

/** The commit a branch names, from its loose file, else packed-refs; null when unborn; undefined: ask git. */
const branchCommit = (commonDir: string, branch: string, oid: RegExp): string | null | undefined => {
  const loose = statOf(join(commonDir, branch), false);
  if (loose?.isFile()) return oid.exec(textOf(join(commonDir, branch)) ?? '')?.[1];
  if (loose) return undefined;
  let file: PackedRefs | null;
  try {
    file = packedRefsIn(commonDir);
  } catch {
    return undefined;
  }
  if (!file) return undefined;
  const record = file.records.find((r) => r.name === branch);
  return record === undefined ? null : oid.exec(`${record.oid}\n`)?.[1];
};

/** HEAD's commit (a branch's, or detached); undefined when HEAD is not plain. */
const headOf = (gitDir: string, commonDir: string, length: number): string | null | undefined => {
  if (!statOf(join(gitDir, 'HEAD'), false)?.isFile()) return undefined;
  const text = textOf(join(gitDir, 'HEAD')) ?? '';
  const oid = new RegExp(`^([0-9a-f]{${length}})\\n$`);
  const branch = /^ref: (\S+)\n$/.exec(text)?.[1];
  if (branch === undefined) return oid.exec(text)?.[1];
  return plainBranch(branch) ? branchCommit(commonDir, branch, oid) : undefined;
};

/** The git dir a `.git` entry names: itself, or the target of a `gitdir:` file (resolved from where it is). */
const gitDirOf = (top: string, dotGit: Stats): string | null => {
  if (dotGit.isDirectory()) return join(top, '.git');
  if (!dotGit.isFile()) return null;
  const target = /^gitdir: ([^\n]*\S)[ \t]*\n?$/.exec(textOf(join(top, '.git')) ?? '')?.[1];
  return target === undefined ? null : resolve(top, target);
};

/**
 * The repository whose `.git` is in `top`, or null when git might decide anything but "this work tree, that git
 * dir": every directory git checks the owner of is this user's (safe.directory is then moot), the git dir has the
 * HEAD, objects and refs git requires of one, and the config is plain.
 */
const repoAt = (top: string, dotGit: Stats, uid: number): FoundRepo | null => {
  const gitDir = gitDirOf(top, dotGit);
  if (gitDir === null) return null;
  // git drops the line ends after its path, nothing else
  const common = textOf(join(gitDir, 'commondir'))?.replace(/[\r\n]+$/, '');
  if (common === undefined || common !== common.trim() || /[\0\n]/.test(common)) return null;
  let commonDir: string;
  try {
    commonDir = realpathSync(resolve(gitDir, common));
  } catch {
    return null;
  }
  const dirs = [top, gitDir, commonDir, join(commonDir, 'objects'), join(commonDir, 'refs')];
  const infos = dirs.map((d) => statOf(d, true));
  if (!infos.every((i) => i?.isDirectory() && i.uid === uid) || dotGit.uid !== uid) return null;
  const config = textOf(join(commonDir, 'config'));
  const format = config === null ? null : plainRepoFormat(config);
  if (format === null) return null;
  const head = headOf(gitDir, commonDir, format.objectFormat === 'sha256' ? 64 : 40);
  if (head === undefined) return null;
  return { workTree: top, commonDir, objectFormat: format.objectFormat, head };
};

/**
 * The repository git would find from `dir` (its real path first, as git's getcwd gives it), or null: none found
 * this way, and git is to look (which also finds the private store's case, a directory in no repository).
 */
export const repoFromFiles = (dir: string, env: Env): FoundRepo | null => {
  const uid = process.geteuid?.();
  // git trusts the account sudo ran from (SUDO_UID) when run as root: it alone decides then
  if (uid === undefined || (uid === 0 && env.SUDO_UID !== undefined)) return null;
  let current: string;
  try {
    current = realpathSync(dir);
  } catch {
    return null;
  }
  if (isInsideDotGit(current)) return null;
  const device = statOf(current, true)?.dev;
  for (;;) {
    const dotGit = statOf(join(current, '.git'), false);
    if (dotGit) return repoAt(current, dotGit, uid);
    // a directory holding HEAD may be a git dir itself (a bare repository), which git checks for next
    if (statOf(join(current, 'HEAD'), false)) return null;
    const parent = dirname(current);
    if (parent === current || statOf(parent, true)?.dev !== device) return null;
    current = parent;
  }
};

/**
 * The store of the repository around `dir` as found from its files, its refs read from theirs, checked as
 * openStoreAt checks one (a store a newer fettle stamped is refused); null: ask git (locate.ts).
 */
export const storeFromFiles = (dir: string, env: Env): Store | null => {
  const found = repoFromFiles(dir, env);
  if (!found) return null;
  const zeroOid = '0'.repeat(found.objectFormat === 'sha256' ? 64 : 40);
  const refTips = (prefixes: readonly string[]) => refTipsFromFiles(found.commonDir, prefixes, zeroOid.length);
  const store: Store = { kind: 'repo', git: createGit(found.workTree, env), ...found, zeroOid, refTips };
  store.stamped = readStamp(store);
  return store;
};
