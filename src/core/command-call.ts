// A command hook's call handed to the resident server (hook/thin.ts, hook/serve-command.ts), as data: which
// requests the server admits on its command path, how a call travels (the caller's agent, cwd, script and whole
// environment, then its stdin bytes untouched), and the answer that comes back. Pure.
import { isToken, sameToken, type ServeAuth } from './hook-server';

/** The path a command hook posts its call to. */
export const COMMAND_PATH = '/fettle/command';

/** Not a type a web page may send without asking first (no browser gets past a preflight the server never answers). */
export const COMMAND_TYPE = 'application/vnd.fettle.command';

/**
 * Inputs from this size stay in the caller's process, where the hook of a large input runs supervised
 * (hook/supervise.ts SUPERVISE_FROM, the same size): a server must not hold them in its own heap.
 */
export const HAND_OFF_MAX = 8 << 20;

/** What may travel beside the input: an environment is a few kilobytes, far below this. */
const META_MAX = 1 << 20;

export interface CommandCall {
  /** the name `fettle hook --agent <name>` was given, if any */
  agent: string | undefined;
  cwd: string;
  /** the script the caller was started as, for the commands its messages name */
  script: string;
  env: Record<string, string>;
  input: Buffer;
}

/** One line of JSON (it holds no raw newline), then the input's bytes as they came. */
export const encodeCall = (call: CommandCall): Buffer => {
  const { agent, cwd, script, env } = call;
  return Buffer.concat([Buffer.from(`${JSON.stringify({ agent: agent ?? null, cwd, script, env })}\n`), call.input]);
};

const strings = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((v) => typeof v === 'string');

/** The call in `body`, or why it is not one. */
export const decodeCall = (body: Buffer): CommandCall | string => {
  const end = body.indexOf(0x0a);
  if (end < 0 || end > META_MAX) return 'no header line';
  let meta: { agent?: unknown; cwd?: unknown; script?: unknown; env?: unknown };
  try {
    meta = JSON.parse(body.subarray(0, end).toString('utf8'));
  } catch {
    return 'a header line that is not JSON';
  }
  const { agent, cwd, script, env } = meta;
  if (agent !== null && (typeof agent !== 'string' || !/^[a-z][a-z0-9-]{0,39}$/.test(agent))) return 'a bad agent';
  if (typeof cwd !== 'string' || !cwd.startsWith('/')) return 'a cwd that is not absolute';
  if (typeof script !== 'string' || !strings(env)) return 'a bad script or environment';
  if (body.length - end - 1 >= HAND_OFF_MAX) return 'an input too large to hand off';
  return { agent: agent ?? undefined, cwd, script, env, input: body.subarray(end + 1) };
};

export interface CommandRequest {
  method: string | undefined;
  url: string | undefined;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Whether a command call may reach the hook: a POST of the command type to the command path, with no Origin (no
 * browser), and from this user. On the server's Unix socket (`local`), in a directory only its user may enter,
 * both hold by where it came from; on the loopback address and port, a `peer` server has checked the
 * connection's owner already, and a `token` server needs the token. Every refusal is a 4xx, and nothing of the
 * call was read: its caller may then run the hook itself.
 */
export const admitCommand = (
  request: CommandRequest,
  expected: { port: number; token: string; auth: ServeAuth; local?: boolean },
): { ok: true } | { ok: false; status: number; why: string } => {
  const refuse = (why: string, status = 403) => ({ ok: false as const, status, why });
  if (request.method !== 'POST') return refuse(`method ${request.method ?? 'missing'}`, 405);
  if (request.url !== COMMAND_PATH) return refuse(`path ${(request.url ?? '').slice(0, 80)}`, 404);
  const origin = one(request.headers.origin);
  if (origin !== undefined) return refuse(`a browser's request (Origin ${origin.slice(0, 80)})`);
  const host = one(request.headers.host);
  if (!expected.local && host !== `127.0.0.1:${expected.port}`)
    return refuse(`Host ${(host ?? 'missing').slice(0, 80)}`);
  if (one(request.headers['content-type']) !== COMMAND_TYPE) return refuse('a command call of another type', 415);
  if (expected.local || expected.auth === 'peer') return { ok: true };
  const token = /^Bearer (.*)$/.exec(one(request.headers.authorization) ?? '')?.[1] ?? '';
  if (!isToken(expected.token) || !sameToken(token, expected.token)) return refuse('a command call without the token');
  return { ok: true };
};

export interface CommandAnswer {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
  /** the call must not go on: when stdout cannot carry that, the caller blocks instead */
  stops: boolean;
}

/** The server's answer, or null if the text is not one. */
export const decodeAnswer = (text: string): CommandAnswer | null => {
  let o: Partial<Record<keyof CommandAnswer, unknown>>;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  if (o === null || typeof o !== 'object' || (o.exitCode !== 0 && o.exitCode !== 1 && o.exitCode !== 2)) return null;
  if (typeof o.stdout !== 'string' || typeof o.stderr !== 'string' || typeof o.stops !== 'boolean') return null;
  return { exitCode: o.exitCode, stdout: o.stdout, stderr: o.stderr, stops: o.stops };
};

/** The head of the answer a raw HTTP/1.1 response carries: its status, and the body when it came whole. */
export const parseResponse = (raw: Buffer): { status: number; body: Buffer | null } | null => {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = raw.subarray(0, end).toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(head)?.[1];
  if (status === undefined) return null;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  const body = raw.subarray(end + 4);
  const whole = length !== undefined && body.length === Number(length);
  return { status: Number(status), body: whole ? body : null };
};
