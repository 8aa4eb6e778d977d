// Deleting a directory tree that may hold tens of thousands of files (a test tree): file by file, so the caller
// can show how far it is, and count the bytes freed. Symlinks are removed, never followed.
import { chmod, lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Runs a removal in `dir`; a directory made read-only by whatever wrote it (Go's module cache does) is made
 * writable for its owner once, and the removal retried. Already gone is not an error.
 */
const removing = async (dir: string, remove: () => Promise<void>): Promise<void> => {
  try {
    await remove();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    await chmod(dir, 0o700);
    await remove().catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
  }
};

export interface Removed {
  files: number;
  bytes: number;
}

/** Bytes and files under `dir` (what removing it frees), symlinks not followed; nothing when it is absent. */
export const sizeOf = async (dir: string): Promise<Removed> => {
  const total = { files: 0, bytes: 0 };
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await walk(child);
      else {
        total.files++;
        total.bytes += (await lstat(child).catch(() => null))?.size ?? 0;
      }
    }
  };
  await walk(dir);
  return total;
};

/** Removes `dir` and everything under it; `onProgress` hears the running count now and then. Absent: nothing. */
export const removeTree = async (dir: string, onProgress?: (so: Removed) => void): Promise<Removed> => {
  const so = { files: 0, bytes: 0 };
  let reported = Date.now();
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        await walk(child);
        continue;
      }
      so.bytes += (await lstat(child).catch(() => null))?.size ?? 0;
      await removing(path, () => unlink(child));
      so.files++;
      if (onProgress && Date.now() - reported >= 100) {
        reported = Date.now();
        onProgress(so);
      }
    }
    await removing(dirname(path), () => rmdir(path));
  };
  if ((await lstat(dir).catch(() => null))?.isDirectory()) await walk(dir);
  return so;
};
