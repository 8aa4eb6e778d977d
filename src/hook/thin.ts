// The thin command hook: with a resident server running, `fettle hook [--agent <name>]` hands its call to it
// before any bundle is loaded (docs/RESIDENT.md, "Command hooks"), and reproduces the answer: stdout, stderr and
// exit code, as the hook process would have printed them. Only what that needs is here: the server's files,
// stdin, and one HTTP/1.1 request written by hand on node:net (node:http costs more to load than the call).
// The call goes to the server's Unix socket, in the directory only this user may enter (no pid file, no token,
// no lookup of the connection's owner); where there is none, or nothing listens on it, to its loopback port.
// Never a call handled twice, never a write without its record: the call runs in this process only when the
// server certainly did nothing (no server, the connection refused, a refusal status, which comes before the
// server reads the call); once the call may have reached the hook, a lost answer fails closed.
import { connect } from 'node:net';
import {
  COMMAND_PATH,
  COMMAND_TYPE,
  decodeAnswer,
  encodeCall,
  HAND_OFF_MAX,
  parseResponse,
  type CommandAnswer,
} from '../core/command-call';
import { sniffEvent } from '../core/hook-event';
import { readStdin } from '../io/stdin';
import { emit } from './emit';
import {
  findServer,
  namedPid,
  serverSocket,
  servePaths,
  type Found,
  type ServePaths,
} from '../protocol/serve/serve-paths';

/**
 * How the caller goes on: the call was answered here, or the full hook runs with what was read of stdin;
 * `absent`: no server runs (the hook may start one once it has answered).
 */
export type HandOff = { answered: true } | { answered: false; read?: () => Promise<Buffer>; absent?: true };

/** `unreached`: no connection was made, so nothing was sent; `refused`: the server's refusal, before it read the call. */
type Reply =
  | { kind: 'unreached' }
  | { kind: 'refused' }
  | { kind: 'answered'; answer: CommandAnswer }
  | { kind: 'lost'; why: string };

/** The server's socket, or its loopback port (with the token a `token` server checks). */
type Target = { socket: string } | Found;

/** What the server's response says; `failed`, how the connection ended when it did not end well. */
const replyOf = (raw: Buffer, failed: string | undefined): Reply => {
  const response = parseResponse(raw);
  if (response && response.status >= 400 && response.status < 500) return { kind: 'refused' };
  const answer = response?.status === 200 && response.body ? decodeAnswer(response.body.toString('utf8')) : null;
  if (answer) return { kind: 'answered', answer };
  if (response) return { kind: 'lost', why: `status ${response.status}, no answer` };
  return { kind: 'lost', why: failed ?? 'the connection closed without an answer' };
};

/** One request to the socket or to 127.0.0.1 (never anywhere else: the token goes with it), one connection. */
const ask = (target: Target, body: Buffer): Promise<Reply> =>
  new Promise((resolve) => {
    const local = 'socket' in target;
    const head = [
      `POST ${COMMAND_PATH} HTTP/1.1`,
      local ? 'Host: localhost' : `Host: 127.0.0.1:${target.port}`,
      `Content-Type: ${COMMAND_TYPE}`,
      `Content-Length: ${body.length}`,
      'Connection: close',
      ...(!local && target.token ? [`Authorization: Bearer ${target.token}`] : []),
    ];
    const socket = local
      ? connect({ path: target.socket })
      : connect({ host: '127.0.0.1', port: target.port, noDelay: true });
    const chunks: Buffer[] = [];
    let connected = false;
    let failed: string | undefined;
    socket.once('connect', () => {
      connected = true;
      // Not ended: a server reads a half-closed connection as a client gone, and its answer would be lost. It
      // closes the connection once it has answered (Connection: close).
      socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // The whole answer is in: no need to wait for the server to close the connection.
      if (parseResponse(Buffer.concat(chunks))?.body) socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failed = error.code ?? error.message;
    });
    // Refused before connecting: nothing was sent, so nothing ran.
    socket.once('close', () => resolve(connected ? replyOf(Buffer.concat(chunks), failed) : { kind: 'unreached' }));
  });

/** The server's answer, as the hook process would have ended: a deny the reader never got blocks instead. */
const reproduce = (answer: CommandAnswer): void => {
  process.exitCode = answer.exitCode;
  try {
    if (answer.stdout) emit(1, answer.stdout);
  } catch (error) {
    if (!answer.stops) return;
    process.exitCode = 2;
    emit(2, `fettle could not deliver its answer (${(error as Error).message}); nothing was written.\n`);
    return;
  }
  if (answer.stderr) emit(2, answer.stderr);
};

/** The call may have reached the hook and no answer came: blocked (exit 2), as a supervised hook that died is. */
const lost = (input: Buffer, pid: number | undefined, why: string): CommandAnswer => {
  const event = sniffEvent(input);
  const which = pid === undefined ? '' : ` (pid ${pid})`;
  const server = `the resident hook server${which} it handed the call to ended without an answer (${why})`;
  const stderr =
    event === undefined || /^(Pre|Before)/.test(event)
      ? `fettle blocked this tool call: ${server}; nothing was written. Make the call again.\n`
      : `fettle could not tell whether this ${event} was recorded: ${server}.\n`;
  return { exitCode: 2, stdout: '', stderr, stops: true };
};

/**
 * The call sent to the server's socket, else to its port: a socket nobody listens on (its server died, or a
 * stop left it) took nothing, and the port is tried as when there is no socket.
 */
const send = async (
  paths: ServePaths,
  to: { socket?: string | undefined; port?: Found | undefined },
  body: Buffer,
): Promise<{ reply: Reply; pid: () => number | undefined }> => {
  if (to.socket) {
    const reply = await ask({ socket: to.socket }, body);
    if (reply.kind !== 'unreached') return { reply, pid: () => namedPid(paths) };
  }
  const port = to.port ?? findServer(paths);
  return { reply: port ? await ask(port, body) : { kind: 'unreached' }, pid: () => port?.pid };
};

/**
 * Hands the call to the running server, if there is one and it may take it. Not handed off: a supervised
 * child's call, a call with failpoints armed (they arm a process, not a call), and a large input.
 */
export const handOff = async (agent: string | undefined, env: NodeJS.ProcessEnv): Promise<HandOff> => {
  if (env.FETTLE_HOOK_CHILD === '1' || env.FETTLE_FAILPOINTS) return { answered: false };
  const paths = servePaths(env);
  const socket = serverSocket(paths);
  const port = socket ? undefined : findServer(paths);
  if (!socket && !port) return { answered: false, absent: true };
  let input: Buffer;
  try {
    input = await readStdin();
  } catch (error) {
    return { answered: false, read: () => Promise.reject(error) };
  }
  if (input.length >= HAND_OFF_MAX) return { answered: false, read: async () => input };
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) vars[name] = value;
  const script = process.argv[1] ?? '';
  const { reply, pid } = await send(
    paths,
    { socket, port },
    encodeCall({ agent, cwd: process.cwd(), script, env: vars, input }),
  );
  // Nothing listened (a socket a dead server left): no server runs. A refusal came from one that does.
  if (reply.kind === 'unreached') return { answered: false, read: async () => input, absent: true };
  if (reply.kind === 'refused') return { answered: false, read: async () => input };
  reproduce(reply.kind === 'answered' ? reply.answer : lost(input, pid(), reply.why));
  return { answered: true };
};
