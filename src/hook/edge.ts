// What the hook's process edge hands every handler: where it runs, its environment, and how it was invoked.
import type { Env } from '../config';

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
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
