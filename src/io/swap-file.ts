// Fettle's own small bookkeeping files (a snapshot, a cache, a turn counter, a call's link) replaced whole: written
// beside the target under a name of this process, then renamed over it, so a reader sees the old file or the new
// one, never a part. Not fsynced: each holds what a crash may lose (a record, a cache), never a user's bytes.
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';

/** `mode`: the new file's permission bits (less the umask); the process's default when absent. */
export const swapFile = async (path: string, data: string, mode?: number): Promise<void> => {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, data, mode === undefined ? {} : { mode });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
};

/** The same, synchronous: for a small file on a call's path, where a thread pool's round trip costs more. */
export const swapFileSync = (path: string, data: string): void => {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, data);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never made, or gone: the first error is the one reported
    }
    throw error;
  }
};
