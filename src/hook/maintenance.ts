// Storage maintenance after a write (protocol/retention/housekeeping.ts decides when it is due): how each kind of hook starts it.
import type { Context } from '../protocol/context';
import { detachedMaintenance } from '../protocol/upkeep/maintain-detached';
import type { HookEdge } from './edge';

/**
 * A hook process starts storage maintenance as `fettle gc --auto`, a process of its own that outlives it; the
 * resident server runs it in process instead, after its answers (edge.background).
 */
export const detachFor = (edge: HookEdge): Context['detach'] =>
  edge.background ? undefined : detachedMaintenance(edge.script, edge.env);

/** What a write step's context takes from the edge: the resident server's state, or how to start maintenance. */
export const residentParts = (edge: HookEdge): Pick<Context, 'resident' | 'background' | 'maintenance' | 'detach'> => ({
  resident: edge.resident,
  background: edge.background,
  maintenance: edge.maintenance,
  detach: detachFor(edge),
});
