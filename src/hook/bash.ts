// Every agent's shell tool: before the command, a snapshot of what it could change; after it, what it changed,
// recorded as one changeset, and one line for the model when files changed (protocol/bash/bash.ts). An obviously
// read-only command (core/bash-command.ts) costs the parse and nothing else: no git process, no file. fettle never
// answers for the command itself: the user's permission rules decide whether it runs. runShell is the same for
// every agent; an adapter brings its call and how its dialect hands the model a line (Claude Code's is runBash).
import { bashFrom, clockFrom, loadConfig } from '../config';
import { classifyCommand } from '../core/bash-command';
import { blockedLine, renderBashRecorded } from '../core/bash-messages';
import { toFettleError } from '../errors';
import { invocationFor, selfCommand } from '../io/self';
import { type After, afterBash, beforeBash, type BashCall } from '../protocol/bash/bash';
import type { Context } from '../protocol/context';
import type { HookEdge } from './edge';
import { residentParts } from './maintenance';
import { block, context, pass, warn, type HookOutcome } from './outcome';
import type { BashPayload } from './payload';
import { commandPolicy } from '../protocol/decide/call-policy';
import { noteCall } from '../protocol/session-state';
import { renderPolicyAsk } from '../core/messages';
import { ask, deny } from './outcome';

const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** How an agent's dialect hands the model a line after its command, and the person one (`user`) when given. */
export type SayAfter = (line: string, user: string | undefined) => HookOutcome;

/** A shell command as an agent's adapter describes it: before it runs, after, or after it failed. */
export interface ShellEvent {
  phase: 'before' | 'after' | 'failed';
  call: BashCall;
  /** a failed command's error, as the client gave it */
  error?: string | undefined;
}

/** What a command that changed files tells the model, and the person too when it changed a blocked path. */
const recordedAnswer = (
  edge: HookEdge,
  ctx: Context,
  after: Extract<After, { kind: 'recorded' }>,
  say: SayAfter,
): HookOutcome => {
  const invoke = invocationFor(selfCommand(ctx.env, edge.script), ctx.cwd, after.store, after.workTree);
  const line = renderBashRecorded({
    changeset: after.changeset,
    changes: after.changes,
    recorded: after.recorded.length,
    overlapped: after.overlapping.length > 0,
    blocked: after.blocked,
    policyInvalid: after.policyInvalid,
    invoke,
  });
  // A blocked path changed: the person is told directly too (Claude Code shows systemMessage to the user).
  const user =
    after.blocked.length > 0 ? `fettle: ${blockedLine(after.blocked).replace(/ Tell the user; $/, '')}` : undefined;
  return say(line, user);
};

/**
 * A snapshot or record that failed: after the command, a warning; before it, the command is blocked, unless
 * FETTLE_ON_ERROR=allow lets it run unprotected.
 */
const failedAnswer = (error: unknown, f: { before: boolean; edge: HookEdge; ctx: Context }): HookOutcome => {
  const e = toFettleError(error);
  if (e.code === 'E_FORBIDDEN_PATH') return pass(); // a shell inside .git: not fettle's to record
  const detail = `${sentence(e.message)}${e.hint ? ` ${sentence(e.hint)}` : ''}${
    f.edge.env.FETTLE_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : ''
  }`;
  if (!f.before) return warn(`fettle: the command ran, but recording what it changed failed: ${detail}`);
  if (f.ctx.config.onError === 'allow')
    return warn(
      `fettle could not save the state of your changed files before this command, so what it changes is NOT protected (FETTLE_ON_ERROR=allow): ${detail}`,
    );
  return block(
    `fettle blocked this command because it could not save the state of your changed files first; nothing ran. Cause: ${detail} To let commands through unprotected until this is fixed, set FETTLE_ON_ERROR=allow (or FETTLE_BASH=off to stop recording commands).`,
  );
};

/**
 * A policy rule about the command line (`"tool": "Bash"`, `"command": <regex>`) that blocks it, or asks a person
 * about it, with what every matching rule says; null when none does. Only Claude Code can ask a person before a
 * command; for any other agent's shell an `ask` rule blocks it, saying so.
 */
