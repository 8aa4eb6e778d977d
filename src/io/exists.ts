// Whether a path exists (anything at it, symlinks followed), and whether it changed since: questions several
// layers ask before acting.
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

export const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * A file's identity (inode, size, mtime), or 'missing': a long-lived process (the resident server) compares it
 * to notice a file replaced. Synchronous: a stat costs microseconds, a round trip through libuv's thread pool more.
 */
export const fileStamp = (path: string): string => {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
};
