// One HTTP request to the resident server: admitted only from this user's own Claude Code (no browser; the
// loopback peer of this uid where the server can tell, else the per-user token), then the very hook the command
// path runs (run.ts runHook), with the session's configuration from the headers. A refused request is answered
// and logged, and nothing of it is read further: no body, no file, no repository.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { admit, envFromHeaders, peerUid, type ServeAuth } from '../core/hook-server';
import { selfCommand, spellCommands } from '../io/self';
import { MAX_INPUT_BYTES } from '../io/stdin';
import { maintain } from '../protocol/upkeep/maintain';
import type { Background } from '../protocol/context';
import type { Runtime } from '../protocol/serve/runtime';
import { appendLog, readSession, type ServePaths } from '../protocol/serve/serve-state';
import { auditHook, auditing } from './audit';
import type { HookEdge } from './edge';
import type { HookOutcome } from './outcome';
import { runHook } from './run';
import { answerOf, wrongTokenAnswer } from './serve-answer';

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

/** A `token` server cannot tell, and takes every connection for its user's: the token is its check. */
const peerOf = (socket: Socket, state: ServerState): Promise<number | undefined> => {
  let known = peers.get(socket);
  if (!known) {
    known =
      state.auth === 'peer'
        ? readFile('/proc/net/tcp', 'utf8').then(
            (text) => peerUid(text, socket.remotePort ?? -1, state.port),
            () => undefined,
          )
        : Promise.resolve(process.getuid?.());
    peers.set(socket, known);
  }
  return known;
};

const send = (res: ServerResponse, status: number, body: string, close = false): void => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
};

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) {
        req.destroy(new Error(`the hook input is larger than ${MAX_INPUT_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/** The session id, as Claude Code puts it first in every payload: found without parsing a large body twice. */
const sessionOf = (raw: string): string | undefined =>
  /"session_id"\s*:\s*"([^"\\]{1,200})"/.exec(raw.slice(0, 1000))?.[1];

/** A refusal: logged (what, from where; never the body), answered, the connection closed. */
const refuse = async (
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
const afterAnswer = (background: Background, res: ServerResponse): Background => {
  const out = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  return (key, task, pace, o) => background(key, o?.completes ? () => out.then(task) : task, pace, o);
};

/** `status`: the server's report on itself (its build, calls served and refused), for serve-control.ts askStatus. */
const sendStatus = (state: ServerState, res: ServerResponse): void => {
  const { served, refused, inFlight } = state.counts;
  const handedOver = state.handOver !== null;
  const completing = state.runtime.completing();
  const { auth, build } = state;
  send(res, 200, JSON.stringify({ pid: process.pid, build, auth, served, refused, inFlight, completing, handedOver }));
};

/** An admitted hook call: its body run through the hook with the session's configuration, and answered. */
const answerHook = async (state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const raw = await readBody(req);
  const env = envFromHeaders(state.baseEnv, req.headers);
  const session = sessionOf(raw);
  const known = session ? await readSession(state.paths, session) : null;
  if (known?.project) env.CLAUDE_PROJECT_DIR = known.project;
  else delete env.CLAUDE_PROJECT_DIR;
  if (state.handOver) {
    // the server taking over answers (and audits) the call
    const outcome = await state.handOver(raw, env);
    state.counts.served++;
    send(res, 200, answerOf(outcome));
    return;
  }
  const edge: HookEdge = {
    cwd: '/',
    env,
    script: state.script,
    resident: state.runtime.resident,
    background: afterAnswer(state.runtime.background, res),
    // storage maintenance runs here, after the answers; only this bundle carries it (a hook process starts it)
    maintenance: maintain,
    facts: {},
  };
  const outcome = await runHook(raw, edge);
  // The command hook's audit line (process.ts), before the answer as there: once the client has it, the line is in.
  if (auditing(env)) await auditHook(raw, outcome, edge);
  state.counts.served++;
  // fettle's own messages name commands as they run from the session's shell, as the command hook prints them.
  const stderr = outcome.stderr && spellCommands(outcome.stderr, selfCommand(env, state.script));
  send(res, 200, answerOf({ ...outcome, stderr }));
};

export const handle = async (state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const uid = await peerOf(req.socket, state);
  if (uid !== process.getuid?.()) {
    const who = uid === undefined ? 'a peer whose user could not be told' : `user ${uid}`;
    return refuse(state, res, 403, '{}', `a connection from ${who}, not this server's user`);
  }
  const admission = admit(
    { method: req.method, url: req.url, headers: req.headers },
    { port: state.port, token: state.token, auth: state.auth },
  );
  if (!admission.ok) {
    if (admission.kind === 'no-token') {
      // The guard beside this hook saw the same empty variable and no `peer` server: it runs the command path.
      return refuse(state, res, 200, '{}', `${admission.event} without a token (the command hook records it)`);
    }
    const body = admission.why === 'a wrong token' ? wrongTokenAnswer(admission.event) : '{}';
    return refuse(state, res, admission.why === 'a wrong token' ? 200 : admission.status, body, admission.why);
  }
  if (admission.event === 'status') return sendStatus(state, res);
  state.counts.inFlight++;
  try {
    await answerHook(state, req, res);
  } finally {
    state.counts.inFlight--;
    state.counts.last = Date.now();
  }
};
