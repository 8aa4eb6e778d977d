// `fettle serve --start | --stop | --restart | --status | --reset-token`, and the two hooks of resident mode
// that run as commands: `--guard` (PreToolUse, when the server is not running) and `--session-start`.
// `fettle serve` alone runs the server in the foreground (dist/serve.js, chosen by cli.ts).
import { loadConfig } from '../config';
import { PEER_AUTH_TEXT, TOKEN_VAR } from '../core/hook-server';
import { AUTOSTART_VAR, autostartVerdict } from '../core/serve-autostart';
import { forgetsReads } from '../core/settings';
import { FettleError } from '../errors';
import { forgetAllReads } from '../protocol/read-baselines';
import { askStatus, ensureServer, stopServer } from '../protocol/serve/serve-control';
import { keptPort } from '../protocol/serve/serve-port';
import {
  makeToken,
  readToken,
  runningServer,
  serverAuth,
  servePaths,
  tokenExport,
  writeSession,
  type ServePaths,
} from '../protocol/serve/serve-state';
import type { Edge } from './edge';

export interface ServeOptions {
  start?: boolean;
  stop?: boolean;
  restart?: boolean;
  status?: boolean;
  resetToken?: boolean;
  guard?: boolean;
  sessionStart?: boolean;
  json?: boolean;
}

const scriptOf = (edge: Edge): string => edge.io.script ?? 'fettle';

/** Whether command hooks start the server (core/serve-autostart.ts), as status says it. */
const autostartText = (env: Edge['env']): string => {
  const verdict = autostartVerdict({
    setting: env[AUTOSTART_VAR],
    platform: process.platform,
    marked: undefined,
    now: 0,
  });
  if (verdict === 'off') return `off (${AUTOSTART_VAR}=${env[AUTOSTART_VAR]}): command hooks run in process`;
  if (verdict === 'unsupported') return 'off on this system: command hooks run in process';
  return `on: a command hook call that finds no server starts one (${AUTOSTART_VAR}=0 turns this off)`;
};

const status = async (edge: Edge, paths: ServePaths, json: boolean): Promise<number> => {
  const port = (await keptPort(paths))?.port ?? null;
  if (port === null) {
    const never = { port: null, running: null, autostart: autostartText(edge.env), log: paths.log };
    edge.io.out(
      json
        ? JSON.stringify(never)
        : `fettle's resident server has not run for this user yet.\nAutostart: ${never.autostart}.`,
    );
    return 0;
  }
  const running = await runningServer(paths);
  const token = await readToken(paths).catch((e: FettleError) => e);
  const report = running && typeof token === 'string' ? await askStatus(port, token) : null;
  const sessionToken = edge.env[TOKEN_VAR];
  const matches = typeof token === 'string' && sessionToken === token;
  const auth = await serverAuth(paths);
  if (json) {
    edge.io.out(
      JSON.stringify({
        port,
        running: running ? { pid: running.pid, ...(report ?? {}) } : null,
        auth,
        token: typeof token === 'string' ? 'ok' : token.message,
        shellHasToken: matches,
        autostart: autostartText(edge.env),
        log: paths.log,
      }),
    );
    return 0;
  }
  const lines = [
    running
      ? `fettle's resident server runs on 127.0.0.1:${port} (pid ${running.pid}${report ? `, build ${report.build}, ${report.served} calls served, ${report.refused} refused` : ''}).`
      : `fettle's resident server is not running (port ${port}); the first hook call of a session starts it.`,
    typeof token === 'string' ? `Token: ${paths.token}` : `Token: ${token.message} ${token.hint ?? ''}`,
    auth === 'peer'
      ? `Authentication: ${PEER_AUTH_TEXT}.`
      : matches
        ? `Authentication: by the token. This shell exports ${TOKEN_VAR}: Claude Code started from it uses the server.`
        : `Authentication: by the token. This shell does not export it, so Claude Code started from it is protected by the command hook only. Add to your shell profile:\n  ${tokenExport(paths)}`,
    `Autostart: ${autostartText(edge.env)}.`,
    `Log: ${paths.log}`,
  ];
  edge.io.out(lines.join('\n'));
  return 0;
};

