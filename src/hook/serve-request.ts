// One HTTP request to the resident server: admitted only from this user's own Claude Code (no browser; the
// loopback peer of this uid where the server can tell, else the per-user token), then the very hook the command
// path runs (run.ts runHook), with the session's configuration from the headers. A refused request is answered
// and logged, and nothing of it is read further: no body, no file, no repository. A command hook's call, from
// the same user, goes to serve-command.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { COMMAND_PATH } from '../core/command-call';
import { admit, envFromHeaders } from '../core/hook-server';
import { selfCommand, spellCommands } from '../io/self';
import { MAX_INPUT_BYTES } from '../io/stdin';
import { maintain } from '../protocol/upkeep/maintain';
import { readSession } from '../protocol/serve/serve-state';
import { auditHook, auditing } from './audit';
import type { HookEdge } from './edge';
import { runHook } from './run';
import { answerCommand } from './serve-command';
import { answerOf, wrongTokenAnswer } from './serve-answer';
import { afterAnswer, peerOf, readBytes, refuse, send, type ServerState } from './serve-http';

export type { ServerState };

const readBody = (req: IncomingMessage): Promise<string> =>
  readBytes(req, MAX_INPUT_BYTES).then((body) => body.toString('utf8'));

/** The session id, as Claude Code puts it first in every payload: found without parsing a large body twice. */
const sessionOf = (raw: string): string | undefined =>
  /"session_id"\s*:\s*"([^"\\]{1,200})"/.exec(raw.slice(0, 1000))?.[1];

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
  if (req.url === COMMAND_PATH) return answerCommand(state, req, res);
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
