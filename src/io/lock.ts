// A git-style lock file: O_CREAT|O_EXCL makes a second holder fail; the file records the holder's pid so a
// lock left behind by a killed process can be taken over, while a live holder's lock never is.
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FettleError } from '../errors';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface LockOptions {
  /** how long to wait for a live holder, in ms */
  timeoutMs?: number;
}

export const withLock = async <T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> => {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  await mkdir(dirname(lockPath), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
      // The holder died without cleaning up (SIGKILL cannot be caught). Take the lock over.
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new FettleError('E_LOCKED', `${lockPath} is held by another fettle process${holder ? ` (pid ${holder})` : ''}.`, {
        hint: 'Wait for it to finish and retry. If no fettle process is running, delete the lock file.',
      });
    }
    // Quadratic backoff with jitter, as git's lock_file_timeout does.
    await sleep(Math.min(100, 1 + attempt * attempt) * (0.75 + Math.random() / 2));
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
};
