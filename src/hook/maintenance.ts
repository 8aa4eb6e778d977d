// Storage maintenance after a write (protocol/housekeeping.ts decides when it is due): how each kind of hook starts it.
import { spawn } from 'node:child_process';
import type { Context } from '../protocol/context';
import type { HookEdge } from './edge';

/**
 * A hook process starts storage maintenance as `fettle gc --auto`, a process of its own that outlives it; the
 * resident server runs it in process instead, after its answers (edge.background).
 */
export const detachFor = (edge: HookEdge): Context['detach'] => {
  const script = edge.script;
  if (edge.background || !script) return undefined;
  return (store) => {
    const dir = store.kind === 'repo' ? store.workTree : '/';
    try {
      spawn(process.execPath, [script, '-C', dir, 'gc', '--auto'], {
        cwd: dir,
        env: edge.env as NodeJS.ProcessEnv,
        detached: true,
        stdio: 'ignore',
      }).unref();
    } catch {
      // maintenance only saves space; the next write starts it again
    }
  };
};

/** What a write step's context takes from the edge: the resident server's state, or how to start maintenance. */
export const residentParts = (edge: HookEdge): Pick<Context, 'resident' | 'background' | 'detach'> => ({
  resident: edge.resident,
  background: edge.background,
  detach: detachFor(edge),
});
