// fettle started as a process of its own, for an edge whose process must not wait for it (storage maintenance; the
// note of a commit a person's `git commit` does not wait for). It outlives its parent at a lower priority.
import { spawn } from 'node:child_process';
import type { Env } from '../config';
import { lowerPriority } from '../store/git';

/** Starts `fettle <args>` in `dir`, detached; its stderr to `stderrFd` (else nowhere). False if it did not start. */
export const startDetached = (
  script: string,
  dir: string,
  args: readonly string[],
  env: Env,
  stderrFd?: number,
): boolean => {
  try {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: dir,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', 'ignore', stderrFd ?? 'ignore'],
    });
    child.unref();
    lowerPriority(child.pid); // its git processes inherit it
    return child.pid !== undefined;
  } catch {
    return false;
  }
};
