// The commits a change starts with, and the fresh id it is recorded under: the file as it was (on top of HEAD),
// and for a staged change the proposal on top of it, written in one batch. record.ts publishes them.
import { FettleError } from '../../errors';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import {
  blobId,
  type CommitSpec,
  commitId,
  planTrees,
  type RecordObjects,
  rootOf,
  writeRecord,
} from '../../store/objects';
import { headCommit, readLevels } from '../../store/object-read';
import type { Store } from '../../store/store';
import { levelsAfter } from '../../store/tree-codec';
import { newId } from '../ids';

const MAX_ID_ATTEMPTS = 5;

/**
 * A commit on top of HEAD (none when unborn) whose tree holds the file as it is on disk now; with `next`, also
 * a proposal commit on top of it. The blobs are written while one `cat-file` reads the trees along the path;
 * trees and commits are computed in memory and written in one batch: the hook path's spawns are few, and none
 * grows with the repository. Returns the commits' ids (before, then proposal) and every object written.
 */
export interface BeforeSpec {
  path: string;
  old: DiskFile | null;
  messages: { before: string; proposal?: string };
  when: Date;
  /** a staged change's proposed bytes (a proposal commit on top of `before`) */
  next?: { bytes: Buffer; mode: string } | undefined;
  /** blobs the caller already wrote, not written again */
  stored?: { old?: string; next?: string } | undefined;
  /** commits planned elsewhere (a superseded proposal's marker), written in the same batch */
  extra?: CommitSpec[] | undefined;
}

export const commitBefore = async (
  store: Store,
  { path, old, messages, when, next, stored, extra = [] }: BeforeSpec,
  /** started with the commits' ids once they are known, and awaited with the objects' fsyncs (see writePack) */
  alongside?: (commits: string[]) => Promise<unknown> | undefined,
): Promise<{ commits: string[]; written: string[]; trees: string[] }> => {
  const head = headCommit(store);
  const reading = readLevels(store, head ? `${head}^{tree}` : null, path); // cat-file works while blobs are hashed
  reading.catch(() => undefined); // awaited below: a failure while blobs are hashed must not go unhandled meanwhile
  const oldBlob = old ? (stored?.old ?? blobId(store, old.bytes)) : undefined;
  const nextBlob = next ? (stored?.next ?? blobId(store, next.bytes)) : undefined;
  const blobs: RecordObjects['blobs'] = [];
  if (old && oldBlob && !stored?.old) blobs.push({ bytes: old.bytes, oid: oldBlob, fileMode: old.mode });
  if (next && nextBlob && !stored?.next) blobs.push({ bytes: next.bytes, oid: nextBlob, fileMode: old?.mode });
  const levels = await reading;
  await failpoint('record.blob-written');
  const before = planTrees(store, levels, path, old && oldBlob ? { mode: gitModeOf(old.mode), oid: oldBlob } : null);
  const after =
    next && nextBlob ? planTrees(store, levelsAfter(levels, before), path, { mode: next.mode, oid: nextBlob }) : [];
  const first: CommitSpec = { tree: rootOf(before), parents: head ? [head] : [], message: messages.before, when };
  const commits = [first];
  if (after.length > 0 && messages.proposal !== undefined) {
    commits.push({ tree: rootOf(after), parents: [commitId(store, first)], message: messages.proposal, when });
  }
  const all = [...commits, ...extra];
  const joined = alongside?.(all.map((c) => commitId(store, c)));
  joined?.catch(() => undefined); // awaited by writeRecord, or by the caller when writing fails first
  const ids = await writeRecord(store, { blobs, trees: [...before, ...after], commits: all }, joined);
  const written = [oldBlob, nextBlob].filter((b): b is string => !!b);
  const trees = [...before, ...after].map((t) => t.oid);
  return { commits: ids, written: [...written, ...trees, ...ids], trees: commits.map((c) => c.tree) };
};

/** Creates refs/fettle/<id> for a fresh id; a taken id fails the CAS and another is drawn. */
export const withFreshId = async <T>(attempt: (id: string) => Promise<T>): Promise<T> => {
  for (let n = 1; ; n++) {
    try {
      return await attempt(newId());
    } catch (error) {
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT') || n >= MAX_ID_ATTEMPTS) throw error;
    }
  }
};
