// What the Bash hook keeps between a command's PreToolUse and its PostToolUse, in small files (no git, no ref):
//   - the snapshot (`<data-dir>/bash/<session>-<call>.json`): what every path git listed held before the command,
//     keyed by the tool call; in fettle's data directory, not a repository, because the PostToolUse of a command
//     that changed directory must still find it, and the end of a turn finds a session's own by their name;
//   - a marker per command in flight in a repository (bash-flight.ts);
//   - a stat cache per work tree (bash-cache.ts).
// The snapshot's blobs are written (and fsynced) before it is; losing any of these files costs a record, never
// bytes in the user's tree, which fettle does not touch here.
import { statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { PreEntry } from '../../core/bash-changes';
import type { WorkStatus } from '../../core/porcelain';
import { makeOwnDir } from '../../io/fettle-dir';
import { swapFileSync } from '../../io/swap-file';
import { isAlive } from '../../io/pid';
import { removeStaleFiles, type Aging } from '../../io/stale-files';
import { callFileName, claimFile, markCall, openFiles, sessionTag, type ClaimedFile } from '../record/call-files';

export const snapshotsDir = (dataDir: string): string => join(dataDir, 'bash');

/** The snapshot's name: the session's tag (so the end of a turn finds its own), then the call's. */
const snapshotName = (session: string | undefined, toolUse: string): string => callFileName(session, toolUse);

export const snapshotPath = (dataDir: string, session: string | undefined, toolUse: string): string =>
  join(snapshotsDir(dataDir), snapshotName(session, toolUse));

/** The state of a work tree before a Bash command. */
export interface Snapshot {
  version: 1;
  session?: string | undefined;
  toolUse: string;
  /** the coding agent whose shell ran the command (Fettle-Agent) */
  agent?: string | undefined;
  /** the agent's name for its shell tool (Fettle-Tool); Bash when absent */
  tool?: string | undefined;
  /** the command line, as the record will carry it */
  command: string;
  /** the session's turn when the command began */
  turn?: number | undefined;
  workTree: string;
  commonDir: string;
  /** HEAD's commit then (null: unborn) */
  head: string | null;
  /** the filesystem's clock when the snapshot began (the ctime of its marker), in nanoseconds */
  startNs: string;
  /** the same moment, in milliseconds of the wall clock (for overlap with other calls and for age) */
  startedAt: number;
  entries: PreEntry[];
  /** paths git listed that are not recorded: submodules, nested repositories, names that are not UTF-8 */
  kept: WorkStatus['kept'];
}

const isSnapshot = (value: unknown): value is Snapshot => {
  const s = value as Snapshot;
  return (
    typeof s === 'object' &&
    s !== null &&
    s.version === 1 &&
    typeof s.toolUse === 'string' &&
    typeof s.workTree === 'string' &&
    typeof s.startNs === 'string' &&
    Array.isArray(s.entries)
  );
};

/**
 * Claims the snapshot's name before anything is read, by creating it exclusively: a retried PreToolUse, or
 * fettle installed twice (the client runs both hooks at once), finds it taken and does nothing. Returns the
 * filesystem's clock at that moment (the marker's ctime, ns), or null when taken.
 */
export const claimSnapshot = async (path: string): Promise<bigint | null> => {
  // The steps before the status and after it are synchronous: each costs microseconds, where a round trip through
  // libuv's thread pool costs more, and on a busy machine milliseconds, on every Bash call (docs/PERFORMANCE.md).
  const dir = join(path, '..');
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) await makeOwnDir(dir);
  if (!(await markCall(path))) return null;
  return statSync(path, { bigint: true }).ctimeNs;
};

/** The snapshot, in place of its marker (a temp file renamed over it: a reader sees a marker or the whole). */
export const saveSnapshot = async (path: string, snapshot: Snapshot): Promise<void> => {
  swapFileSync(path, JSON.stringify(snapshot));
};

/** Drops a snapshot's marker or the snapshot (the PreToolUse failed, or the command changed nothing). */
export const dropSnapshot = (path: string): Promise<void> => unlink(path).catch(() => undefined);

/** Takes the snapshot of a call to settle it; null when there is none or another process has it. */
export const takeSnapshot = (path: string): Promise<ClaimedFile<Snapshot> | null> => claimFile(path, isSnapshot);

export interface OpenSnapshot {
  path: string;
  snapshot: Snapshot;
  /** when it was written (ms) */
  writtenAt: number;
}

/** The session's snapshots no PostToolUse took: commands whose result was not recorded. Files only. */
export const openSnapshots = async (dataDir: string, session: string): Promise<OpenSnapshot[]> => {
  const tag = sessionTag(session);
  const found: OpenSnapshot[] = [];
  for (const { path, value, writtenAt } of await openFiles(snapshotsDir(dataDir), (n) => n.startsWith(tag))) {
    // A marker whose writer is alive is a snapshot being taken; a dead writer's is litter.
    const pid = (value as { pid?: unknown } | null)?.pid;
    if (typeof pid === 'number' && !isAlive(pid)) await dropSnapshot(path);
    if (isSnapshot(value) && value.session === session) found.push({ path, snapshot: value, writtenAt });
  }
  return found;
};

/** `fettle gc`: snapshots (and leftovers) older than `maxAgeMs`; removed unless `dryRun`. Returns their names. */
export const staleSnapshots = (dataDir: string, o: Aging): Promise<string[]> =>
  removeStaleFiles(snapshotsDir(dataDir), o);
