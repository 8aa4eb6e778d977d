// A command hook's call (hook/thin.ts), answered by the resident server: the caller's stdin, cwd, script,
// whole environment and agent, run through the very hook its process would run (process.ts), with the other
// agents' adapters where their bundle (agents.js) has them. The answer is what that process would print, and
// its exit code. A refusal (a 4xx) comes before anything of the call is read: its caller then runs it itself.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitCommand, decodeCall, HAND_OFF_MAX, type CommandAnswer, type CommandCall } from '../core/command-call';
import { selfCommand, spellCommands } from '../io/self';
import { maintain } from '../protocol/upkeep/maintain';
import { runAgentHook } from './agents/run';
import { auditHook, auditing } from './audit';
import type { HookEdge } from './edge';
import type { HookOutcome } from './outcome';
import { internalError } from './process';
import { runHook } from './run';
import { afterAnswer, isLocal, readBytes, refuse, send, type ServerState } from './serve-http';

/** The input, and room for the line before it (an environment of a few kilobytes). */
const BODY_MAX = HAND_OFF_MAX + (1 << 20);

/** The hook for one call, as its process runs it (process.ts decide, runHookProcess), in this warm process. */
const runCall = async (state: ServerState, call: CommandCall, res: ServerResponse): Promise<CommandAnswer> => {
  const { env, script, agent } = call;
  const edge: HookEdge = {
    cwd: call.cwd,
    env,
    script,
    agent,
    // `fettle hook` and `--agent claude` load Claude Code's bundle, which has no other agent's adapter
    adapters: agent === undefined || agent === 'claude' ? undefined : runAgentHook,
    resident: state.runtime.resident,
    background: afterAnswer(state.runtime.background, res),
    maintenance: maintain,
    facts: {},
  };
  const raw = call.input.toString('utf8');
  let outcome: HookOutcome;
  try {
    outcome = await runHook(raw, edge);
    if (auditing(env)) await auditHook(raw, outcome, edge);
  } catch (error) {
    outcome = internalError(error, Boolean(env.FETTLE_DEBUG));
  }
  const stderr = outcome.stderr ? spellCommands(outcome.stderr, selfCommand(env, script)) : '';
  return { exitCode: outcome.exitCode, stdout: outcome.stdout ?? '', stderr, stops: outcome.stops === true };
};

/** A command hook's call, from a connection of this server's user (serve-request.ts handle checked it). */
export const answerCommand = async (state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const { port, token, auth } = state;
  const local = isLocal(req.socket);
  const request = { method: req.method, url: req.url, headers: req.headers };
  const admission = admitCommand(request, { port, token, auth, local });
  if (!admission.ok) return refuse(state, res, admission.status, '{}', admission.why);
  // This server's code is no longer the installed fettle's: the caller runs the installed one itself.
  if (state.handOver) return refuse(state, res, 409, '{}', 'a command call while handing over (its caller runs it)');
  state.counts.inFlight++;
  try {
    const body = await readBytes(req, BODY_MAX).catch((error: Error) => error);
    if (body instanceof Error) return refuse(state, res, 413, '{}', `a command call: ${body.message}`);
    const call = decodeCall(body);
    if (typeof call === 'string') return refuse(state, res, 400, '{}', `a command call with ${call}`);
    const answer = await runCall(state, call, res);
    state.counts.served++;
    send(res, 200, JSON.stringify(answer), true);
  } finally {
    state.counts.inFlight--;
    state.counts.last = Date.now();
  }
};
