// The checks atomic-write.ts makes around its rename so that fettle replaces only what it planned on: the file
// still holds the bytes the caller read (a person's editor may have saved since), and its directory still leads
// where the caller resolved it.
import type { open } from 'node:fs/promises';
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { isInsideDotGit } from '../core/dot-git';
import { FettleError } from '../errors';
import { openRegular } from './regular-file';

/** Someone else wrote the file between the caller's read and fettle's rename. */
export const changedUnderfoot = (target: string): FettleError =>
  new FettleError('E_CONFLICT', `${target} changed while fettle was writing it; nothing was overwritten.`, {
    hint: 'The bytes saved meanwhile are on disk. Run the command again to apply it on top of them.',
  });

/**
 * Holds the file the rename will replace: its bytes must be `expect`, and it must still be the file at `target`
 * (a rename-style save swaps the inode). Returns the open handle, so that after the rename a save made in place
 * between this check and the rename can still be read from the replaced inode.
 */
export const holdExpected = async (target: string, expect: Buffer) => {
  const { handle, info } = await openRegular(target).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ENOENT' ? changedUnderfoot(target) : error;
  });
  try {
    const now = await handle.readFile();
    if (!now.equals(expect)) throw changedUnderfoot(target);
    return { handle, ino: info.ino, dev: info.dev, mode: info.mode & 0o7777 };
  } catch (error) {
    await handle.close();
    throw error;
  }
};

/** Reads the whole inode behind `handle` again, from the start. */
export const reread = async (handle: Awaited<ReturnType<typeof open>>): Promise<Buffer> => {
  const { size } = await handle.stat();
  const bytes = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, size - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return bytes.subarray(0, done);
};

/**
 * The directory may have been swapped for a symlink (into .git, or elsewhere) since the caller resolved the
 * path: check again right before the rename, so fettle writes only where it decided to.
 */
export const checkDirectory = async (target: string): Promise<void> => {
  const dir = dirname(target);
  const real = await realpath(dir);
  if (real !== dir || isInsideDotGit(real)) {
    throw new FettleError(
      'E_CONFLICT',
      `${dir} changed (it now leads to ${real}) while fettle was writing ${basename(target)}; nothing was written.`,
    );
  }
};
