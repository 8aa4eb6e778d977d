// Starting and stopping the resident hook server from another process (`fettle serve --start`, the guard hook,
// SessionStart): a detached `fettle serve` in its own session, waited for until its pid file names it.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { Env } from '../../config';
import { FettleError } from '../../errors';
import { isAlive } from '../../io/pid';
import { logTail, runningServer, type Running, type ServePaths } from './serve-state';

const START_WAIT_MS = 5_000;
const STOP_WAIT_MS = 15_000;
const POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The running server, started if there is none. Two starters at once are fine: one binds the port, the other
 * sees it running and exits. Rejects with the server's own last words when it cannot start.
 */
export const ensureServer = async (paths: ServePaths, env: Env, script: string): Promise<Running> => {
  const running = await runningServer(paths);
  if (running) return running;
  const child = spawn(process.execPath, [script, 'serve'], {
    detached: true,
    cwd: '/',
    env: env as NodeJS.ProcessEnv,
    stdio: 'ignore',
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  child.on('error', () => (exited = true));
  child.unref();
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    const now = await runningServer(paths);
    if (now) return now;
    if (exited) {
      await sleep(POLL_MS); // a concurrent starter may be writing its pid file
      const other = await runningServer(paths);
      if (other) return other;
      break;
    }
    await sleep(POLL_MS);
  }
  const said = (await logTail(paths, 1))[0]?.replace(/^\S+ (not started: )?/, '') ?? '';
  throw new FettleError(
    'E_SERVE',
    `the resident hook server did not start${said ? `: ${said}` : ` within ${START_WAIT_MS / 1000} s`}`,
    { hint: `Run \`fettle serve\` to see it fail in the foreground; its log is ${paths.log}.` },
  );
};

/** Asks the running server to stop (it finishes the calls in flight) and waits until it has. */
export const stopServer = async (paths: ServePaths): Promise<Running | null> => {
  const running = await runningServer(paths);
  if (!running) return null;
  process.kill(running.pid, 'SIGTERM');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(running.pid)) {
    if (Date.now() > deadline)
      throw new FettleError('E_SERVE', `the resident hook server (pid ${running.pid}) did not stop.`, {
        hint: `Stop it with \`kill ${running.pid}\`.`,
      });
    await sleep(POLL_MS);
  }
  return running;
};

/** What the running server says about itself (its build, calls served and refused), asked with the token. */
export const askStatus = (port: number, token: string): Promise<Record<string, unknown> | null> =>
  new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/fettle/hook/status',
        method: 'POST',
        timeout: 2000,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body) as Record<string, unknown>);
          } catch {
            resolve(null);
          }
        });
      },
    );
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end('{}');
  });
