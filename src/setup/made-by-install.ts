// What an install made for a file it created (the file, and the first directory it had to make for it), kept in
// fettle's data dir, so uninstall takes away exactly that and leaves what was there before.
import { createHash } from 'node:crypto';
import { readFile, rm, rmdir, writeFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { dataDirFrom, type Env } from '../config';

const markerOf = (env: Env, path: string): string =>
  join(dataDirFrom(env), 'settings-created', createHash('sha1').update(path).digest('hex').slice(0, 20));

/** Install created `path`; `made`: the first directory it made for it (mkdir's answer), if any. */
export const rememberCreated = async (env: Env, path: string, made: string | undefined): Promise<void> => {
  const marker = markerOf(env, path);
  await mkdir(dirname(marker), { recursive: true });
  await writeFile(marker, `${path}\n${made ?? ''}\n`);
};

/** Install found `path` there, or uninstall removed it: nothing of it is install's to remove. */
export const forgetCreated = async (env: Env, path: string): Promise<void> => {
  await rm(markerOf(env, path), { force: true });
};

/** Whether install created `path`, and the first directory it made for it ('' for none). */
export const createdBy = async (env: Env, path: string): Promise<{ made: string } | null> => {
  const text = await readFile(markerOf(env, path), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return text === null ? null : { made: text.split('\n')[1] ?? '' };
};

/** rmdir from `dir` up to and including `top`, stopping at the first that is not empty. */
export const removeEmptyUpTo = async (dir: string, top: string): Promise<void> => {
  const rel = relative(top, dir);
  if (rel.startsWith('..') || isAbsolute(rel)) return;
  try {
    await rmdir(dir);
  } catch {
    return; // not empty (or gone): leave it, and everything above it
  }
  if (dir !== top) await removeEmptyUpTo(dirname(dir), top);
};
