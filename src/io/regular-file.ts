// Opening a path only when it is a regular file, without hanging on a FIFO or reading a device without end.
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { FettleError } from '../errors';

/** Something is at the path, but not a regular file (a directory, a FIFO, a device, a socket). */
export class NotAFileError extends FettleError {
  constructor(path: string, what: string) {
    super('E_IO', `${path} is not a regular file (${what}).`);
  }
}

const FLAGS = fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY;

/**
 * Opens `path` for reading only if it is a regular file. O_NONBLOCK: opening a FIFO for reading otherwise waits
 * for a writer (forever), and a device can answer without end (/dev/zero); the type is checked on the opened
 * descriptor, so a swap between a stat and the open cannot slip one in. On regular files the flag is inert.
 */
export const openRegular = async (path: string) => {
  const handle = await open(path, FLAGS);
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

/**
 * openRegular's checks, synchronously, and the bytes when the file is at most `upTo` bytes long (read to its end:
 * it may grow meanwhile); `bytes` is null for a larger file, whose descriptor is returned open for the caller.
 */
export const readRegularSync = (path: string, upTo: number): { fd: number; info: Stats; bytes: Buffer | null } => {
  const fd = openSync(path, FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new NotAFileError(path, kindOfEntry(info));
    if (info.size > upTo) return { fd, info, bytes: null };
    const chunks: Buffer[] = [];
    let size = 0;
    for (let chunk = Buffer.allocUnsafe(info.size + 1); ; chunk = Buffer.allocUnsafe(64 * 1024)) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      size += n;
    }
    closeSync(fd);
    return { fd: -1, info, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
};
