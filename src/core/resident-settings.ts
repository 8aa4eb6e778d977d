// The hooks of resident mode (`fettle install --resident`), as settings data. Each event fettle handles gets
// an HTTP hook to the server and, beside it, a one-line `sh` guard that starts no Node process while the
// server runs (the client runs both at once and waits for both: docs/HOOK.md, "The resident server"):
// - PreToolUse: the HTTP hook blocks on any failure (`onFailure: block`); the guard, when the server's pid is
//   not alive, starts it and blocks the call with a reason the model can act on, and when the session has no
//   token and the server does not check its peers (its pid file's second line), runs the command hook (the
//   server answers such a call "no objection" and records nothing).
// - the other events never block: when the server is down, or the session has no token and the server does not
//   check its peers, the guard runs the command hook, so the call is still handled exactly once (a record is
//   settled by whoever claims its link).
// - SessionStart: tells the server the session's project directory and Claude Code's pid (a live session
//   keeps the server), and starts it.
import { envHeader, FORWARDED_ENV, HOOK_PATH, PEER_AUTH_HEADER, TOKEN_VAR } from './hook-server';
import { BASH_MATCHER, INSTALLED_EVENTS, MATCHER, READ_MATCHER, STATUS_MESSAGE } from './settings';
import type { JsonObject, Json } from './json';

export interface ResidentPlan {
  port: number;
  /** shell commands, quoted by the caller */
  guardBlocking: string;
  guard: string;
  sessionStart: string;
  read?: boolean | undefined;
  /** false: Bash commands are not recorded (`install --no-bash`), as in the command install */
  bash?: boolean | undefined;
}

/** Every event resident mode registers, in the order it adds them. */
export const RESIDENT_EVENTS = [...INSTALLED_EVENTS, 'SessionStart'] as const;

const TIMEOUT = 60;

const httpHook = (plan: ResidentPlan, event: string): JsonObject => {
  const headers: JsonObject = { Authorization: `Bearer \${${TOKEN_VAR}}`, [PEER_AUTH_HEADER]: '1' };
  for (const name of FORWARDED_ENV) headers[envHeader(name)] = `\${${name}}`;
  return {
    type: 'http',
    url: `http://127.0.0.1:${plan.port}${HOOK_PATH}${event}`,
    timeout: TIMEOUT,
    headers,
    allowedEnvVars: [TOKEN_VAR, ...FORWARDED_ENV],
    onFailure: event === 'PreToolUse' ? 'block' : 'continue',
    statusMessage: STATUS_MESSAGE,
  };
};

const command = (text: string, extra: JsonObject = {}): JsonObject => ({
  type: 'command',
  command: text,
  timeout: TIMEOUT,
  statusMessage: STATUS_MESSAGE,
  ...extra,
});

/** The groups resident mode puts under `event`: the tools the command install matches, Bash unless --no-bash. */
export const residentGroups = (plan: ResidentPlan, event: string): Json[] => {
  if (event === 'SessionStart') return [{ hooks: [command(plan.sessionStart)] }];
  const tools = plan.bash === false ? [MATCHER] : [MATCHER, BASH_MATCHER];
  if (event === 'PreToolUse') {
    const pair = (matcher: string): JsonObject => ({
      matcher,
      hooks: [httpHook(plan, event), command(plan.guardBlocking)],
    });
    return [...tools, ...(plan.read ? [READ_MATCHER] : [])].map(pair);
  }
  if (event === 'PostToolUse' || event === 'PostToolUseFailure') {
    // The guard is in the background as the command hook is: its fallback only records what landed. A Read's is
    // not: what it returned must be kept before the model can read the file again.
    const groups: Json[] = tools.map((matcher) => ({
      matcher,
      hooks: [httpHook(plan, event), command(plan.guard, { async: true })],
    }));
    if (plan.read && event === 'PostToolUse')
      groups.push({ matcher: READ_MATCHER, hooks: [httpHook(plan, event), command(plan.guard)] });
    return groups;
  }
  return [{ hooks: [httpHook(plan, event), command(plan.guard)] }];
};

/** Whether a handler is one of resident mode's HTTP hooks (any port, any event). */
export const isResidentHttp = (h: Json): boolean =>
  typeof h === 'object' &&
  h !== null &&
  !Array.isArray(h) &&
  h.type === 'http' &&
  typeof h.url === 'string' &&
  /^http:\/\/127\.0\.0\.1:\d+\/fettle\/hook\/\w+$/.test(h.url);
