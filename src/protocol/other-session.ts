// Which other agent session wrote the bytes a session's write just replaced: asked only when the session's own tree
// did not hold them (a `found` commit, record.ts), so a write over bytes the session knew costs nothing here. Several
// sessions share one tree; the model whose write replaced another session's work is told whose, and when.
import { readBlobIds } from '../store/object-read';
import type { Store } from '../store/store';
import { listChanges, type Change } from './changes';
import type { Context } from './context';

/** How many of the path's newest changes by other sessions are looked at: the bytes are almost always the newest's. */
const LOOK_BACK = 8;

export interface OtherSession {
  session: string;
  change: string;
  at: Date;
}

/** The newest change of another session than `session` that wrote `oid` at `path`; null when none did. */
export const otherSessionWrote = async (
  ctx: Context,
  store: Store,
  at: { session: string; path: string; oid: string | null },
): Promise<OtherSession | null> => {
  // A path with a newline cannot be asked of cat-file --batch-check (readBlobIds answers null for all).
  if (at.path.includes('\n')) return null;
  // One for-each-ref that prints each tip's message (the tip cache would add a cat-file for records new since it).
  const all = await listChanges(ctx, store, 'git');
  const others = all
    .filter(
      (c): c is Change & { fields: { session: string } } =>
        c.fields.path === at.path &&
        c.fields.session !== undefined &&
        c.fields.session !== at.session &&
        c.state === 'applied',
    )
    .slice(0, LOOK_BACK);
  if (others.length === 0) return null;
  // An applied change's tip is what it wrote: one cat-file --batch-check for all of them.
  const oids = await readBlobIds(
    store,
    others.map((c) => `${c.tip}:${c.fields.path}`),
  );
  const n = oids.findIndex((oid) => oid === at.oid);
  const c = others[n];
  if (c) return { session: c.fields.session, change: c.id, at: c.at };
  return null;
};
