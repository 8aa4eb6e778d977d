// The stat cache per work tree (`<common-dir>/fettle/bash-cache/`): the blob of each dirty or untracked file at
// the stat data it had, so the next snapshot reads only what changed since (git's own index does the same).
// Losing it costs reading the files again.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileStat } from '../../core/bash-changes';
import { makeOwnDir } from '../../io/fettle-dir';
import { swapFile } from '../../io/swap-file';

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** A file's blob at the stat data it had when it was read, and the pack fettle wrote it into. */
export interface Cached {
  stat: FileStat;
  oid: string;
  pack?: string | undefined;
}

const cachePath = (commonDir: string, workTree: string): string =>
  join(commonDir, 'fettle', 'bash-cache', `${sha1(workTree).slice(0, 24)}.json`);

export const readStatCache = async (commonDir: string, workTree: string): Promise<Map<string, Cached>> => {
  try {
    const data = JSON.parse(await readFile(cachePath(commonDir, workTree), 'utf8')) as Record<string, Cached>;
    return new Map(Object.entries(data).filter(([, c]) => typeof c?.oid === 'string' && typeof c.stat === 'object'));
  } catch {
    return new Map();
  }
};

/**
 * Replaces the cache (a temp file renamed over it: concurrent writers each leave a whole, correct one); not when
 * it holds what `read` (the cache as read before) did, as it does after a command that changed nothing.
 */
export const writeStatCache = async (
  commonDir: string,
  workTree: string,
  cache: Map<string, Cached>,
  read?: Map<string, Cached>,
) => {
  const text = JSON.stringify(Object.fromEntries(cache));
  if (read && text === JSON.stringify(Object.fromEntries(read))) return;
  const path = cachePath(commonDir, workTree);
  await makeOwnDir(join(path, '..'));
  // a cache: losing it costs reading the files again
  await swapFile(path, text).catch(() => undefined);
};
