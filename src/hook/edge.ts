// What the hook's process edge hands every handler: where it runs, its environment, and how it was invoked.
import type { Env } from '../config';
import type { Context } from '../protocol/context';
import type { Background } from '../protocol/context';
import type { StoreCache } from '../store/store-cache';
import type { AgentName } from '../core/agents';
import type { HookOutcome } from './outcome';

/** The other agents' hooks: one call, in that agent's dialect (agents/run.ts). */
export type AgentAdapters = (
  agent: Exclude<AgentName, 'claude'> | 'opencode',
  data: Record<string, unknown>,
  edge: HookEdge,
) => Promise<HookOutcome>;

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
  /** the resident server's kept repositories and git processes; absent in a hook process */
  resident?: StoreCache | undefined;
  /** the resident server's housekeeping after the answer; absent in a hook process, which does it inline */
  background?: Background | undefined;
  /** the resident server's storage maintenance, run in process; a hook process starts `fettle gc --auto` instead */
  maintenance?: Context['maintenance'];
  /** the agent named by `fettle hook --agent <name>` (install writes it), if any */
  agent?: string | undefined;
  /** the other agents' adapters: only the agents bundle has them (agents/process.ts), so Claude Code's stays lean */
  adapters?: AgentAdapters | undefined;
  /** with FETTLE_AUDIT=1: what the handlers learn as they decide, for the audit line (audit.ts) */
  facts?: AuditFacts | undefined;
}

/** What a handler learned while deciding a call, for its audit line. */
export interface AuditFacts {
  decision?: string;
  id?: string;
  review?: string;
  rule?: string;
  reason?: string;
  /** the store the call's file is recorded in: where its line goes */
  commonDir?: string;
}