const ruledCommand = async (call: BashCall, edge: HookEdge): Promise<HookOutcome | null> => {
  const ctx = { cwd: call.cwd, env: edge.env, now: clockFrom(edge.env), config: loadConfig(edge.env) };
  let policy: Awaited<ReturnType<typeof commandPolicy>>;
  try {
    policy = await commandPolicy(ctx, call.command, call.session);
  } catch {
    return null; // an invalid policy is reported after the command, with what it changed (bash-policy.ts)
  }
  const effect = policy?.effect;
  if (!policy || (effect?.kind !== 'block' && effect?.kind !== 'ask')) return null;
  const said = policy.feedback.map((f) => f.message.trim()).join(' ');
  const rule = `${effect.rule.label} (${policy.files[effect.rule.layer]})`;
  if (effect.kind === 'ask' && call.agent === 'claude')
    return ask(renderPolicyAsk({ path: 'a command', rule, message: said }));
  const verb = effect.kind === 'ask' ? 'asks a person about it, which this agent cannot do' : 'blocks it';
  return deny(
    `fettle blocked this command; nothing ran. Policy rule ${rule} ${verb}: ${said} Do not retry it; tell the user if it is needed.`,
  );
};

/** One event of any agent's shell tool (see the file comment). */
export const runShell = async (e: ShellEvent, edge: HookEdge, say: SayAfter): Promise<HookOutcome> => {
  if (e.phase === 'before') {
    const ruled = await ruledCommand(e.call, edge).catch(() => null);
    return ruled ?? shellEvent(e, edge, say);
  }
  // The session's log of calls is appended beside the comparison (noteCall never fails the call).
  const [, outcome] = await Promise.all([
    noteCall(
      e.call.cwd,
      e.call.session,
      { tool: e.call.tool ?? 'Bash', command: e.call.command },
      clockFrom(edge.env)().getTime(),
    ),
    shellEvent(e, edge, say),
  ]);
  return outcome;
};

/** The snapshot before the command, or what it changed after it. */
const shellEvent = async (e: ShellEvent, edge: HookEdge, say: SayAfter): Promise<HookOutcome> => {
  const before = e.phase === 'before';
  let ctx: Context;
  try {
    if (bashFrom(edge.env) === 'off') return pass();
    // Decided from the text alone: a reader costs nothing more than this.
    if (classifyCommand(e.call.command) !== 'scan') return pass();
    ctx = {
      cwd: e.call.cwd,
      env: edge.env,
      now: clockFrom(edge.env),
      config: loadConfig(edge.env),
      ...residentParts(edge),
    };
  } catch (error) {
    const err = toFettleError(error);
    const detail = `${err.message}${err.hint ? ` ${err.hint}` : ''}`;
    if (!before) return warn(`fettle: ${detail}`);
    return block(`fettle blocked this command because its configuration is invalid; nothing ran. ${detail}`);
  }
  try {
    if (before) {
      await beforeBash(ctx, e.call);
      return pass(); // the command runs through the client's own permission flow
    }
    const after = await afterBash(ctx, e.call, e.phase === 'failed' ? { error: e.error } : undefined);
    if (after.kind === 'none') return pass();
    return recordedAnswer(edge, ctx, after, say);
  } catch (error) {
    return failedAnswer(error, { before, edge, ctx });
  }
};

/** Claude Code's Bash tool. */
export const runBash = (p: BashPayload, edge: HookEdge): Promise<HookOutcome> => {
  const failed = p.event === 'PostToolUseFailure';
  const phase = p.event === 'PreToolUse' ? 'before' : failed ? 'failed' : 'after';
  const call: BashCall = {
    command: p.command,
    cwd: p.cwd ?? edge.cwd,
    session: p.sessionId,
    toolUse: p.toolUseId,
    agent: 'claude',
  };
  const say: SayAfter = (line, user) => context(failed ? 'PostToolUseFailure' : 'PostToolUse', line, user);
  return runShell({ phase, call, error: p.error }, edge, say);
};
