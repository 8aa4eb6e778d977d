// What every MCP tool gets from the server process, and how its answer is shaped. A tool's failure is a result the
// model reads (`isError: true`, fettle's message and hint), never a JSON-RPC error: the model can act on it.
import { resolve } from 'node:path';
import { clockFrom, loadConfig, type Env } from '../config';
import type { Caller } from '../core/caller';
import { toFettleError } from '../errors';
import { selfCommand, shellQuote, spellCommands } from '../io/self';
import type { Context, Origin } from '../protocol/context';
import { detachedMaintenance } from '../protocol/upkeep/maintain-detached';

export interface McpEdge {
  /** where the server runs (its -C directory): relative paths and the repository of status, log, confirm... */
  cwd: string;
  env: Env;
  script: string | undefined;
  /** this server's session: every change it makes carries it (Fettle-Session) */
  session: string;
  /**
   * This server process's own conversation with its client, which fettle_read's baselines are kept under: the
   * session outlives a restart (select/command-session.ts), but a restarted client has not seen what the last
   * process sent it, so nothing it reads is answered from that.
   */
  conversation: string;
  /** the agent, from the client's name in `initialize` (Fettle-Agent) */
  agent: () => string | undefined;
  /** to stderr: stdout carries protocol messages only */
  log: (text: string) => void;
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  [key: string]: unknown;
}

export const text = (body: string): ToolResult => ({ content: [{ type: 'text', text: body }] });

/** A tool's arguments once checked against its schema (arguments.ts). */
export type Args = Record<string, unknown>;

/** The directory a tool works in: its `directory` argument, else the server's. */
export const dirOf = (edge: McpEdge, args: Args): string =>
  typeof args.directory === 'string' ? resolve(edge.cwd, args.directory) : edge.cwd;

/** Only an agent calls an MCP tool: whatever the server's environment or terminal, the model decides. */
const modelCaller = (edge: McpEdge) => (): Caller => {
  const client = edge.agent();
  return {
    who: 'agent',
    agent: client ?? 'the MCP client',
    via: `as a tool call of the MCP client ${client ?? '(unnamed)'}`,
  };
};

export const contextFor = (edge: McpEdge, args: Args): Context => ({
  cwd: dirOf(edge, args),
  env: edge.env,
  now: clockFrom(edge.env),
  config: loadConfig(edge.env),
  caller: modelCaller(edge),
  notice: (note) => edge.log(note),
  // the server answers first; maintenance runs in a process of its own, as a hook process starts it
  detach: detachedMaintenance(edge.script, edge.env),
});

/** How a printed command spells fettle for a person's shell (or the agent's, when it has one) in `cwd`. */
export const invokeIn = (edge: McpEdge, cwd: string): string => {
  const base = selfCommand(edge.env, edge.script);
  return cwd === edge.cwd ? base : `${base} -C ${shellQuote(cwd)}`;
};

/** Who made a change through this server. Under FETTLE_REVIEW=human, a staged one is a person's to apply. */
export const originOf = (edge: McpEdge, ctx: Context, tool: string): Origin => ({
  session: edge.session,
  tool,
  agent: edge.agent(),
  ...(ctx.config.review === 'human' ? { review: 'person' as const } : {}),
});

/** A failure as the model reads it: fettle's message, then the hint, each command spelled to run as printed. */
export const toolError = (edge: McpEdge, cwd: string, error: unknown): ToolResult => {
  const e = toFettleError(error);
  const invoke = invokeIn(edge, cwd);
  const hint = e.hint === undefined ? '' : `\n${spellCommands(e.hint, invoke)}`;
  if (edge.env.FETTLE_DEBUG && error instanceof Error) edge.log(String(error.stack));
  return { ...text(`fettle: ${spellCommands(e.message, invoke)}${hint}`), isError: true };
};
