// Storage maintenance started as a process of its own (`fettle gc --auto`), for an edge whose process must not wait
// for it: a hook process ends before it, and an MCP server answers its client first. It outlives its parent; if it
// cannot start, nothing is lost (maintenance only saves space, and the next write starts it again).
import { spawn } from 'node:child_process';
import type { Env } from '../../config';
import { lowerPriority } from '../../store/git';
import type { Context } from '../context';

/** `script`: the running fettle's entry; none (an embedding without one) means no maintenance is started. */
export const detachedMaintenance = (script: string | undefined, env: Env): Context['detach'] => {
  if (!script) return undefined;
  return (store) => {
    const dir = store.kind === 'repo' ? store.workTree : '/';
    try {
      const child = spawn(process.execPath, [script, '-C', dir, 'gc', '--auto'], {
        cwd: dir,
        env: env as NodeJS.ProcessEnv,
        detached: true,
        stdio: 'ignore',
      });
      child.unref();
      lowerPriority(child.pid); // its git processes inherit it
    } catch {
      // see the file comment
    }
  };
};
