// Whether a write should start storage maintenance (maintain.ts): asked after every write, by a hook process as
// by the resident server, so it stays apart from the maintenance itself, which a hook process never runs (it
// starts `fettle gc --auto`, maintain-detached.ts) and so does not load.
import { readdir } from 'node:fs/promises';
import { packRegistry } from '../../store/objects';
import type { Store } from '../../store/store';

/** Small packs of fettle's before they are rolled into one (git's own auto gc starts at 50 packs). */
export const ROLL_UP_AT = 16;

/** Whether a write should start maintenance: one readdir of fettle's notes, no git. */
export const maintenanceDue = async (store: Store): Promise<boolean> =>
  (await readdir(packRegistry(store)).catch(() => [] as string[])).length >= ROLL_UP_AT;
