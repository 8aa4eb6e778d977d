// The resident hook server's contract with Claude Code, as data: which requests it admits, how a hook's
// environment travels in headers, and who the peer of a loopback connection is. Pure: the server (hook/serve.ts)
// and the install (commands/install.ts) apply it.
//
// Two ways to authenticate the client (docs/RESIDENT.md, "Only you"): where the system names the owner of each
// loopback connection (Linux's /proc/net/tcp), the server checks it is its own user and needs no token, which
// any process of that user could read anyway; elsewhere the per-user token is the only check.

/** The path every hook is posted to; the event follows, so a refusal can answer in the event's terms. */
export const HOOK_PATH = '/fettle/hook/';

/** The header carrying the per-user secret, as `Bearer <token>`, interpolated by Claude Code from this variable. */
export const TOKEN_VAR = 'FETTLE_SERVE_TOKEN';

/**
 * `peer`: the server checks each connection's owner and admits its own user's calls without a token; `token`:
 * the token is the check.
 */
export type ServeAuth = 'peer' | 'token';

/** What `peer` means, as `fettle serve --status`, `fettle doctor` and install say it. */
export const PEER_AUTH_TEXT =
  "by the connection's owner (the server answers only your user's connections, each looked up in /proc/net/tcp); Claude Code needs no token";

/**
 * Sent by the HTTP hooks of an install whose guards leave a call without a token to a `peer` server (settings an
 * older install wrote run the command hook for such a call, which the server must then not answer too).
 */
export const PEER_AUTH_HEADER = 'X-Fettle-Peer-Auth';

/** 32 random bytes, hex. */
export const isToken = (text: string): boolean => /^[0-9a-f]{64}$/.test(text);

/**
 * The variables a command hook would read from its environment, sent along as headers (Claude Code
 * interpolates only those listed in `allowedEnvVars`): the same configuration decides in the server. An unset
 * variable arrives empty, which fettle reads as unset. CLAUDE_PROJECT_DIR is not in Claude Code's own
 * environment (it is made for hook processes); the server learns it from the session's SessionStart hook.
 */
export const FORWARDED_ENV = [
  'PATH',
  'HOME',
  'XDG_DATA_HOME',
  'XDG_CONFIG_HOME',
  'FETTLE_DATA_DIR',
  'FETTLE_WRITE_FLOOR',
  'FETTLE_WRITE_CEIL',
  'FETTLE_WRITE_RATIO',
  'FETTLE_WRITE_STAGE_TTL',
  'FETTLE_ON_ERROR',
  'FETTLE_REVIEW',
  'FETTLE_HISTORY_MAX_AGE',
  'FETTLE_HISTORY_MAX_COUNT',
  'FETTLE_NOW',
  'FETTLE_DEBUG',
  'FETTLE_AUDIT',
  'FETTLE_BASH',
  'FETTLE_BASH_MAX_FILES',
  'FETTLE_BASH_MAX_FILE_BYTES',
  'FETTLE_READ_THRESHOLD',
] as const;

export const envHeader = (name: string): string => `x-fettle-env-${name.toLowerCase().replace(/_/g, '-')}`;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The hook's environment: the server's own, with each forwarded variable as the session has it. */
export const envFromHeaders = (
  base: Readonly<Record<string, string | undefined>>,
  headers: Headers,
): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...base };
  for (const name of FORWARDED_ENV) {
    const value = one(headers[envHeader(name)]);
    if (value === undefined) continue; // an older install did not send it: the server's own stands
    if (value === '') delete env[name];
    else env[name] = value;
  }
  return env;
};

export interface Request {
  method: string | undefined;
  url: string | undefined;
  headers: Headers;
}

export type Admission =
  | { ok: true; event: string }
  /** no token at all: the guard beside the hook runs the command path for this call; answered "no objection" */
  | { ok: false; kind: 'no-token'; event: string; why: string }
  /** anything else: refused, and a blocking event is blocked */
  | { ok: false; kind: 'refused'; event: string | undefined; why: string; status: number };

