// What the hook's process edge hands every handler: where it runs, its environment, and how it was invoked.
import type { Env } from '../config';

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
  /** the agent named by `fettle hook --agent <name>` (install writes it), if any */
  agent?: string | undefined;
}
