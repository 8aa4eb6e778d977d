// Links a PreToolUse record to its PostToolUse: a small file per tool call under fettle's folder in the git
// dir, named by a hash of the tool_use_id. Losing one only means the "after" bytes go unrecorded; the
// previous bytes are already safe in git.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordFields } from '../../core/record-message';
import { isAlive } from '../../io/pid';
import type { Store } from '../../store/store';
import { fettleDir } from '../../store/worktrees';
import { makeOwnDir } from '../../io/fettle-dir';
import { swapFile } from '../../io/swap-file';

export interface PendingWrite {
  id: string;
  /** the real path written, to check the PostToolUse is about the same file */
  file: string;
  /** digest of the bytes fettle predicted the tool would write, when it could predict them */
  expect?: string | undefined;
  /** bytes of the prediction the tool draws at random (see digest) */
  random?: [number, number] | undefined;
  /** the change's tip and record when PreToolUse wrote it: PostToolUse commits on top without re-reading refs
   * (the compare-and-swap on the ref still catches anyone who moved it) */
  tip?: string | undefined;
  fields?: RecordFields | undefined;
}

/**
 * What must be equal for a prediction to count as what landed: the bytes, but for `random` (the byte range of a
 * value the tool draws at random, a new notebook cell's id), which only has to be there, at the same length.
 */
export const digest = (bytes: Buffer, random?: [number, number]): string => {
  const hash = createHash('sha1');
  if (!random || bytes.length < random[1]) return hash.update(bytes).digest('hex');
  return hash
    .update(bytes.subarray(0, random[0]))
    .update(Buffer.alloc(random[1] - random[0]))
    .update(bytes.subarray(random[1]))
    .digest('hex');
};

const pathFor = (store: Store, toolUseId: string): string =>
  join(linksDir(store.commonDir), `${createHash('sha1').update(toolUseId).digest('hex').slice(0, 20)}.json`);

export const rememberWrite = async (store: Store, toolUseId: string, pending: PendingWrite): Promise<void> => {
  const path = pathFor(store, toolUseId);
  // The folder is made when missing, not before every call: a mkdir is a round trip of its own.
  await swapFile(path, JSON.stringify(pending)).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    await makeOwnDir(join(fettleDir(store), 'tool-use'));
    await swapFile(path, JSON.stringify(pending));
  });
};

/** A record whose ref was not made after all: its link goes (the PostToolUse finds none, as for a failed call). */
export const forgetWrite = (store: Store, toolUseId: string): Promise<void> =>
  unlink(pathFor(store, toolUseId)).catch(() => undefined);

/** The directory of the links, from a store's common dir (the hook's end-of-turn check finds it without git). */
export const linksDir = (commonDir: string): string => join(commonDir, 'fettle', 'tool-use');

export interface Claimed {
  pending: PendingWrite;
  /** the record is settled: the link goes */
  release: () => Promise<void>;
  /** settling failed: the link is put back for the next try */
  restore: () => Promise<void>;
}

const TAKEN = /^(.+\.json)\.(\d+)\.[0-9a-f]+\.taken$/;

/** A claimed file: what it holds, and what to do with it once the claimer is done. */
export interface ClaimedFile<T> {
  value: T;
  /** the work is done: the file goes */
  release: () => Promise<void>;
  /** the work failed: the file is put back for the next try */
  restore: () => Promise<void>;
}

/**
 * Takes the file at `path`: renamed to a name of this process, so that of several processes after the same file
 * exactly one gets it. It stays under that name until released, so a process killed before it finished leaves it
 * for the next one (reclaimDead takes back the files of dead processes). Null when another took it, or it does
 * not hold what `valid` accepts (then it is removed).
 */
export const claimFile = async <T>(
  path: string,
  valid: (value: unknown) => value is T,
): Promise<ClaimedFile<T> | null> => {
  const mine = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.taken`;
  try {
    await rename(path, mine);
  } catch {
    return null;
  }
  const release = () => unlink(mine).catch(() => undefined);
  try {
    const value: unknown = JSON.parse(await readFile(mine, 'utf8'));
    if (valid(value)) return { value, release, restore: () => rename(mine, path).catch(() => undefined) };
  } catch {
    // not one: dropped below
  }
  await release();
  return null;
};

/** Files in `dir` taken by a process that is gone are put back under their own names, to be taken again. */
export const reclaimDead = async (dir: string): Promise<void> => {
  const all = await readdir(dir).catch(() => [] as string[]);
  for (const name of all) {
    const taken = TAKEN.exec(name);
    if (taken?.[1] && !isAlive(Number(taken[2])) && !all.includes(taken[1]))
      await rename(join(dir, name), join(dir, taken[1])).catch(() => undefined);
  }
};

const isPending = (value: unknown): value is PendingWrite =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as PendingWrite).id === 'string' &&
  typeof (value as PendingWrite).file === 'string';

/**
 * Takes the link at `path` (see claimFile), so that of a PostToolUse and a settling of the same record
 * (src/protocol/settle.ts) exactly one gets it.
 */
export const claimLink = async (path: string): Promise<Claimed | null> => {
  const claimed = await claimFile(path, isPending);
  return claimed && { pending: claimed.value, release: claimed.release, restore: claimed.restore };
};

/**
 * The record started for this tool call, claimed; null when there is none. The caller releases the link once the
 * record is complete: a PostToolUse the client cancels half-way (it does at exit) leaves it claimed by a dead
 * process, so the next settling takes it back (openLinks) instead of the record staying incomplete for good.
 */
export const claimWrite = (store: Store, toolUseId: string): Promise<Claimed | null> =>
  claimLink(pathFor(store, toolUseId));

export interface OpenLink {
  /** the link file */
  path: string;
  pending: PendingWrite;
  /** when PreToolUse wrote it (ms since the epoch) */
  writtenAt: number;
}

/** A claimable JSON file (see claimFile) as read: what it holds, parsed but not yet checked. */
export interface OpenFile {
  path: string;
  value: unknown;
  /** when it was written (ms since the epoch) */
  writtenAt: number;
}

/**
 * The claimable files in `dir` whose name `wanted` accepts, after taking back those of dead claimers (reclaimDead).
 * Small files, read at once, no git; one that is unreadable or not JSON is skipped.
 */
export const openFiles = async (dir: string, wanted: (name: string) => boolean): Promise<OpenFile[]> => {
  await reclaimDead(dir);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && wanted(n));
  const found = await Promise.all(
    names.map(async (name): Promise<OpenFile | null> => {
      const path = join(dir, name);
      try {
        const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
        return { path, value: JSON.parse(text) as unknown, writtenAt: info.mtimeMs };
      } catch {
        return null;
      }
    }),
  );
  return found.filter((f): f is OpenFile => f !== null);
};

/**
 * Every link in `dir` (of one agent session when `session` is given): records whose tool call has not reported
 * back. An unreadable or foreign file is skipped.
 */
export const openLinks = async (dir: string, session?: string): Promise<OpenLink[]> =>
  (await openFiles(dir, () => true)).flatMap(({ path, value, writtenAt }) =>
    isPending(value) && (session === undefined || value.fields?.session === session)
      ? [{ path, pending: value, writtenAt }]
      : [],
  );
