// The resident hook server's files, in a directory only its user may enter ($XDG_STATE_HOME/fettle/serve):
// the port install chose, the per-user token (0600, never in a settings file), the running server's pid and
// how it authenticates its clients (read by the guard hook with shell builtins), the sessions it serves, and
// its log. Every process that deals with the server (the server itself, its guard, `fettle serve`, install,
// doctor) finds them here.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, link, lstat, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isToken, listenerUid, TOKEN_VAR, type ServeAuth } from '../../core/hook-server';
import { sessionName } from '../../core/session';
import { FettleError } from '../../errors';
import { isAlive, processStat } from '../../io/pid';
import { shellQuote } from '../../io/self';
import { liveServerIn, type ServePaths } from './serve-paths';

export { servePaths, type ServePaths } from './serve-paths';

export const notInstalled = () =>
  new FettleError('E_SERVE', 'the resident hook server is not set up for this user.', {
    hint: 'Run `fettle install --resident` to set it up.',
  });

/** The directory, made if need be, and refused if anyone but its owner may enter it. */
export const ensureServeDir = async (paths: ServePaths): Promise<void> => {
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const info = await stat(paths.dir);
  if (info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
    throw new FettleError('E_SERVE', `${paths.dir} may be entered by other users; fettle keeps its token there.`, {
      hint: `Run \`chmod 700 ${paths.dir}\` (and check who owns it), then try again.`,
    });
};

/** Written under a temp name and renamed: a reader sees the old file or the new one, never half of one. */
export const replace = async (path: string, text: string, mode: number): Promise<void> => {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
};

/**
 * Made only if absent, whole: written under a temp name and linked to its name, which fails if another process
 * made it first. False then: the other process's file stands.
 */
export const createOnce = async (path: string, text: string, mode: number): Promise<boolean> => {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
};

/** The line a shell profile needs so that Claude Code, started from that shell, sends the token. */
export const tokenExport = (paths: ServePaths): string => `export ${TOKEN_VAR}="$(cat ${shellQuote(paths.token)})"`;

/** The token, made if there is none yet (by this process or another at the same time); a damaged one is refused. */
export const serverToken = async (paths: ServePaths): Promise<string> => {
  await ensureServeDir(paths);
  if (
    !(await lstat(paths.token).then(
      () => true,
      () => false,
    ))
  )
    await createOnce(paths.token, `${randomBytes(32).toString('hex')}\n`, 0o600);
  return readToken(paths);
};

const damaged = (paths: ServePaths, why: string) =>
  new FettleError('E_SERVE', `the resident server's token file ${paths.token} ${why}.`, {
    hint: 'Run `fettle serve --reset-token`, then start Claude Code again from a shell that exports the new token.',
  });

/** The token, only from a file this user owns and nobody else may read, holding a well-formed token. */
export const readToken = async (paths: ServePaths): Promise<string> => {
  const info = await lstat(paths.token).catch(() => null);
  if (!info) throw notInstalled();
  if (!info.isFile()) throw damaged(paths, 'is not a regular file');
  if (info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
    throw damaged(paths, 'may be read or written by other users');
  const token = (await readFile(paths.token, 'utf8')).trim();
  if (!isToken(token)) throw damaged(paths, 'does not hold a token fettle wrote (64 hex digits)');
  return token;
};

/** A new token, unless a valid one is there and `fresh` is not asked for. */
export const makeToken = async (paths: ServePaths, fresh = false): Promise<string> => {
  await ensureServeDir(paths);
  if (!fresh) {
    const kept = await readToken(paths).catch(() => null);
    if (kept) return kept;
  }
  const token = randomBytes(32).toString('hex');
  await replace(paths.token, `${token}\n`, 0o600);
  return token;
};

export interface Running {
  pid: number;
  port: number;
  auth: ServeAuth;
}

/** The server that says it is running, if its process is alive and is the one that wrote the file. */
export const runningServer = async (paths: ServePaths): Promise<Running | null> => {
  return liveServerIn(await readFile(paths.pid, 'utf8').catch(() => ''));
};

export const writeRunning = (paths: ServePaths, running: Running): Promise<void> =>
  replace(
    paths.pid,
    `${running.pid} ${running.port} ${processStat(running.pid)?.start ?? '-'}\n${running.auth}\n`,
    0o600,
  );

/** Removes the pid file if it still names `pid` (a successor may have written its own). */
export const clearRunning = async (paths: ServePaths, pid: number): Promise<void> => {
  const text = await readFile(paths.pid, 'utf8').catch(() => '');
  if (Number(text.trim().split(/\s+/)[0]) === pid) await unlink(paths.pid).catch(() => undefined);
};

/**
 * How a server on 127.0.0.1:port can authenticate its clients: `peer` where /proc/net/tcp lists its listening
 * socket as this user's (each connection's owner is then found there too), else `token`. With no port (no
 * server running), whether a server started now could read /proc/net/tcp at all.
 */
export const peerCheck = async (port?: number): Promise<ServeAuth> => {
  if (process.platform !== 'linux') return 'token';
  const text = await readFile('/proc/net/tcp', 'utf8').catch(() => null);
  if (text === null) return 'token';
  return port === undefined || listenerUid(text, port) === process.getuid?.() ? 'peer' : 'token';
};

/** How the running server authenticates, or how one started now would. */
export const serverAuth = async (paths: ServePaths): Promise<ServeAuth> =>
  (await runningServer(paths))?.auth ?? peerCheck();

export interface SessionInfo {
  /** CLAUDE_PROJECT_DIR of the session */
  project: string | undefined;
  /** the Claude Code process, while it lives the server stays */
  client: number | undefined;
}

const sessionFile = (paths: ServePaths, session: string): string => join(paths.sessions, sessionName(session));

export const writeSession = async (paths: ServePaths, session: string, info: SessionInfo): Promise<void> => {
  await ensureServeDir(paths);
  await mkdir(paths.sessions, { recursive: true, mode: 0o700 });
  await replace(sessionFile(paths, session), JSON.stringify(info), 0o600);
};

export const readSession = async (paths: ServePaths, session: string): Promise<SessionInfo | null> => {
  let text: string;
  try {
    text = readFileSync(sessionFile(paths, session), 'utf8'); // a few bytes, on every call: see turns.ts
  } catch {
    return null;
  }
  try {
    const data = JSON.parse(text) as { project?: unknown; client?: unknown };
    return {
      project: typeof data.project === 'string' ? data.project : undefined,
      client: typeof data.client === 'number' ? data.client : undefined,
    };
  } catch {
    return null;
  }
};

/** Claude Code processes of registered sessions that are still alive; sessions of dead ones are forgotten. */
export const liveClients = async (paths: ServePaths): Promise<number[]> => {
  const names = await readdir(paths.sessions).catch(() => [] as string[]);
  const live: number[] = [];
  for (const name of names) {
    const info = await readSession(paths, name);
    if (info?.client && isAlive(info.client)) live.push(info.client);
    else if (!name.endsWith('.tmp')) await unlink(join(paths.sessions, name)).catch(() => undefined);
  }
  return live;
};

const LOG_MAX = 1 << 20;

/** One line, with the time; the log is cut to its last megabyte's worth by keeping one older file. */
export const appendLog = async (paths: ServePaths, line: string): Promise<void> => {
  const size = await stat(paths.log).then(
    (s) => s.size,
    () => 0,
  );
  if (size > LOG_MAX) await rename(paths.log, `${paths.log}.1`).catch(() => undefined);
  await appendFile(paths.log, `${new Date().toISOString()} ${line.replace(/\n/g, ' ')}\n`, { mode: 0o600 });
};

/** The last lines of the log (what the server said before it stopped). */
export const logTail = async (paths: ServePaths, lines = 5): Promise<string[]> =>
  (await readFile(paths.log, 'utf8').catch(() => '')).trimEnd().split('\n').filter(Boolean).slice(-lines);
