// Links a PreToolUse record to its PostToolUse: a small file per tool call under fettle's folder in the git
// dir, named by a hash of the tool_use_id. Losing one only means the "after" bytes go unrecorded; the
// previous bytes are already safe in git.
import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordFields } from '../../core/record-message';
import type { Store } from '../../store/store';
import { fettleDir } from '../../store/worktrees';
import { makeOwnDir } from '../../io/fettle-dir';
import { swapFile } from '../../io/swap-file';
import { claimFile, openFiles } from './call-files';

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
  /** lines the predicted bytes modify in place (core/diff.ts), for the note when exactly those land */
  modified?: number | undefined;
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

const isPending = (value: unknown): value is PendingWrite =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as PendingWrite).id === 'string' &&
  typeof (value as PendingWrite).file === 'string';

/**
 * Takes the link at `path` (see claimFile), so that of a PostToolUse and a settling of the same record
 * (src/protocol/record/settle.ts) exactly one gets it.
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
