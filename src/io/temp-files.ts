// The temp files atomic-write.ts renames over a target: named beside it with a marker and the writer's pid, so
// that one a killed fettle left is told from the user's files and removed.
import { randomBytes } from 'node:crypto';
import { readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from './pid';

/** Temp files carry this marker so a later run can tell fettle's leftovers from the user's files. */
export const TEMP_MARKER = '.fettle-';

export const tempNameFor = (target: string): string =>
  join(dirname(target), `.${basename(target)}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString('hex')}.tmp`);

/** Removes temp files a killed fettle left beside `target` (its pid is dead); never anyone else's files. */
export const sweepTemps = async (target: string): Promise<void> => {
  const prefix = `.${basename(target)}${TEMP_MARKER}`;
  const names = await readdir(dirname(target)).catch(() => [] as string[]);
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? Number.parseInt(name.slice(prefix.length), 10) : NaN;
    if (pid > 0 && pid !== process.pid && !isAlive(pid))
      await unlink(join(dirname(target), name)).catch(() => undefined);
  }
};
