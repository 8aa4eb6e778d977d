// Where the resident hook server's files are (serve-state.ts reads and writes them), and the running server
// they name: apart, so the thin command hook (hook/thin.ts) finds it without loading the rest.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homeFrom, type Env } from '../../config';
import { isToken, type ServeAuth } from '../../core/hook-server';
import { isAlive, processStat } from '../../io/pid';

export interface ServePaths {
  dir: string;
  /** `{"port": n}`, written by `fettle install --resident` */
  config: string;
  token: string;
  /**
   * `<pid> <port> <start>` of the running server (start: /proc's start time, `-` where there is none), then a
   * line with how it authenticates (ServeAuth; none from a server of an older fettle, whose check is the token).
   * One file: a guard reads both lines from the same version of it.
   */
  pid: string;
  log: string;
  sessions: string;
}

/** FETTLE_STATE_DIR, else $XDG_STATE_HOME/fettle, else ~/.local/state/fettle; the server's files in `serve/`. */
export const servePaths = (env: Env): ServePaths => {
  const state = env.FETTLE_STATE_DIR || join(env.XDG_STATE_HOME || join(homeFrom(env), '.local', 'state'), 'fettle');
  const dir = join(state, 'serve');
  return {
    dir,
    config: join(dir, 'config.json'),
    token: join(dir, 'token'),
    pid: join(dir, 'pid'),
    log: join(dir, 'log'),
    sessions: join(dir, 'sessions'),
  };
};

const quiet = <T>(fn: () => T): T | undefined => {
  try {
    return fn();
  } catch {
    return undefined;
  }
};

/** This user's own, and nobody else's to read or write. */
const ownOnly = (path: string): boolean => {
  const info = quiet(() => statSync(path));
  return info !== undefined && info.uid === process.getuid?.() && (info.mode & 0o077) === 0;
};

/**
 * The server a pid file's text names, if its process is alive and is the one that wrote the file (its start
 * time, where the system has one, tells it from a later process given the same pid).
 */
export const liveServerIn = (text: string): { pid: number; port: number; auth: ServeAuth } | null => {
  const [first = '', second = ''] = text.split('\n');
  const [pidText, portText, start = '-'] = first.trim().split(/\s+/);
  const [pid, port] = [Number(pidText), Number(portText)];
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) return null;
  if (!isAlive(pid) || (start !== '-' && processStat(pid)?.start !== start)) return null;
  return { pid, port, auth: second.trim() === 'peer' ? 'peer' : 'token' };
};

export interface Found {
  pid: number;
  port: number;
  /** for a server that checks the token; a `peer` server (its pid file's second line) needs none */
  token: string | undefined;
}

/**
 * The running server a command hook may hand its call to, read synchronously: its pid file, in a directory only
 * this user may enter (a file another account planted must not direct a call, nor get the token), names a live
 * process that is the one that wrote it; and the token, where the server checks it, from a file only this user
 * may read. Undefined when any of it is not so.
 */
export const findServer = (paths: ServePaths): Found | undefined => {
  const text = quiet(() => readFileSync(paths.pid, 'latin1'));
  const running = text === undefined || !ownOnly(paths.dir) ? null : liveServerIn(text);
  if (!running) return undefined;
  const { pid, port } = running;
  if (running.auth === 'peer') return { pid, port, token: undefined };
  const token = ownOnly(paths.token) ? quiet(() => readFileSync(paths.token, 'latin1').trim()) : undefined;
  return token !== undefined && isToken(token) ? { pid, port, token } : undefined;
};