/** PreToolUse's guard found no live server: the HTTP hook beside it is failing, so the call is blocked anyway. */
const guard = async (edge: Edge, paths: ServePaths): Promise<number> => {
  await edge.io.stdin(); // read it all: a hook that closes its input early is reported as failed, not blocking
  try {
    const running = await ensureServer(paths, edge.env, scriptOf(edge));
    edge.io.err(
      `fettle blocked this write because its resident hook server was not running; nothing was written. It has been started again (pid ${running.pid}): make this write again.`,
    );
  } catch (error) {
    const e = error as FettleError;
    edge.io.err(
      `fettle blocked this write: its resident hook server is not running and could not be started (${e.message}); nothing was written. Tell the user; \`fettle install\` goes back to command hooks.`,
    );
  }
  return 2;
};

/**
 * SessionStart: the session's project directory and Claude Code's pid, for the server; and the server started.
 * After `/clear` or a compaction, what the session read is forgotten, as the command hook's SessionStart does.
 */
const sessionStart = async (edge: Edge, paths: ServePaths): Promise<number> => {
  const raw = (await edge.io.stdin()).toString('utf8');
  let payload: { session_id?: unknown; cwd?: unknown; source?: unknown } = {};
  try {
    payload = JSON.parse(raw) as typeof payload;
  } catch {
    // not Claude Code's payload: nothing to note
  }
  const session = typeof payload.session_id === 'string' ? payload.session_id : undefined;
  const project = edge.env.CLAUDE_PROJECT_DIR || (typeof payload.cwd === 'string' ? payload.cwd : undefined);
  const client = Number(edge.env.CLAUDE_PID) || undefined;
  try {
    if (session) await writeSession(paths, session, { project, client });
    if (session && forgetsReads(payload.source)) await forgetAllReads(loadConfig(edge.env).dataDir, session);
    await ensureServer(paths, edge.env, scriptOf(edge));
  } catch (error) {
    // Exit 1: the session goes on; its writes are still guarded (the PreToolUse guard starts the server).
    edge.io.err(`fettle: ${(error as Error).message}`);
    return 1;
  }
  return 0; // nothing on stdout: Claude Code would add it to the session's context
};

export const serveCommand = async (edge: Edge, o: ServeOptions): Promise<number> => {
  const paths = servePaths(edge.env);
  if (o.guard) return guard(edge, paths);
  if (o.sessionStart) return sessionStart(edge, paths);
  if (o.resetToken) {
    await makeToken(paths, true);
    const stopped = await stopServer(paths);
    const sessions =
      (await serverAuth(paths)) === 'peer'
        ? `Sessions are not affected: the authentication is ${PEER_AUTH_TEXT}.`
        : `Claude Code sessions started before keep the old one and are refused: start them again from a shell that exports it:\n  ${tokenExport(paths)}`;
    edge.io.out(
      `fettle's resident server has a new token${stopped ? ' (the server was stopped; the next hook call starts it)' : ''}. ${sessions}`,
    );
    return 0;
  }
  if (o.stop || o.restart) {
    const stopped = await stopServer(paths);
    if (o.stop) {
      edge.io.out(
        stopped ? `Stopped fettle's resident server (pid ${stopped.pid}).` : 'No resident server was running.',
      );
      return 0;
    }
  }
  if (o.start || o.restart) {
    const running = await ensureServer(paths, edge.env, scriptOf(edge));
    edge.io.out(`fettle's resident server runs on 127.0.0.1:${running.port} (pid ${running.pid}).`);
    return 0;
  }
  if (o.status) return status(edge, paths, o.json === true);
  throw new FettleError('E_USAGE', 'fettle serve takes one of --start, --stop, --restart, --status, --reset-token.', {
    hint: '`fettle serve` with no option runs the server in the foreground.',
  });
};
