// A file's bytes as fettle reads any file it serves or records: a regular file only, opened without waiting
// (a FIFO or device is refused), null when there is none.
import { type DiskFile, readDisk } from '../io/atomic-write';

export const readUserFile = async (path: string): Promise<Buffer | null> => (await readDisk(path))?.bytes ?? null;

/** readUserFile with the file's permission bits (what it records is kept no more readable than the file). */
export const readUserDisk = (path: string): Promise<DiskFile | null> => readDisk(path);
