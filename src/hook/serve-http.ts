// What every request of the resident server shares (serve-request.ts answers Claude Code's HTTP hooks,
// serve-command.ts the command hooks' calls): the server's state, who owns a connection, answering, refusing,
// reading a body, and the housekeeping that waits for an answer.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { peerUid, type ServeAuth } from '../core/hook-server';
import type { Background } from '../protocol/context';
import type { Runtime } from '../protocol/serve/runtime';
import { appendLog, type ServePaths } from '../protocol/serve/serve-state';
import type { HookOutcome } from './outcome';

export interface ServerState {
  paths: ServePaths;
  port: number;
  token: string;
  /** `peer`: each connection's owner is checked (Linux), and a call of this user needs no token */
  auth: ServeAuth;
  /** cli.js, which hook messages name as the command to run */
  script: string;
  runtime: Runtime;
  /** the command path, for a call this server must not answer with its own code (see serve-build.ts) */
  handOver: ((raw: string, env: NodeJS.ProcessEnv) => Promise<HookOutcome>) | null;
  /** a short hash of the bundles this server runs */
  build: string;
  /** the server's own environment, copied once (reading process.env costs a call per variable) */
  baseEnv: Readonly<Record<string, string | undefined>>;
  counts: { served: number; refused: number; inFlight: number; last: number };
}

/** Who owns the other end of each connection (a `peer` server), looked up once per connection. */
const peers = new WeakMap<Socket, Promise<number | undefined>>();

/** Connections on the server's Unix socket (protocol/serve/serve-socket.ts): its user's, by its directory's mode. */
const local = new WeakSet<Socket>();

export const markLocal = (socket: Socket): void => void local.add(socket);

export const isLocal = (socket: Socket): boolean => local.has(socket);

/** A `token` server cannot tell, and takes every connection for its user's: the token is its check. */
export const peerOf = (socket: Socket, state: ServerState): Promise<number | undefined> => {
  let known = peers.get(socket);
  if (!known) {
    known =
      state.auth === 'peer' && !local.has(socket)
        ? readFile('/proc/net/tcp', 'utf8').then(
            (text) => peerUid(text, socket.remotePort ?? -1, state.port),
            () => undefined,
          )
        : Promise.resolve(process.getuid?.());
    peers.set(socket, known);
  }
  return known;
};

export const send = (res: ServerResponse, status: number, body: string, close = false): void => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
};

/** The request's body, as bytes; one larger than `max` ends the request. */
export const readBytes = (req: IncomingMessage, max: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.destroy(new Error(`the request is larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** A refusal: logged (what, from where; never the body), answered, the connection closed. */
export const refuse = async (
  state: ServerState,
  res: ServerResponse,
  status: number,
  body: string,
  why: string,
): Promise<void> => {
  state.counts.refused++;
  await appendLog(state.paths, `refused: ${why}`).catch(() => undefined);
  send(res, status, body, true);
  res.once('finish', () => res.socket?.destroy());
};

/** Work that completes this call (see Background) starts once its answer is out, or the client is gone. */
export const afterAnswer = (background: Background, res: ServerResponse): Background => {
  const out = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  return (key, task, pace, o) => background(key, o?.completes ? () => out.then(task) : task, pace, o);
};
