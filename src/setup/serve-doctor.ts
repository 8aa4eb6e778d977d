// What `fettle doctor` says about resident mode: set up or not, its token file, whether its server runs and
// what it has refused, how it authenticates Claude Code, and, where that is by the token, whether this shell
// hands Claude Code the token (without it, the command hook protects each write, more slowly).
import type { Env } from '../config';
import { PEER_AUTH_TEXT, TOKEN_VAR } from '../core/hook-server';
import type { FettleError } from '../errors';
import type { Check } from './doctor';
import { askStatus } from '../protocol/serve/serve-control';
import { readPort } from '../protocol/serve/serve-port';
import { readToken, runningServer, serverAuth, servePaths, tokenExport } from '../protocol/serve/serve-state';

export const checkResident = async (env: Env): Promise<Check[]> => {
  const paths = servePaths(env);
  const port = await readPort(paths).catch(() => null);
  if (port === null) return []; // resident mode is not set up: nothing to say
  const token = await readToken(paths).catch((e: FettleError) => e);
  if (typeof token !== 'string') return [{ name: 'resident', status: 'fail', detail: token.message, fix: token.hint }];
  const checks: Check[] = [];
  const running = await runningServer(paths);
  const report = running ? await askStatus(port, token) : null;
  if (!running) {
    checks.push({
      name: 'resident',
      status: 'ok',
      detail: `server not running (127.0.0.1:${port}); the first hook call of a session starts it`,
    });
  } else if (!report) {
    checks.push({
      name: 'resident',
      status: 'fail',
      detail: `pid ${running.pid} holds the server's pid file but does not answer on 127.0.0.1:${port}`,
      fix: 'Run `fettle serve --restart`.',
    });
  } else {
    checks.push({
      name: 'resident',
      status: report.handedOver ? 'warn' : 'ok',
      detail: `server runs on 127.0.0.1:${port} (pid ${running.pid}, build ${report.build}): ${report.served} calls served, ${report.refused} refused${report.handedOver ? '; the installed fettle changed and a new server is taking over' : ''}`,
      ...(Number(report.refused) > 0 ? { fix: `What was refused, and why, is in ${paths.log}.` } : {}),
    });
  }
  if ((await serverAuth(paths)) === 'peer')
    checks.push({ name: 'resident', status: 'ok', detail: `authentication ${PEER_AUTH_TEXT}` });
  else if (env[TOKEN_VAR] === token)
    checks.push({ name: 'resident', status: 'ok', detail: 'authentication by the token, which this shell exports' });
  else
    checks.push({
      name: 'resident',
      status: 'warn',
      detail: `authentication by the token, but this shell ${env[TOKEN_VAR] ? "exports another token than the server's" : 'does not export the server token'}: Claude Code started from it is protected by the command hook (a Node start per write) or, with a stale token, refused`,
      fix: `Add to your shell profile, then start Claude Code from a new shell: ${tokenExport(paths)}`,
    });
  return checks;
};
