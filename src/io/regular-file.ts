// Opening a path only when it is a regular file, without hanging on a FIFO or reading a device without end.
import { constants as fsConstants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { FettleError } from '../errors';

/** Something is at the path, but not a regular file (a directory, a FIFO, a device, a socket). */
export class NotAFileError extends FettleError {
  constructor(path: string, what: string) {
    super('E_IO', `${path} is not a regular file (${what}).`);
  }
}

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
