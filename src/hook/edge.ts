// What the hook's process edge hands every handler: where it runs, its environment, and how it was invoked.
import type { Env } from '../config';
import type { Background } from '../protocol/resident';
import type { Resident } from '../store/resident';

export interface HookEdge {
  cwd: string;
  env: Env;
  /** path of the running script, to print commands that run as shown */
  script: string | undefined;
  /** the resident server's kept repositories and git processes; absent in a hook process */
  resident?: Resident | undefined;
  /** the resident server's housekeeping after the answer; absent in a hook process, which does it inline */
  background?: Background | undefined;
}
