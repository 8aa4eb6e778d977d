// `fettle serve`: the resident hook server (dist/serve.js). Claude Code's HTTP hooks post each hook's JSON
// to it on 127.0.0.1, and it answers from a warm process what `fettle hook` would answer (docs/HOOK.md, "The
// resident server"). It runs until it has been idle with no live Claude Code session left, until told to stop,
// or until the installed fettle changes (it then hands its socket to a server of the new version).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { cleanUpOnSignals, releaseOwned } from '../io/cleanup';
import { armFailpoints } from '../io/failpoint';
import { deferAutostart } from '../protocol/serve/autostart';
import { createRuntime } from '../protocol/serve/runtime';
import { claimPort, keptPort, movePort, readPort } from '../protocol/serve/serve-port';
import { listenLocal, type LocalSocket } from '../protocol/serve/serve-socket';
import {
  appendLog,
  clearRunning,
  liveClients,
  peerCheck,
  runningServer,
  serverToken,
  servePaths,
  writeRunning,
  type ServePaths,
} from '../protocol/serve/serve-state';
import { block, warn } from './outcome';
import { answerOf } from './serve-answer';
import { commandPath, handSocketOver, watchBuild, type BuildWatch } from './serve-build';
import { markLocal } from './serve-http';
import { handle, type ServerState } from './serve-request';

/** How long without a call, and without a live Claude Code session, before the server exits (FETTLE_SERVE_IDLE). */
const IDLE_SECONDS = 15 * 60;
/** How long a stop waits for calls in flight. */
const DRAIN_MS = 10_000;

const idleSeconds = (): number => {
  const raw = Number(process.env.FETTLE_SERVE_IDLE);
  return Number.isInteger(raw) && raw > 0 ? raw : IDLE_SECONDS;
};

const words = (error: unknown): string => {
  const e = error as { message?: string; hint?: string };
  return `${e?.message ?? String(error)}${e?.hint ? ` ${e.hint}` : ''}`;
};

/** How this server was started: by a person or a command (`fettle serve`), by a hook (`--auto`), or as a successor. */
type Mode = 'foreground' | 'auto' | 'takeover';

const fail = async (paths: ServePaths, message: string, mode: Mode): Promise<never> => {
  await appendLog(paths, `not started: ${message}`).catch(() => undefined);
  if (mode === 'auto') deferAutostart(paths, Date.now()); // each hook call would otherwise try again
  process.stderr.write(`fettle serve: ${message}\n`);
  process.exit(1);
};

/** Listens on the port install chose; a live fettle server there already means there is nothing to do. */
const listen = (server: Server, port: number): Promise<'listening' | 'in use'> =>
  new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve('in use') : reject(error),
    );
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve('listening'));
  });

/** In a successor: the listening socket and the token, from the server it replaces. */
const takeOver = (server: Server): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no socket was handed over')), 10_000);
    process.once('message', (message: { kind?: string; token?: string }, handle: NetServer | undefined) => {
      clearTimeout(timer);
      if (message?.kind !== 'takeover' || !handle || typeof message.token !== 'string')
        return reject(new Error('the handover message was not one'));
      handle.on('connection', (socket) => server.emit('connection', socket));
      resolve(message.token);
    });
  });

/** Answers a call the server failed on, unless its answer has begun: a PreToolUse is blocked, any other hook warned. */
const answerFailure = (paths: ServePaths, req: IncomingMessage, res: ServerResponse, error: unknown): void => {
  void appendLog(paths, `error: ${(error as Error)?.stack ?? error}`);
  const event = /^\/fettle\/hook\/(\w+)$/.exec(req.url ?? '')?.[1];
  const message = `fettle's resident server failed on this call (${(error as Error)?.message ?? error}); nothing was written.`;
  if (!res.headersSent) {
    const body = answerOf(event === 'PreToolUse' ? block(message) : warn(message));
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
};

/** How long a port in use may be another fettle server still starting (it says so once it is ready). */
const IN_USE_WAIT_MS = 5_000;

const announcedWithin = async (paths: ServePaths, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await runningServer(paths)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * The port and the token: a successor's socket is handed over; otherwise the port install (or an earlier server)
 * chose, or, set up by nobody yet, one the system gives, kept for the next start unless another server starting
 * at the same time kept its own first (this one then leaves it to that one). A port a server chose that another
 * program holds now is given up for a new one; install's, which its hooks name, never is.
 */
const openSocket = async (server: Server, paths: ServePaths, mode: Mode): Promise<{ port: number; token: string }> => {
  const failed = (error: Error) => fail(paths, words(error), mode);
  if (mode === 'takeover') {
    const port = await readPort(paths).catch(failed);
    return { port, token: await takeOver(server).catch(failed) };
  }
  const kept = await keptPort(paths).catch(failed);
  const token = await serverToken(paths).catch(failed);
  if (kept && (await listen(server, kept.port).catch(failed)) === 'listening') return { port: kept.port, token };
  if (kept) {
    // Another fettle server got there first (two hook calls may start one each), or another program has the port.
    if (await announcedWithin(paths, IN_USE_WAIT_MS)) process.exit(0);
    if (!kept.movable) await fail(paths, `port ${kept.port} on 127.0.0.1 is in use by another program.`, mode);
  }
  await listen(server, 0).catch(failed);
  const given = (server.address() as AddressInfo).port;
  const port = await (kept ? movePort(paths, kept.port, given) : claimPort(paths, given)).catch(failed);
  if (port !== given) process.exit(0); // another server starting now chose first: it serves
  if (kept) void appendLog(paths, `port ${kept.port} is another program's now: moved to ${port}`);
  return { port, token };
};

/** Records the running server, logs its start, and tells a parent waiting for it that it is ready. */
const announceStarted = async (state: ServerState, mode: Mode): Promise<void> => {
  await writeRunning(state.paths, { pid: process.pid, port: state.port, auth: state.auth });
  await appendLog(
    state.paths,
    `started: pid ${process.pid}, port ${state.port}, build ${state.build}, auth ${state.auth} (${mode})`,
  );
  if (process.send) {
    process.send({ kind: 'ready' });
    process.disconnect?.();
  }
};

/** The command hooks' socket beside the port; without it they call the port, as a server of an older fettle's. */
const openLocal = (server: Server, paths: ServePaths): Promise<LocalSocket | null> =>
  listenLocal(paths, (socket) => {
    markLocal(socket);
    server.emit('connection', socket);
  }).catch(async (error: unknown) => {
    await appendLog(paths, `no socket for command hooks (they use the port): ${words(error)}`).catch(() => undefined);
    return null;
  });

/** A stop, once: no new calls, those in flight drained for up to DRAIN_MS, the last housekeeping awaited, then exit. */
const stopper = (server: Server, state: ServerState, local: LocalSocket | null): ((why: string) => Promise<void>) => {
  const { paths, runtime } = state;
  let stopping = false;
  return async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await local?.close();
    server.close();
    server.closeIdleConnections();
    const deadline = Date.now() + DRAIN_MS;
    while (state.counts.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const left = new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())));
    await Promise.race([runtime.idle(), left]); // housekeeping of the last calls
    runtime.close();
    releaseOwned();
    await clearRunning(paths, process.pid);
    await appendLog(paths, `stopped: ${why}`).catch(() => undefined);
    process.exit(0);
  };
};