/** Constant-time enough for a fixed-length hex token: every character is compared. */
export const sameToken = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};

/**
 * Whether a request may reach fettle. Only Claude Code's own POST to the hook path on the loopback address it
 * was given: a browser (any Origin header, or a Host that is not the loopback address and port: DNS rebinding)
 * and a request without the JSON content type a page cannot send without asking first are refused before the
 * token is even looked at. A `peer` server admits, token or not, the calls of an install that says its guards
 * expect it (PEER_AUTH_HEADER); any other call needs the token.
 */
export const admit = (request: Request, expected: { port: number; token: string; auth: ServeAuth }): Admission => {
  const refuse = (why: string, status = 403, event?: string): Admission => ({
    ok: false,
    kind: 'refused',
    event,
    why,
    status,
  });
  const url = request.url ?? '';
  if (request.method !== 'POST') return refuse(`method ${request.method ?? 'missing'}`, 405);
  if (!url.startsWith(HOOK_PATH)) return refuse(`path ${url.slice(0, 80)}`, 404);
  const event = url.slice(HOOK_PATH.length);
  if (!/^[A-Za-z]{1,40}$/.test(event)) return refuse(`path ${url.slice(0, 80)}`, 404);
  const origin = one(request.headers.origin);
  if (origin !== undefined) return refuse(`a browser's request (Origin ${origin.slice(0, 80)})`, 403, event);
  const host = one(request.headers.host);
  if (host !== `127.0.0.1:${expected.port}` && host !== `localhost:${expected.port}`)
    return refuse(`Host ${(host ?? 'missing').slice(0, 80)}`, 403, event);
  const type = one(request.headers['content-type']) ?? '';
  if (!/^application\/json\b/i.test(type)) return refuse(`content type ${type.slice(0, 80) || 'missing'}`, 415, event);
  // The caller checked the connection's owner before asking (hook/serve-request.ts): the token adds nothing.
  if (expected.auth === 'peer' && one(request.headers[PEER_AUTH_HEADER.toLowerCase()]) === '1')
    return { ok: true, event };
  const auth = one(request.headers.authorization) ?? '';
  const token = /^Bearer\s*(.*)$/i.exec(auth)?.[1]?.trim() ?? '';
  if (token === '') return { ok: false, kind: 'no-token', event, why: 'no token' };
  if (!isToken(expected.token) || !sameToken(token, expected.token)) return refuse('a wrong token', 403, event);
  return { ok: true, event };
};

/** Each socket line of /proc/net/tcp as [local address, remote address, state, uid]. */
const sockets = (procNetTcp: string): [string, string, string, number][] =>
  procNetTcp
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .map((f) => [f[1] ?? '', f[2] ?? '', f[3] ?? '', Number(f[7])]);

/** 127.0.0.1:port as the kernel prints it: in host byte order, little- or big-endian. */
const loopback = (port: number): string[] => {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return [`0100007F:${hex}`, `7F000001:${hex}`];
};

/**
 * The user who owns the socket listening on 127.0.0.1:port (state 0A), from the text of /proc/net/tcp: a server
 * that finds itself there can tell who each of its connections comes from.
 */
export const listenerUid = (procNetTcp: string, port: number): number | undefined => {
  const local = loopback(port);
  const found = sockets(procNetTcp).find(
    ([l, , state, uid]) => local.includes(l) && state === '0A' && Number.isInteger(uid),
  );
  return found?.[3];
};

/**
 * The user who owns the client end of a loopback TCP connection, from the text of /proc/net/tcp: the line whose
 * local port is the client's and remote port the server's. Undefined when no such line is there.
 */
export const peerUid = (procNetTcp: string, clientPort: number, serverPort: number): number | undefined => {
  const local = loopback(clientPort);
  const remote = loopback(serverPort);
  const found = sockets(procNetTcp).find(
    ([l, r, , uid]) => local.includes(l) && remote.includes(r) && Number.isInteger(uid),
  );
  return found?.[3];
};
