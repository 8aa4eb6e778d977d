// What a write leaves to do once it is recorded: retention (a bounded step: retention.ts), and storage
// maintenance when fettle's small packs add up (maintain.ts). In a hook process retention runs before the
// process ends (PostToolUse is a background hook there) and maintenance is started as a process of its own
// (Context.detach); in the resident server both run after the answer (Context.background), maintenance in
// process (Context.maintenance), so a blocking HTTP hook never waits for either.
import { inBackground } from '../../store/git';
import type { Store } from '../../store/store';
import type { Context } from '../context';
import { maintenanceDue } from './maintain-due';
import { BACKGROUND_BATCH, retainQuietly } from './retention';

/** How often the resident server runs each kind of housekeeping per repository, at most. */
const RETAIN_PACE_MS = 5_000;
const MAINTAIN_PACE_MS = 1_000;

export const housekeep = async (ctx: Context, store: Store): Promise<void> => {
  if (ctx.background) {
    // Two queues: a long maintenance run never holds retention back, which must keep up with the writes (100
    // removals a run, every few seconds); maintenance runs once 16 packs add up, and must keep up with them.
    const { background, maintenance } = ctx;
    // Its git processes run niced: the next blocking call must not wait for a core they hold.
    const quiet = { ...store, git: inBackground(store.git) };
    background(`${store.commonDir}\0retain`, () => retainQuietly(ctx, quiet, BACKGROUND_BATCH), RETAIN_PACE_MS);
    if (!maintenance) return;
    background(
      `${store.commonDir}\0maintain`,
      async () => {
        if (await maintenanceDue(quiet)) await maintenance(ctx, quiet);
      },
      MAINTAIN_PACE_MS,
    );
    return;
  }
  await retainQuietly(ctx, store);
  if (ctx.detach && (await maintenanceDue(store))) ctx.detach(store);
};