/** An error no call caught goes to the log, and the server goes on serving. */
const logUncaught = (paths: ServePaths): void => {
  process.on('uncaughtException', (error) => void appendLog(paths, `error: ${error.stack ?? error}`));
  process.on('unhandledRejection', (error) => void appendLog(paths, `error: ${(error as Error)?.stack ?? error}`));
};

/** Stops when idle: no call for a while and no live Claude Code session registered (a session keeps its server). */
const stopWhenIdle = (state: ServerState, stop: (why: string) => Promise<void>): void => {
  setInterval(
    async () => {
      if (state.counts.inFlight > 0 || Date.now() - state.counts.last < idleSeconds() * 1000) return;
      if ((await liveClients(state.paths)).length === 0) await stop('idle');
    },
    Math.min(30_000, idleSeconds() * 500),
  ).unref();
};

export const runServer = async (mode: Mode): Promise<void> => {
  const paths = servePaths(process.env);
  const script = process.argv[1] ?? join(__dirname, 'cli.js');
  // Calls that arrive while the server is still setting up wait for it (a successor gets its socket first).
  let ready: (state: ServerState) => void = () => undefined;
  const started = new Promise<ServerState>((resolve) => (ready = resolve));
  let build: BuildWatch | undefined;
  let stop: (why: string) => Promise<void> = async () => undefined;

  /** Each call: first whether the installed fettle is still this one; if not, the call goes to the installed one. */
  const serve = async (s: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (!s.handOver && (await (build as BuildWatch).replaced())) {
        s.handOver = commandPath(script);
        void appendLog(paths, 'the installed fettle changed: calls go to it, and a server of it takes over');
        void handSocketOver(script, server, s.token).then(async (ok) => {
          await appendLog(paths, ok ? 'handed over to the new server' : 'the new server did not start');
          if (ok) await stop('replaced by the installed version');
        });
      }
      await handle(s, req, res);
    } catch (error) {
      answerFailure(paths, req, res, error);
    }
  };
  // Claude Code keeps one connection for a session's hooks: kept open across the model's pauses, its peer is
  // checked once (reading /proc/net/tcp costs milliseconds).
  const server = createServer({ keepAliveTimeout: 10 * 60_000, requestTimeout: 600_000 }, (req, res) => {
    void started.then((s) => serve(s, req, res));
  });

  try {
    armFailpoints(process.env.FETTLE_FAILPOINTS);
  } catch (error) {
    await fail(paths, words(error), mode);
  }
  const socket = await openSocket(server, paths, mode);
  build = await watchBuild([join(__dirname, 'serve.js'), join(__dirname, 'hook.js')]);
  const runtime = createRuntime(
    (error) => void appendLog(paths, `housekeeping failed: ${(error as Error)?.stack ?? error}`),
  );
  const state: ServerState = {
    paths,
    ...socket,
    auth: await peerCheck(socket.port),
    script,
    runtime,
    handOver: null,
    build: build.id,
    baseEnv: { ...process.env },
    counts: { served: 0, refused: 0, inFlight: 0, last: Date.now() },
  };
  const local = await openLocal(server, paths); // before the pid file: a started server takes calls on it
  ready(state);
  await announceStarted(state, mode);
  stop = stopper(server, state, local);
  cleanUpOnSignals((signal) => void stop(signal));
  logUncaught(paths);
  stopWhenIdle(state, stop);
};
