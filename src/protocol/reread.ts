// A session's read of a file, answered from what the session was last given of it (core/reread.ts decides),
// for every client that reads through fettle: fettle_read (mcp/read-tool.ts) and Claude Code's Read hook
// (hook/reread.ts). Each edge keeps its own bookkeeping (when the baseline moves, what the meter counts), since
// the clients differ in what reaches the model; what an answer says is decided here, once.
import { decideReread, type LineWindow, type Reread } from '../core/reread';
import { type DiskFile, isNotAFile, readDisk } from '../io/atomic-write';
import { locateTarget } from '../store/locate';
import type { Target } from '../store/store';
import type { Context } from './context';
import { type Baseline, baselineOf, loadReads, type ReadIndex, type Seen } from './read-baselines';

/** Where a read file's baseline is kept: its store, no recovery run (a read records nothing). */
export const readTarget = (ctx: Context, path: string): Promise<Target> =>
  locateTarget(path, ctx.cwd, ctx.env, ctx.config.dataDir);

/** The file a read is of; null when no regular file is there (a directory, a FIFO: the tool says what it is). */
export const readFileOf = (path: string): Promise<DiskFile | null> =>
  readDisk(path).catch((error: unknown) => {
    if (isNotAFile(error)) return null;
    throw error;
  });

/** When a read was, as the model is told it: its turn where the client counts turns, else the time of day. */
export const seenWords = (seen: Seen): string =>
  seen.turn === undefined ? `${new Date(seen.at).toISOString().slice(11, 19)} UTC` : `turn ${seen.turn}`;

export interface ReadRequest {
  session: string;
  target: Target;
  /** the file's bytes now */
  bytes: Buffer;
  /** the lines asked for; absent: the whole file */
  window?: LineWindow | undefined;
}

export interface ReadAnswer {
  index: ReadIndex;
  answer: Reread;
  /** what the answer was measured against, when there is a baseline */
  baseline: ({ bytes: Buffer } & Baseline) | null;
}

/** The session's index and what a read sends against its baseline: `first` when it has none. */
export const answerRead = async (ctx: Context, r: ReadRequest): Promise<ReadAnswer> => {
  const index = loadReads(ctx.config.dataDir, r.session);
  const base = await baselineOf(r.target.store, index, r.target.realPath);
  if (!base) return { index, answer: { kind: 'first' }, baseline: null };
  const answer = decideReread({
    path: r.target.realPath,
    baseline: base.bytes,
    now: r.bytes,
    ...(r.window ? { window: r.window } : {}),
    seenAt: seenWords(base),
  });
  return { index, answer, baseline: base };
};
