// Bookkeeping files nothing has written for longer than a retention (each is rewritten whenever it is used, so its
// mtime is its last use): found and, unless it is a dry run, removed. What `fettle gc` does to sessions' state
// logs, Bash snapshots and read baselines. Only regular files: anything else there is not fettle's to remove.
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface Aging {
  maxAgeMs: number;
  dryRun: boolean;
  nowMs: number;
}

/** The names in `dir` older than `o.maxAgeMs`, among those `take` accepts; removed unless `o.dryRun`. */
export const removeStaleFiles = async (
  dir: string,
  o: Aging,
  take: (name: string) => boolean = () => true,
): Promise<string[]> => {
  const stale: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!take(name)) continue;
    const info = await lstat(join(dir, name)).catch(() => null);
    if (!info?.isFile() || o.nowMs - info.mtimeMs <= o.maxAgeMs) continue;
    if (!o.dryRun) await unlink(join(dir, name)).catch(() => undefined);
    stale.push(name);
  }
  return stale;
};
