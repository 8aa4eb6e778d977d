// Replacing a user's file so that a reader (or a crash) sees the old bytes or the new ones, never a mix:
// temp file in the same directory (rename across filesystems fails with EXDEV), fsync it, rename over the
// target, fsync the directory. "Without the fsync(2) a zero-length file is a valid and possible outcome after
// the rename" (Ts'o); without the directory fsync the rename itself may not survive power loss. The temp files
// are temp-files.ts; the checks right before the rename, replace-guards.ts.
import { chown, link, open, rename, stat, unlink } from 'node:fs/promises';
import { closeSync, readFile, realpathSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, resolve as resolvePath } from 'node:path';
import { FettleError } from '../errors';
import { disown, own } from './cleanup';
import { failpoint } from './failpoint';
import { NotAFileError, readRegularSync } from './regular-file';
import { changedUnderfoot, checkDirectory, holdExpected, reread } from './replace-guards';
import { sweepTemps, tempNameFor } from './temp-files';

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

/** The mode and owner of the file to replace (null: none yet); a file that is not regular, or read-only, is refused. */
const replaceable = async (target: string): Promise<{ mode: number; uid: number; gid: number } | null> => {
  try {
    const info = await stat(target);
    if (!info.isFile()) throw new FettleError('E_IO', `${target} is not a regular file; fettle only replaces files.`);
    // A rename would replace a read-only file that a plain write could not: respect the owner's intent.
    if ((info.mode & 0o200) === 0)
      throw new FettleError('E_IO', `${target} is read-only; fettle does not replace read-only files.`, {
        hint: 'Make it writable (chmod u+w) if it should change, then retry.',
      });
    return { mode: info.mode & 0o7777, uid: info.uid, gid: info.gid };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return null;
};

/** The new bytes, synced, in a fresh temp file (owned, for cleanup on a signal): its mode; as root, the old owner. */
const writeTemp = async (
  temp: string,
  bytes: Buffer,
  mode: number,
  existing: { uid: number; gid: number } | null,
): Promise<void> => {
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
};

/** A new file, created only if none is there: the temp file linked to its name (no rename over one), then unlinked. */
const linkNew = async (temp: string, target: string): Promise<void> => {
  try {
    await link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new FettleError('E_CONFLICT', `${target} appeared while fettle was writing it; nothing was overwritten.`);
    }
    throw error;
  }
  await unlink(temp);
};

/** `target` must already be the real path (symlinks resolved by the caller), so a link stays a link. */
export const replaceFile = async (target: string, bytes: Buffer, options: WriteOptions = {}): Promise<void> => {
  const existing = await replaceable(target);
  if (existing && options.createOnly) {
    throw new FettleError('E_CONFLICT', `${target} appeared while fettle was writing it; nothing was overwritten.`);
  }
  const mode = options.mode ?? existing?.mode ?? 0o644;
  await sweepTemps(target);
  const temp = tempNameFor(target);
  let renamed = false;
  try {
    await writeTemp(temp, bytes, mode, existing);
    await failpoint('replace.temp-synced');
    await checkDirectory(target);
    const held = options.expect && !options.createOnly ? await holdExpected(target, options.expect) : null;
    try {
      await failpoint('replace.checked');
      if (options.createOnly) await linkNew(temp, target);
      else {
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
  /** modification time when it was opened (readDisk sets it) */
  mtimeMs?: number;
}

/** A file can be neither read nor written here: something else is at the path, or a parent is a file. */
export const isNotAFile = (error: unknown): boolean =>
  error instanceof NotAFileError || (error as NodeJS.ErrnoException)?.code === 'ENOTDIR';

/** Node reads at most this much into one Buffer (fs kIoMaxLength); past it readFile throws a RangeError. */
export const MAX_RECORDABLE_BYTES = 2 ** 31 - 1;

/**
 * Files up to this size are read synchronously: on the hook path each of the five thread-pool round trips an
 * asynchronous read takes (open, stat, stat, read, close) costs more than reading a small file; a larger one is
 * read without holding a server's other calls.
 */
const SYNC_READ_MAX = 256 * 1024;
const readFd = promisify(readFile);

/** The bytes and mode on disk, or null when there is no file. */
export const readDisk = async (path: string): Promise<DiskFile | null> => {
  let read: ReturnType<typeof readRegularSync>;
  try {
    read = readRegularSync(path, SYNC_READ_MAX);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const { fd, info, bytes } = read;
  if (bytes) return { bytes, mode: info.mode & 0o7777, mtimeMs: info.mtimeMs };
  try {
    if (info.size > MAX_RECORDABLE_BYTES)
      throw new FettleError(
        'E_TOO_LARGE',
        `${path} is ${(info.size / 2 ** 30).toFixed(1)} GiB, larger than fettle can record (2 GiB).`,
      );
    return { bytes: await readFd(fd), mode: info.mode & 0o7777, mtimeMs: info.mtimeMs };
  } finally {
    closeSync(fd);
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
