// What each session was last given of each file it read through fettle (its baseline), so a re-read can be
// answered from it (core/reread.ts). The bytes are a blob in the file's store, written as any recorded bytes are;
// the index of one session is a small file in fettle's data directory, `reads/<session>.json`, never shared: a
// session is only ever diffed against bytes it was given itself. The index also keeps the session's meter (bytes a
// plain read would have sent, bytes sent). A lost or unreadable index costs the session its next re-reads' saving,
// never a wrong answer: without a baseline a file is sent whole.
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionName } from '../core/session';
import { makeOwnDir } from '../io/fettle-dir';
import { swapFile } from '../io/swap-file';
import { readObjects } from '../store/object-read';
import { writeFileBlobs } from '../store/objects';
import type { Store } from '../store/store';

export interface ReadMeter {
  reads: number;
  /** reads answered with a line or a diff instead of the file */
  saved: number;
  /** bytes plain reads would have sent, and bytes sent */
  plainBytes: number;
  sentBytes: number;
}

/** When a session was given a file's bytes: epoch ms, and its turn where the client counts turns. */
export interface Seen {
  at: number;
  turn?: number | undefined;
}

export interface Baseline extends Seen {
  blob: string;
  /** the file's modification time when it held these bytes, where the client's own read state keys on it */
  mtime?: number;
  /** re-reads answered "unchanged" since the baseline last moved */
  answered?: number;
}

export interface ReadIndex {
  files: Record<string, Baseline>;
  meter: ReadMeter;
}

const VERSION = 1;
export const readsDir = (dataDir: string): string => join(dataDir, 'reads');
const indexFile = (dataDir: string, session: string): string => join(readsDir(dataDir), `${sessionName(session)}.json`);

const emptyIndex = (): ReadIndex => ({ files: {}, meter: { reads: 0, saved: 0, plainBytes: 0, sentBytes: 0 } });

const parseIndex = (text: string): ReadIndex => {
  const data = JSON.parse(text) as { v?: unknown } & Partial<ReadIndex>;
  if (data.v !== VERSION || typeof data.files !== 'object' || typeof data.meter !== 'object') return emptyIndex();
  return { files: data.files ?? {}, meter: { ...emptyIndex().meter, ...data.meter } };
};

/** The session's index; empty when there is none, or it is not what this version writes. */
export const loadReads = (dataDir: string, session: string): ReadIndex => {
  try {
    // a few KB read on every read call: synchronously, as the turn count is
    return parseIndex(readFileSync(indexFile(dataDir, session), 'utf8'));
  } catch {
    return emptyIndex();
  }
};

export const saveReads = async (dataDir: string, session: string, index: ReadIndex): Promise<void> => {
  await makeOwnDir(readsDir(dataDir));
  await swapFile(indexFile(dataDir, session), JSON.stringify({ v: VERSION, ...index }), 0o600);
};

/** The bytes of a file's baseline, with when they were given; null when there is none or its blob is gone. */
export const baselineOf = async (
  store: Store,
  index: ReadIndex,
  realPath: string,
): Promise<({ bytes: Buffer } & Baseline) | null> => {
  const entry = index.files[realPath];
  if (!entry) return null;
  const [object] = await readObjects(store, [entry.blob]);
  return object?.type === 'blob' ? { bytes: object.body, ...entry } : null;
};

/**
 * These bytes are now what the session has seen of the file: its blob is written (no more readable than the file,
 * `mode`), the index points at it. Returns the blob.
 */
export const moveBaseline = async (
  store: Store,
  index: ReadIndex,
  file: { realPath: string; bytes: Buffer; mode?: number; mtimeMs?: number | undefined },
  seen: Seen,
): Promise<string | undefined> => {
  const [blob] = await writeFileBlobs(store, [{ bytes: file.bytes, fileMode: file.mode }]);
  if (!blob) return undefined;
  const { turn } = seen;
  const mtime = file.mtimeMs;
  index.files[file.realPath] = {
    blob,
    at: seen.at,
    ...(turn === undefined ? {} : { turn }),
    ...(mtime === undefined ? {} : { mtime }),
  };
  return blob;
};

/** What the session holds of the file is no longer known: its next read is a first read. False: it had none. */
export const forgetBaseline = (index: ReadIndex, realPath: string): boolean => {
  if (!(realPath in index.files)) return false;
  delete index.files[realPath];
  return true;
};

/** Every baseline of the conversation dropped (its model no longer holds what it read). False: it had none. */
export const forgetAllReads = async (dataDir: string, key: string): Promise<boolean> => {
  const index = loadReads(dataDir, key);
  if (Object.keys(index.files).length === 0) return false;
  index.files = {};
  await saveReads(dataDir, key, index);
  return true;
};

/** One read on the meter: what a plain read would have sent, what was sent, and whether that was short. */
export const meterRead = (index: ReadIndex, read: { plainBytes: number; sentBytes: number; short: boolean }): void => {
  const m = index.meter;
  m.reads++;
  if (read.short) m.saved++;
  m.plainBytes += read.plainBytes;
  m.sentBytes += read.sentBytes;
};

/** Writes through fettle by this session: a later read is compared with what it wrote. */
export const wroteFiles = async (
  dataDir: string,
  session: string,
  store: Store,
  wrote: { files: { realPath: string; bytes: Buffer }[] } & Seen,
): Promise<void> => {
  if (wrote.files.length === 0) return;
  const index = loadReads(dataDir, session);
  for (const file of wrote.files) await moveBaseline(store, index, file, wrote);
  await saveReads(dataDir, session, index);
};

/** Every session's meter, by session file name (what `fettle info` shows). */
export const readMeters = async (dataDir: string): Promise<{ session: string; meter: ReadMeter }[]> => {
  const names = await readdir(readsDir(dataDir)).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => ({ session: n.slice(0, -5), meter: loadReads(dataDir, n.slice(0, -5)).meter }))
    .filter((s) => s.meter.reads > 0);
};

export interface ReadSavings {
  sessions: number;
  reads: number;
  /** reads answered with a line or a diff */
  answeredShort: number;
  plainBytes: number;
  sentBytes: number;
  /** bytes saved ÷ 4: an estimate of tokens, not a tokenizer's count */
  estimatedTokensSaved: number;
  bySession: ({ session: string } & ReadMeter)[];
}

/** The meters of every session that read through fettle, and their sum (`fettle info`). */
export const readSavings = async (dataDir: string): Promise<ReadSavings> => {
  const all = await readMeters(dataDir);
  const sum = (k: keyof ReadMeter) => all.reduce((n, s) => n + s.meter[k], 0);
  const [plainBytes, sentBytes] = [sum('plainBytes'), sum('sentBytes')];
  return {
    sessions: all.length,
    reads: sum('reads'),
    answeredShort: sum('saved'),
    plainBytes,
    sentBytes,
    estimatedTokensSaved: Math.round(Math.max(0, plainBytes - sentBytes) / 4),
    bySession: all.map((s) => ({ session: s.session, ...s.meter })),
  };
};
