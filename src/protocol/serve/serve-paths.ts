// Where the resident hook server's files are (serve-state.ts reads and writes them), and the running server
// they name: apart, so the thin command hook (hook/thin.ts) finds it without loading the rest.
import { lstatSync, readFileSync, statSync } from 'node:fs';
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
  /** the Unix socket command hooks hand their calls to (serve-socket.ts), where the system has them */
  socket: string;
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
    socket: join(dir, 'sock'),
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
export const ownOnly = (path: string): boolean => {
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
  // One reading of /proc/<pid>/stat says both whether it lives (not a zombie) and when it started.
  const stat = processStat(pid);
  if (stat ? stat.state === 'Z' : !isAlive(pid)) return null;
  if (start !== '-' && stat?.start !== start) return null;
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

/** The longest socket path every Unix binds (macOS: 104 bytes with the terminating NUL); a longer one is not used. */
const SOCKET_PATH_MAX = 103;

export const socketUsable = (path: string): boolean =>
  process.platform !== 'win32' && Buffer.byteLength(path) <= SOCKET_PATH_MAX;

/**
 * The running server's socket, if a command hook may connect to it: a socket of this user's in the directory only
 * this user may enter, so no other account put it there. Whether anything listens on it, connecting tells.
 */
export const serverSocket = (paths: ServePaths): string | undefined => {
  if (!socketUsable(paths.socket)) return undefined;
  const info = quiet(() => lstatSync(paths.socket));
  if (!info?.isSocket() || info.uid !== process.getuid?.()) return undefined;
  return ownOnly(paths.dir) ? paths.socket : undefined;
};

/** The pid the pid file names, alive or not (for a message about a server that ended). */
export const namedPid = (paths: ServePaths): number | undefined => {
  const pid = Number(quiet(() => readFileSync(paths.pid, 'latin1'))?.split(/\s/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};
