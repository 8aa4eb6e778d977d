// A marker per Bash command in flight in a repository (`<common-dir>/fettle/bash-flight/`), so a PostToolUse can
// tell that another Bash call ran at the same time and say that attribution is ambiguous.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeOwnDir } from '../../io/fettle-dir';

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

const flightDir = (commonDir: string): string => join(commonDir, 'fettle', 'bash-flight');

/** A Bash call that ran in this repository: when it began and (once its result was recorded) ended. */
export interface Flight {
  session?: string | undefined;
  toolUse: string;
  start: number;
  end?: number | undefined;
}

/** Ended calls are remembered this long: a call still running then may have overlapped them. */
const FLIGHT_MEMORY_MS = 60 * 60 * 1000;

const flightPath = (commonDir: string, toolUse: string) =>
  join(flightDir(commonDir), `${sha1(toolUse).slice(0, 24)}.json`);

export const startFlight = async (commonDir: string, flight: Flight): Promise<void> => {
  await makeOwnDir(flightDir(commonDir));
  await writeFile(flightPath(commonDir, flight.toolUse), JSON.stringify(flight));
};

/** Forgets a call that changed nothing: no other call's changes can be its (see bash.ts settleSnapshot). */
export const dropFlight = async (commonDir: string, flight: Flight): Promise<void> => {
  try {
    unlinkSync(flightPath(commonDir, flight.toolUse)); // on the answer's path: no thread pool's round trip
  } catch {
    // gone already
  }
};

/**
 * Marks the call ended (at the filesystem's clock, as its start was), and returns the other calls whose time
 * overlapped it (another session's, or a background command's). Markers of calls long over go on the way.
 */
export const endFlight = async (commonDir: string, flight: Flight): Promise<Flight[]> => {
  const dir = flightDir(commonDir);
  const path = flightPath(commonDir, flight.toolUse);
  await makeOwnDir(dir);
  await writeFile(path, JSON.stringify(flight));
  const nowMs = Math.floor((await stat(path)).mtimeMs);
  const mine = { ...flight, end: nowMs };
  const others: Flight[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    let other: Flight;
    try {
      other = JSON.parse(await readFile(path, 'utf8')) as Flight;
    } catch {
      continue;
    }
    if (typeof other.start !== 'number' || typeof other.toolUse !== 'string') continue;
    if (other.toolUse === flight.toolUse) continue;
    if ((other.end ?? other.start) < nowMs - FLIGHT_MEMORY_MS) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (other.start < mine.end && (other.end === undefined || other.end > mine.start)) others.push(other);
  }
  await writeFile(path, JSON.stringify(mine)).catch(() => undefined);
  return others;
};
