// `fettle gc`: what the reads keep in fettle's data directory (read-baselines.ts, read-registry.ts) for sessions
// idle longer than the history kept. A session's index and a path's cross-session entry are rewritten on each
// read, so their mtime is their last use. Removing one costs a later re-read its saving, never a wrong answer: a
// file with no baseline is sent whole, and a path with no entry gets no note.
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readsDir } from './read-baselines';

export const staleReads = async (
  dataDir: string,
  o: { maxAgeMs: number; dryRun: boolean; nowMs: number },
): Promise<string[]> => {
  const stale: string[] = [];
  for (const sub of ['', 'last']) {
    const dir = join(readsDir(dataDir), sub);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      // A writer's temp file is left to it (swap-file.ts removes its own).
      if (!name.endsWith('.json')) continue;
      const info = await lstat(join(dir, name)).catch(() => null);
      if (!info?.isFile() || o.nowMs - info.mtimeMs <= o.maxAgeMs) continue;
      if (!o.dryRun) await unlink(join(dir, name)).catch(() => undefined);
      stale.push(join('reads', sub, name));
    }
  }
  return stale;
};
