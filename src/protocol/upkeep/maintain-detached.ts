// Storage maintenance started as a process of its own (`fettle gc --auto`), for an edge whose process must not wait
// for it: a hook process ends before it, and an MCP server answers its client first. If it cannot start, nothing is
// lost (maintenance only saves space, and the next write starts it again).
import type { Env } from '../../config';
import type { Context } from '../context';
import { startDetached } from '../detached';

/** `script`: the running fettle's entry; none (an embedding without one) means no maintenance is started. */
export const detachedMaintenance = (script: string | undefined, env: Env): Context['detach'] => {
  if (!script) return undefined;
  return (store) => {
    const dir = store.kind === 'repo' ? store.workTree : '/';
    startDetached(script, dir, ['-C', dir, 'gc', '--auto'], env);
  };
};
