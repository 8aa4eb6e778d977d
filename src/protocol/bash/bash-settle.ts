// The end of a turn (Stop) or of the session for the session's Bash commands whose PostToolUse never finished: what
// each changed is recorded from the disk (bash.ts settleSnapshot), leaving out what other records hold. A
// PostToolUse the client killed at exit may have got part of the way: its record stands, and one it left between
// its two ref transactions (previous bytes recorded, what landed not yet) is completed from the disk.
import { join } from 'node:path';
import { readDisk } from '../../io/atomic-write';
import { commonDirNear, openStoreAt } from '../../store/locate';
import type { Store } from '../../store/store';
import { settleSnapshot } from './bash';
import { takeSnapshot, type OpenSnapshot, type Snapshot } from './bash-state';
import { type Change, listChanges } from '../changes';
import type { Context } from '../context';
import { recordAfters } from '../record/record-many';

const SETTLED_NOTE =
  "Recorded from the disk at the end of the turn: the command's PostToolUse never reported (a headless run exits before it, or the call was denied or cut short), so some of these changes may not be its.";

/** Cheap when there is none: a directory read (settle-session.ts), no git process. */
export const settleBashSession = async (ctx: Context, open: OpenSnapshot[]): Promise<void> => {
  let first: unknown;
  for (const { path, snapshot } of open) {
    const claimed = await takeSnapshot(path);
    if (!claimed) continue;
    try {
      const { exclude, halfDone } = await recordsSince(ctx, snapshot);
      await completeHalfDone(ctx, snapshot, halfDone);
      await settleSnapshot(ctx, snapshot, { extra: [SETTLED_NOTE], exclude: (p) => exclude.has(p) });
      await claimed.release();
    } catch (error) {
      await claimed.restore();
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
};

/**
 * Paths not to record from the disk: those the session's other records changed after the snapshot was taken
 * (theirs, not the command's), and those this very call already recorded; and of the latter, those whose record
 * has its previous bytes only.
 */
const recordsSince = async (
  ctx: Context,
  snapshot: Snapshot,
): Promise<{ exclude: Set<string>; halfDone: { store: Store; changes: Change[] } | null }> => {
  if ((await commonDirNear(snapshot.workTree)) === null) return { exclude: new Set(), halfDone: null };
  const store = await openStoreAt(snapshot.workTree, ctx.env, ctx.config.dataDir);
  const changes = (await listChanges(ctx, store)).filter((c) => c.fields.session === snapshot.session);
  const own = changes.filter((c) => c.fields.toolUse === snapshot.toolUse);
  const later = changes.filter((c) => c.fields.toolUse !== snapshot.toolUse && c.at.getTime() >= snapshot.startedAt);
  return {
    exclude: new Set([...own, ...later].map((c) => c.fields.path)),
    halfDone: { store, changes: own.filter((c) => c.fields.kind === 'before') },
  };
};

/**
 * Completes this call's records that have their previous bytes only, with what is on disk now (what the command
 * left, unless something wrote the file since). A file fettle would not have kept (over the size cap, not a
 * regular file) leaves the record as it is: it still restores the previous bytes.
 */
const completeHalfDone = async (
  ctx: Context,
  snapshot: Snapshot,
  halfDone: { store: Store; changes: Change[] } | null,
): Promise<void> => {
  if (!halfDone || halfDone.changes.length === 0) return;
  const items = [];
  for (const change of halfDone.changes) {
    const landed = await readDisk(join(snapshot.workTree, ...change.fields.path.split('/'))).catch(() => undefined);
    if (landed === undefined || (landed && landed.bytes.length > ctx.config.bashMaxFileBytes)) continue;
    items.push({ previous: { id: change.id, tip: change.tip, fields: change.fields }, landed });
  }
  await recordAfters(ctx, halfDone.store, items);
};
