// The cross-session registry: for each file, the last session given it whole, and the blob of what it was given
// (that session's baseline, already in the file's store). The first read of a file in another session looks up
// this one entry and says whether the file is unchanged since then, or what changed (core/read-since.ts).
// Keyed by the file's real path, hashed: one small file per path under `reads/last/` in fettle's data directory,
// so a lookup is one file read (ENOENT for a file no session read) and one `cat-file` when there is an entry,
// never a scan of sessions, and the registry grows with the files read, not with the sessions. The last writer
// wins: a lost entry costs a note, never a wrong one (the blob holds exactly the bytes that session was given).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sinceNote } from '../core/read-since';
import { makeOwnDir } from '../io/fettle-dir';
import { swapFile } from '../io/swap-file';
import { readObjects } from '../store/object-read';
import type { Target } from '../store/store';
import { readsDir } from './read-baselines';

export interface LastRead {
  /** the session, as the note names it */
  session: string;
  /** whose reads these were (a session, or one MCP server's conversation): no note is given to the same reader */
  reader: string;
  blob: string;
  /** epoch ms */
  at: number;
}

const registryDir = (dataDir: string): string => join(readsDir(dataDir), 'last');
const entryFile = (dataDir: string, realPath: string): string =>
  join(registryDir(dataDir), `${createHash('sha256').update(realPath).digest('hex').slice(0, 40)}.json`);

/** The last read of the file by any session; null when none is known (or its entry is not this version's). */
export const lastReadOf = (dataDir: string, realPath: string): LastRead | null => {
  let data: Partial<LastRead> & { path?: unknown };
  try {
    data = JSON.parse(readFileSync(entryFile(dataDir, realPath), 'utf8'));
  } catch {
    return null;
  }
  const { session, reader, blob, at } = data;
  // The path is kept to tell apart two paths whose hashes' prefixes meet.
  if (data.path !== realPath || typeof session !== 'string' || typeof reader !== 'string') return null;
  if (typeof blob !== 'string' || typeof at !== 'number') return null;
  return { session, reader, blob, at };
};

export const noteLastRead = async (dataDir: string, realPath: string, last: LastRead): Promise<void> => {
  await makeOwnDir(registryDir(dataDir));
  await swapFile(entryFile(dataDir, realPath), JSON.stringify({ path: realPath, ...last }), 0o600);
};

/**
 * The note for a reader's first read of a file another reader was given whole; undefined when none was, the
 * last was this reader, or its blob is gone (bytes no session is known to have seen are never diffed against).
 */
export const sinceOtherRead = async (
  dataDir: string,
  read: { reader: string; target: Target; bytes: Buffer; now: number },
): Promise<string | undefined> => {
  const last = lastReadOf(dataDir, read.target.realPath);
  if (!last || last.reader === read.reader) return undefined;
  const [object] = await readObjects(read.target.store, [last.blob]);
  if (object?.type !== 'blob') return undefined;
  const input = { path: read.target.realPath, before: object.body, now: read.bytes, session: last.session };
  return sinceNote({ ...input, agoMs: read.now - last.at });
};
