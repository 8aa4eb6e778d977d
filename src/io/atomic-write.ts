// Replacing a user's file so that a reader (or a crash) sees the old bytes or the new ones, never a mix:
// temp file in the same directory (rename across filesystems fails with EXDEV), fsync it, rename over the
// target, fsync the directory. "Without the fsync(2) a zero-length file is a valid and possible outcome after
// the rename" (Ts'o); without the directory fsync the rename itself may not survive power loss.
import { randomBytes } from 'node:crypto';
import { chown, link, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { constants as fsConstants, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { isInsideDotGit } from '../core/dot-git';
import { FettleError } from '../errors';
import { disown, own } from './cleanup';
import { failpoint } from './failpoint';
import { isAlive } from './pid';

export interface WriteOptions {
  /** permission bits for the file; default: the existing file's, else 0o644 */
  mode?: number;
  /** fail with E_CONFLICT instead of replacing a file that exists (uses link(), which never clobbers) */
  createOnly?: boolean;
  /**
   * The bytes the caller read and planned on. Right before the rename the file is read again; if someone (a
   * person's editor) saved other bytes meanwhile, nothing is replaced and E_CONFLICT says so.
   */
  expect?: Buffer;
}

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
const holdExpected = async (target: string, expect: Buffer) => {
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
const reread = async (handle: Awaited<ReturnType<typeof open>>): Promise<Buffer> => {
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

/** Temp files carry this marker so a later run can tell fettle's leftovers from the user's files. */
export const TEMP_MARKER = '.fettle-';

export const tempNameFor = (target: string): string =>
  join(dirname(target), `.${basename(target)}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString('hex')}.tmp`);

/** fsync of a file or directory by path (a directory: so the entries made in it survive a power loss). */
export const fsyncPath = async (path: string): Promise<void> => {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * The rename happened, so the file holds the new bytes, but fsyncing its directory failed: the replacement may
 * not survive a power loss. Callers record what landed before reporting it; it is never retried (after a failed
 * fsync the kernel may have dropped the dirty pages and would report success next time).
 */
export class NotDurableError extends FettleError {
  constructor(target: string, cause: unknown) {
    super(
      'E_IO',
      `${target} was replaced, but syncing its directory failed (${(cause as Error).message}); the new bytes may not be durable.`,
      {
        cause,
        hint: 'Check the disk; the previous bytes are recorded in git.',
      },
    );
  }
}

/** Removes temp files a killed fettle left beside `target` (its pid is dead); never anyone else's files. */
const sweepTemps = async (target: string): Promise<void> => {
  const prefix = `.${basename(target)}${TEMP_MARKER}`;
  const names = await readdir(dirname(target)).catch(() => [] as string[]);
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? Number.parseInt(name.slice(prefix.length), 10) : NaN;
    if (pid > 0 && pid !== process.pid && !isAlive(pid))
      await unlink(join(dirname(target), name)).catch(() => undefined);
  }
};

/**
 * The directory may have been swapped for a symlink (into .git, or elsewhere) since the caller resolved the
 * path: check again right before the rename, so fettle writes only where it decided to.
 */
const checkDirectory = async (target: string): Promise<void> => {
  const dir = dirname(target);
  const real = await realpath(dir);
  if (real !== dir || isInsideDotGit(real)) {
    throw new FettleError(
      'E_CONFLICT',
      `${dir} changed (it now leads to ${real}) while fettle was writing ${basename(target)}; nothing was written.`,
    );
  }
};

/** `target` must already be the real path (symlinks resolved by the caller), so a link stays a link. */
export const replaceFile = async (target: string, bytes: Buffer, options: WriteOptions = {}): Promise<void> => {
  let existing: { mode: number; uid: number; gid: number } | null = null;
  try {
    const info = await stat(target);
    if (!info.isFile()) throw new FettleError('E_IO', `${target} is not a regular file; fettle only replaces files.`);
    // A rename would replace a read-only file that a plain write could not: respect the owner's intent.
    if ((info.mode & 0o200) === 0)
      throw new FettleError('E_IO', `${target} is read-only; fettle does not replace read-only files.`, {
        hint: 'Make it writable (chmod u+w) if it should change, then retry.',
      });
    existing = { mode: info.mode & 0o7777, uid: info.uid, gid: info.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing && options.createOnly) {
    throw new FettleError('E_CONFLICT', `${target} appeared while fettle was writing it; nothing was overwritten.`);
  }
  const mode = options.mode ?? existing?.mode ?? 0o644;
  await sweepTemps(target);
  const temp = tempNameFor(target);
  let renamed = false;
  try {
    const handle = await open(temp, 'wx', mode);
    own(temp);
    try {
      await handle.writeFile(bytes);
      await handle.chmod(mode); // the umask applied at open
      if (existing && process.getuid?.() === 0) await chown(temp, existing.uid, existing.gid).catch(() => undefined);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await failpoint('replace.temp-synced');
    await checkDirectory(target);
    const held = options.expect && !options.createOnly ? await holdExpected(target, options.expect) : null;
    try {
      await failpoint('replace.checked');
      if (options.createOnly) {
        try {
          await link(temp, target);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            throw new FettleError(
              'E_CONFLICT',
              `${target} appeared while fettle was writing it; nothing was overwritten.`,
            );
          }
          throw error;
        }
        await unlink(temp);
      } else {
        if (held) {
          const now = await stat(target).catch(() => null);
          if (!now || now.ino !== held.ino || now.dev !== held.dev) throw changedUnderfoot(target);
        }
        await rename(temp, target);
      }
      renamed = true;
      // A save made in place between the check and the rename went to the inode just replaced: put it back.
      const late = held ? await reread(held.handle) : null;
      if (held && late && options.expect && !late.equals(options.expect)) {
        await replaceFile(target, late, { mode: held.mode, expect: bytes });
        throw changedUnderfoot(target);
      }
    } finally {
      await held?.handle.close();
    }
    await failpoint('replace.renamed');
    await fsyncPath(dirname(target)).catch((error: unknown) => {
      throw new NotDurableError(target, error);
    });
  } catch (error) {
    // Remove the temp file only if it was not renamed: after a rename the name may belong to someone else.
    if (!renamed) await unlink(temp).catch(() => undefined);
    throw error;
  } finally {
    disown(temp);
  }
};

/** Removes a file durably (rollback of a change that created it); with `expect`, only if it still holds it. */
export const removeFile = async (target: string, expect?: Buffer): Promise<void> => {
  if (expect) await (await holdExpected(target, expect)).handle.close();
  await unlink(target);
  await fsyncPath(dirname(target));
};

export interface DiskFile {
  bytes: Buffer;
  /** permission bits */
  mode: number;
}

/** Something is at the path, but not a regular file (a directory, a FIFO, a device, a socket). */
export class NotAFileError extends FettleError {
  constructor(path: string, what: string) {
    super('E_IO', `${path} is not a regular file (${what}).`);
  }
}

/** A file can be neither read nor written here: something else is at the path, or a parent is a file. */
export const isNotAFile = (error: unknown): boolean =>
  error instanceof NotAFileError || (error as NodeJS.ErrnoException)?.code === 'ENOTDIR';

/**
 * Opens `path` for reading only if it is a regular file. O_NONBLOCK: opening a FIFO for reading otherwise waits
 * for a writer (forever), and a device can answer without end (/dev/zero); the type is checked on the opened
 * descriptor, so a swap between a stat and the open cannot slip one in. On regular files the flag is inert.
 */
export const openRegular = async (path: string) => {
  const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotAFileError(path, kindOfEntry(info));
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
};

const kindOfEntry = (info: Stats): string =>
  info.isDirectory()
    ? 'a directory'
    : info.isFIFO()
      ? 'a named pipe'
      : info.isCharacterDevice() || info.isBlockDevice()
        ? 'a device'
        : info.isSocket()
          ? 'a socket'
          : 'not a file';

/** Node reads at most this much into one Buffer (fs kIoMaxLength); past it readFile throws a RangeError. */
export const MAX_RECORDABLE_BYTES = 2 ** 31 - 1;

/** The bytes and mode on disk, or null when there is no file. */
export const readDisk = async (path: string): Promise<DiskFile | null> => {
  try {
    const { handle, info } = await openRegular(path);
    try {
      if (info.size > MAX_RECORDABLE_BYTES)
        throw new FettleError(
          'E_TOO_LARGE',
          `${path} is ${(info.size / 2 ** 30).toFixed(1)} GiB, larger than fettle can record (2 GiB).`,
        );
      return { bytes: await handle.readFile(), mode: info.mode & 0o7777 };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

export const gitModeOf = (mode: number): string => (mode & 0o111 ? '100755' : '100644');
export const fileModeOf = (gitMode: string): number => (gitMode === '100755' ? 0o755 : 0o644);

/** Absolute real path of an existing file (symlinks resolved), or the absolute path as given. */
export const realPathOrAbsolute = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolvePath(path);
  }
};
