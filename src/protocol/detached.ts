// fettle started as a process of its own, for an edge whose process must not wait for it (storage maintenance; the
// note of a commit a person's `git commit` does not wait for; the resident server a hook call starts). It outlives
// its parent, in a session of its own.
import { spawn } from 'node:child_process';
import type { Env } from '../config';
import { lowerPriority } from '../store/git';

/**
 * Starts `fettle <args>` in `dir`, detached; its stderr to `o.stderrFd` (else nowhere); at a lower priority unless
 * `o.serving` (the resident server answers hook calls: it must not wait behind them). False if it did not start.
 */
export const startDetached = (
  script: string,
  dir: string,
  args: readonly string[],
  env: Env,
  o: { stderrFd?: number; serving?: boolean } = {},
): boolean => {
  try {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: dir,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', 'ignore', o.stderrFd ?? 'ignore'],
    });
    child.on('error', () => undefined); // reported by the pid, below; an exec that fails later has nobody to tell
    child.unref();
    if (!o.serving) lowerPriority(child.pid); // its git processes inherit it
    return child.pid !== undefined;
  } catch {
    return false;
  }
};
