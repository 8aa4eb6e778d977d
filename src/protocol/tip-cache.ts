// What the tip commit of each of fettle's refs says (its time, parents and parsed record), kept by commit id in
// `<common-dir>/fettle/tips.json`: a commit never changes, so `status` and `log` read a thousand records from one
// JSON file instead of git printing, and fettle parsing, a thousand messages (docs/PERFORMANCE.md, case 7). Only
// commits not in it are read, in one cat-file; ids no ref names any more are dropped when it is written again.
// Losing it costs one slower listing.
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRecord, RECORD_PARSE_VERSION, type RecordFields } from '../core/record-message';
import { makeOwnDir } from '../io/fettle-dir';
import { swapFile } from '../io/swap-file';
import { GitError } from '../store/git';
import { readObjects } from '../store/object-read';
import type { Store } from '../store/store';

export interface Tip {
  ref: string;
  oid: string;
  /** committer time, epoch seconds */
  time: number;
  parents: string[];
  /** null: not one of fettle's records (a session's commit, or something else) */
  fields: RecordFields | null;
}

/** time, parents (space-separated), fields */
type Entry = [number, string, RecordFields | null];

const cachePath = (commonDir: string): string => join(commonDir, 'fettle', 'tips.json');

const isEntry = (e: unknown): e is Entry => {
  if (!Array.isArray(e) || e.length !== 3 || typeof e[0] !== 'number' || typeof e[1] !== 'string') return false;
  const f = e[2] as Partial<RecordFields> | null;
  return f === null || (typeof f.id === 'string' && typeof f.kind === 'string' && typeof f.path === 'string');
};

/** A commit object as the cache keeps it; null for anything else. */
const entryOf = (object: { type: string; body: Buffer } | null): Entry | null => {
  if (object?.type !== 'commit') return null;
  const text = object.body.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = split < 0 ? text : text.slice(0, split);
  const parents = [...headers.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1] ?? '');
  const time = Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(headers)?.[1] ?? 0);
  return [time, parents.join(' '), parseRecord(split < 0 ? '' : text.slice(split + 2))];
};

/** The cache as it was written; empty when it is absent, unreadable, of another version or not what was written. */
const readCache = (commonDir: string): Map<string, Entry> => {
  const cache = new Map<string, Entry>();
  try {
    // One read of a few hundred KB: synchronously, without the thread pool's round trips.
    const data = JSON.parse(readFileSync(cachePath(commonDir), 'utf8')) as { v?: unknown; tips?: unknown };
    if (data.v !== RECORD_PARSE_VERSION || typeof data.tips !== 'object' || data.tips === null) return cache;
    const tips = data.tips as Record<string, unknown>;
    for (const oid in tips) {
      const entry = tips[oid];
      if (isEntry(entry)) cache.set(oid, entry);
    }
  } catch {
    // none yet, or not readable: the commits are read from git
  }
  return cache;
};

const writeCache = async (commonDir: string, entries: Map<string, Entry>): Promise<void> => {
  const path = cachePath(commonDir);
  const data = JSON.stringify({ v: RECORD_PARSE_VERSION, tips: Object.fromEntries(entries) });
  const dir = join(path, '..');
  // a cache: a read-only repository, or a full disk, only costs the next listing its speed. It holds what the
  // records say (paths, reasons), so whoever may not enter fettle's folder may not read it either.
  await makeOwnDir(dir)
    .then(async () => swapFile(path, data, (await stat(dir)).mode & 0o660))
    .catch(() => undefined);
};

/**
 * Whether a listing rewrites the cache: not for every record new since (a `status` after each write would rewrite
 * ~440 KB at 1,000 changes), but once the commits read from git, or the ids no ref names, reach WRITE_AFTER or a
 * quarter of the listing. Fewer are read in the same one cat-file at little cost.
 */
const WRITE_AFTER = 32;
export const worthWriting = (unknown: number, stale: number, listed: number): boolean => {
  const bar = Math.min(WRITE_AFTER, Math.max(1, Math.ceil(listed / 4)));
  return unknown >= bar || stale >= bar;
};

/**
 * The tips of `refs` (as for-each-ref lists them): read from the cache, and the commits it does not hold in one
 * cat-file. A ref whose commit is missing fails as git's own listing would.
 */
export const readTips = async (store: Store, refs: { ref: string; oid: string }[]): Promise<Tip[]> => {
  const cache = readCache(store.commonDir);
  const named = new Set<string>();
  const unknown: string[] = [];
  for (const { oid } of refs) {
    if (named.has(oid)) continue;
    named.add(oid);
    if (!cache.has(oid)) unknown.push(oid);
  }
  const read = await readObjects(store, unknown);
  unknown.forEach((oid, n) => {
    const entry = entryOf(read[n] ?? null);
    if (entry) cache.set(oid, entry);
  });
  const tips: Tip[] = [];
  for (const { ref, oid } of refs) {
    const entry = cache.get(oid);
    if (!entry) throw new GitError(['for-each-ref'], 128, `fatal: missing object ${oid} for ${ref}`);
    tips.push({ ref, oid, time: entry[0], parents: entry[1] ? entry[1].split(' ') : [], fields: entry[2] });
  }
  let stale = 0;
  for (const oid of cache.keys()) if (!named.has(oid)) stale++;
  if (worthWriting(unknown.length, stale, named.size)) {
    for (const oid of cache.keys()) if (!named.has(oid)) cache.delete(oid);
    await writeCache(store.commonDir, cache);
  }
  return tips;
};
