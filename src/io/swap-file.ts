// Fettle's own small bookkeeping files (a snapshot, a cache, a turn counter, a call's link) replaced whole: written
// beside the target under a name of this process, then renamed over it, so a reader sees the old file or the new
// one, never a part. Not fsynced: each holds what a crash may lose (a record, a cache), never a user's bytes.
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
