// `fettle gc`: what the reads keep in fettle's data directory (read-baselines.ts, read-registry.ts) for sessions
// idle longer than the history kept. A session's index and a path's cross-session entry are rewritten on each
// read, so their mtime is their last use. Removing one costs a later re-read its saving, never a wrong answer: a
// file with no baseline is sent whole, and a path with no entry gets no note.
import { join } from 'node:path';
import { removeStaleFiles, type Aging } from '../io/stale-files';
import { readsDir } from './read-baselines';

// A writer's temp file is left to it (swap-file.ts removes its own).
const isIndex = (name: string): boolean => name.endsWith('.json');

export const staleReads = async (dataDir: string, o: Aging): Promise<string[]> => [
  ...(await removeStaleFiles(readsDir(dataDir), o, isIndex)).map((name) => join('reads', name)),
  ...(await removeStaleFiles(join(readsDir(dataDir), 'last'), o, isIndex)).map((name) => join('reads', 'last', name)),
];
