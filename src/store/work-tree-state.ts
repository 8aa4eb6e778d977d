// A work tree as a git tree, without touching its index: HEAD's tree with every path one `git status` lists
// (changed, deleted, untracked and not ignored) set to what is on disk. The user's index is only read:
// `--no-optional-locks` keeps status from writing the stat refresh it would otherwise save there.
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from '../config';
import { parseWorkStatus, type WorkEntry, type WorkStatus } from '../core/porcelain';
import { noProgress, type Progress } from '../io/progress';
import { createGit } from './git';
import { STATUS_ARGS } from './status';
import { writeFileBlobsOf } from './objects';
import type { Store } from './store';
import type { Leaf } from './tree-write';

export interface WorkTreeState {
  /** the commit the work tree's HEAD names; null when unborn */
  head: string | null;
  /** HEAD's tree would need these edits to be the work tree: removals first, then files */
  edits: Map<string, Leaf>;
  /** paths left as HEAD has them, and why */
  kept: WorkStatus['kept'];
  /** files read from disk (changed or untracked), and paths gone from the work tree */
  read: number;
  gone: number;
}

/** What is at `path` as git stores it: a symlink's target, a file's bytes; null when gone or not a file. */
const readEntry = async (
  path: string,
  mode: string | undefined,
): Promise<{ bytes: Buffer; mode: string; fileMode?: number } | null> => {
  const info = await lstat(path).catch(() => null);
  if (!info) return null;
  if (info.isSymbolicLink()) return { bytes: await readlink(path, { encoding: 'buffer' }), mode: '120000' };
  if (!info.isFile()) return null;
  // git's own view of the executable bit for a tracked file (it honours core.fileMode); the disk's otherwise.
  const gitMode = mode === '100644' || mode === '100755' ? mode : info.mode & 0o100 ? '100755' : '100644';
  return { bytes: await readFile(path), mode: gitMode, fileMode: info.mode & 0o777 };
};

/** Reads the `disk` entries and writes their blobs, a batch at a time. */
const blobsOf = async (
  store: Store,
  root: string,
  entries: Extract<WorkEntry, { from: 'disk' }>[],
  progress: Progress,
): Promise<Map<string, Leaf>> => {
  const modes = new Map(entries.map((e) => [e.path, e.mode]));
  return writeFileBlobsOf(
    store,
    entries.map((e) => e.path),
    async (path, n) => {
      if (n % 200 === 199)
        progress.update(`fettle: reading your changed and untracked files: ${n + 1}/${entries.length}`);
      return readEntry(join(root, ...path.split('/')), modes.get(path));
    },
  );
};

/** The work tree at `root` (one of `store`'s work trees) as edits to its HEAD's tree. */
export const readWorkTree = async (
  store: Store,
  root: string,
  env: Env,
  progress: Progress = noProgress,
): Promise<WorkTreeState> => {
  const git = createGit(root, env);
  progress.step('fettle: reading your working tree (git status)', { delayMs: 1000 });
  const { stdout } = await git.run({ args: STATUS_ARGS });
  const status = parseWorkStatus(stdout);
  const disk = status.entries.filter((e): e is Extract<WorkEntry, { from: 'disk' }> => e.from === 'disk');
  progress.step(`fettle: reading your changed and untracked files: 0/${disk.length}`, { delayMs: 1000 });
  const files = await blobsOf(store, root, disk, progress);
  progress.done();
  const edits = new Map<string, Leaf>();
  // Removals first: a path that was a file and is now a directory loses the file before gaining the children.
  for (const entry of status.entries)
    if (entry.from === 'gone' || files.get(entry.path) === null) edits.set(entry.path, null);
  for (const entry of status.entries) {
    if (entry.from === 'index') edits.set(entry.path, { mode: entry.mode, oid: entry.oid });
    const leaf = files.get(entry.path);
    if (leaf) edits.set(entry.path, leaf);
  }
  const gone = [...edits.values()].filter((l) => l === null).length;
  return { head: status.head, edits, kept: status.kept, read: disk.length, gone };
};
