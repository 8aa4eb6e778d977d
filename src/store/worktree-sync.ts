// Moving a hidden worktree to a new tree in place. `git read-tree --reset -u <tree>` in the worktree's own index
// compares each entry with the tree and with the file on disk, and writes only the paths whose blob changed or
// whose file no longer matches the index (a file the last command edited): an unchanged file keeps its inode and
// mtime, so the second run costs a stat per file instead of a checkout. Files the last command created that git
// does not ignore are then removed (`git clean -fd`); ignored ones (build output, caches) stay, as they would in
// a checkout. The user's index, HEAD and config are never named: every call runs in the worktree, whose `.git`
// file points git at its own admin dir.
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from '../config';
import { noProgress, type Progress } from '../io/progress';
import { createGit, GitError, type GitRunner } from './git';

export interface SyncTarget {
  /** the tree the worktree must hold */
  tree: string;
  /** the commit its HEAD names (the user's HEAD, so `git diff HEAD` there shows what the test tree adds) */
  commit: string;
}

export interface Synced {
  /** paths whose index entry changed (null: the index was new or unreadable, and every file was checked out) */
  updated: string[] | null;
  /** paths the last command left that git does not ignore, now removed */
  cleaned: string[];
}

/** Paths whose entry in the worktree's index differs from `tree`: what the update will write. */
const changedPaths = async (git: GitRunner, tree: string): Promise<string[]> =>
  (await git.run({ args: ['diff-index', '--cached', '--name-only', '-z', '--no-renames', tree] })).stdout
    .toString('utf8')
    .split('\0')
    .filter(Boolean);

/** A gitignore pattern matching exactly `path` from the worktree's root. */
const exactPattern = (path: string): string => `/${path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`)}`;

/** git's progress meter, "Updating files:  45% (13500/30000)", as "13500/30000". */
const meter = (chunk: Buffer): string | null => {
  const all = [...chunk.toString('utf8').matchAll(/\((\d+\/\d+)\)/g)];
  return all.length ? (all[all.length - 1]?.[1] ?? null) : null;
};

/**
 * Brings the worktree at `dir` (admin dir `admin`) to `target`. `keep`: paths `git clean` must leave alone (the
 * links to the user's dependency directories). fettle's lock on this worktree is held by the caller, so an
 * `index.lock` found here was left by a killed run.
 */
export const syncWorktree = async (
  dir: string,
  admin: string,
  env: Env,
  target: SyncTarget,
  /** `progress`: the caller's step, which git's progress meter updates */
  o: { keep: readonly string[]; fresh: boolean; progress?: Progress },
): Promise<Synced> => {
  const progress = o.progress ?? noProgress;
  const git = createGit(dir, env);
  await unlink(join(admin, 'index.lock')).catch(() => undefined);
  const readTree = () =>
    git.run({
      // Parallel checkout (git 2.32), one worker per core, used when more than 100 files are written: a first
      // fill of 30,000 files took 2-3 s with it against 2-27 s without, on a shared two-core machine. The index
      // is not fsynced: it is disposable (see below), and an fsync under a busy disk cost up to a second.
      args: ['-c', 'checkout.workers=0', '-c', 'core.fsync=none', 'read-tree', '-v', '--reset', '-u', target.tree],
      onStderr: (chunk) => {
        const so = meter(chunk);
        if (so) progress.update(`fettle: checking out your files into the test tree: ${so}`);
      },
    });
  let updated: string[] | null = null;
  try {
    if (!o.fresh) updated = await changedPaths(git, target.tree);
    await readTree();
  } catch (error) {
    if (o.fresh || !(error instanceof GitError)) throw error;
    // An index a crash left unreadable: start it again, a checkout over the files already there.
    await unlink(join(admin, 'index')).catch(() => undefined);
    updated = null;
    await readTree();
  }
  progress.done();
  const excludes = o.keep.flatMap((path) => ['-e', exactPattern(path)]);
  const clean = await git.run({ args: ['clean', '-f', '-d', ...excludes] });
  const cleaned = [...clean.stdout.toString('utf8').matchAll(/^Removing (.*)$/gm)].map((m) => m[1] as string);
  const head = (await readFile(join(admin, 'HEAD'), 'utf8').catch(() => '')).trim();
  if (head !== target.commit)
    await git.run({ args: ['update-ref', '--no-deref', '-m', 'fettle test', 'HEAD', target.commit] });
  return { updated, cleaned };
};
