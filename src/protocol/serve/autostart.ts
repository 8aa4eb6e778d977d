// Starting the resident server from a command hook that found none running (docs/RESIDENT.md, "Started by the
// first hook call"), so that the calls after it are handed to the server (hook/thin.ts) with no setup step. The
// hook has already answered: the server starts in the background, in a session of its own, and is never waited
// for. It sets itself up (port, token) on its first start. A marker in the server's directory keeps hook calls
// from each starting one: its time is the last try, or a failed start's "not before".
import { closeSync, mkdirSync, openSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUTOSTART_FAILED_WAIT_MS,
  AUTOSTART_VAR,
  autostartVerdict,
  type AutostartVerdict,
} from '../../core/serve-autostart';
import { startDetached } from '../detached';
import { ownOnly, type ServePaths } from './serve-paths';

export const autostartMarker = (paths: ServePaths): string => join(paths.dir, 'autostart');

/** The server's directory, made if need be; false when another user could enter it (the server would refuse it). */
const privateDir = (dir: string): boolean => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return ownOnly(dir);
};

/** Sets the marker's time (seconds are enough: the waits are a minute and an hour). */
const mark = (paths: ServePaths, at: number): void => {
  closeSync(openSync(autostartMarker(paths), 'a', 0o600));
  utimesSync(autostartMarker(paths), at / 1000, at / 1000);
};

const markedAt = (paths: ServePaths): number | undefined => {
  try {
    return statSync(autostartMarker(paths)).mtimeMs;
  } catch {
    return undefined;
  }
};

/**
 * Starts `fettle serve --auto` unless the setting says no or a start was tried lately. `script` is the running
 * fettle's entry; `env` the hook's, which the server keeps as its own (each call brings its own environment).
 * Never throws: a hook that answered must not fail after it; what the server meets is in its log.
 */
export const startServerInBackground = (
  paths: ServePaths,
  env: NodeJS.ProcessEnv,
  script: string,
  now: number,
): AutostartVerdict | 'refused' => {
  const verdict = autostartVerdict({
    setting: env[AUTOSTART_VAR],
    platform: process.platform,
    marked: markedAt(paths),
    now,
  });
  if (verdict !== 'start') return verdict;
  try {
    if (!privateDir(paths.dir)) return 'refused';
    mark(paths, now); // before the start: a start that fails before its log says so still waits a minute
    return startDetached(script, '/', ['serve', '--auto'], env, { serving: true }) ? 'start' : 'refused';
  } catch {
    return 'refused';
  }
};

/** A server started by a hook could not start: hook calls leave it alone for a while (its log says why). */
export const deferAutostart = (paths: ServePaths, now: number): void => {
  try {
    mark(paths, now + AUTOSTART_FAILED_WAIT_MS);
  } catch {
    // the log line the caller writes is what is left to say
  }
};
