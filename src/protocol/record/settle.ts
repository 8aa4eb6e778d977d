// Records whose tool call never reported back. PostToolUse runs in the background, and `claude -p` cancels it
// when it exits right after the model's last answer, so the last write of a headless session often leaves its
// record open (`before`, or a proposal a person was asked about) with its tool-use link. What landed is on disk:
// this settles such a record from the disk, as PostToolUse would have, but only what the disk proves, because a
// record whose tool call still waits at a permission prompt is open legitimately:
//   - the disk holds the bytes fettle predicted (or the proposal): the tool wrote them; recorded as `after`
//     (`applied` for a proposal). Always.
//   - the disk still holds the previous bytes: the write did not happen. Only once the call is known to be over
//     (`ended`: the session ended, or its transcript holds the call's result): a direct record is dropped, a
//     proposal marked denied.
//   - anything else (fettle could not predict, or another writer): recorded as `after` once the call is over, or
//     once the record is older than OPEN_GRACE_MS.
import { sameBytes } from '../../core/content';
import { countChanges } from '../../core/diff';
import { readDisk, type DiskFile } from '../../io/atomic-write';
import type { Store } from '../../store/store';
import { readFiles, type FileEntry } from '../../store/object-read';
import { changeRef, updateRefs } from '../../store/refs';
import { FettleError } from '../../errors';
import { loadChange, type Change } from '../changes';
import type { Context } from '../context';
import { discard } from './discard';
import { recordAfter } from './record';
import { claimLink, digest, linksDir, openLinks, type OpenLink } from './call-links';

/** An open record fettle cannot prove settled is left this long before commands record what is on disk. */
export const OPEN_GRACE_MS = 60 * 60 * 1000;

export type Settled = 'recorded' | 'applied' | 'dropped' | 'denied' | 'open' | 'gone';

const SETTLED_NOTE =
  "Recorded from the disk by fettle: the tool call's PostToolUse never reported (a headless run exits before it).";
const UNSURE_NOTE =
  'Recorded from the disk by fettle: the tool call did not report back, and fettle could not predict its result; these bytes were on disk then.';
export const DENIED_NOTE =
  'Denied: the tool call ended without writing it (the person denied it at the prompt, or nobody could answer).';

/** The change an open link names, while its record is still open; null when something else settled it. */
const openChange = async (ctx: Context, store: Store, link: OpenLink): Promise<Change | null> => {
  let change: Change;
  try {
    change = await loadChange(ctx, store, link.pending.id);
  } catch (error) {
    if (error instanceof FettleError && error.code === 'E_NOT_FOUND') return null;
    throw error;
  }
  const open = change.fields.kind === 'before' || (change.fields.kind === 'proposal' && change.state !== 'discarded');
  return open && change.fields.file === link.pending.file ? change : null;
};

/** Settles one open record from the disk (see the file comment); `ended`: the tool call is known to be over. */
export const settleLink = async (
  ctx: Context,
  store: Store,
  link: OpenLink,
  o: { ended: boolean },
): Promise<Settled> => {
  const change = await openChange(ctx, store, link);
  if (!change) {
    await (await claimLink(link.path))?.release(); // stale: its change was settled, removed or replaced
    return 'gone';
  }
  const { fields } = change;
  const proposal = fields.kind === 'proposal';
  const [disk, [previous, proposed]] = await Promise.all([
    readDisk(link.pending.file),
    readFiles(store, [
      { commit: proposal ? `${change.tip}^` : change.tip, path: fields.path },
      ...(proposal ? [{ commit: change.tip, path: fields.path }] : []),
    ]),
  ]);
  const { expect, random } = link.pending;
  const predicted =
    disk !== null &&
    (expect !== undefined ? expect === digest(disk.bytes, random) : proposal && sameBytes(disk.bytes, proposed?.bytes));
  const untouched = sameBytes(disk?.bytes, previous?.bytes);
  const old = ctx.now().getTime() - link.writtenAt > OPEN_GRACE_MS;
  const settle = predicted || (o.ended && untouched) || (!untouched && (o.ended || old));
  if (!settle || (proposal && !predicted && !untouched)) return 'open';
  // Whoever renames the link settles the record: a PostToolUse arriving now finds none and stays quiet.
  const claimed = await claimLink(link.path);
  if (!claimed) return 'open';
  try {
    const outcome = await settleClaimed(ctx, store, change, { disk, previous, predicted, untouched });
    await claimed.release();
    return outcome;
  } catch (error) {
    await claimed.restore();
    throw error;
  }
};

const settleClaimed = async (
  ctx: Context,
  store: Store,
  change: Change,
  o: { disk: DiskFile | null; previous: FileEntry | null | undefined; predicted: boolean; untouched: boolean },
): Promise<Settled> => {
  const { fields } = change;
  const proposal = fields.kind === 'proposal';
  const { disk, previous } = o;
  if (o.predicted) {
    // A proposal on disk was allowed at the agent's permission prompt.
    const decidedBy = proposal ? 'prompt' : fields.decidedBy;
    const settled = { id: change.id, tip: change.tip, fields: { ...fields, note: SETTLED_NOTE, decidedBy } };
    await recordAfter(ctx, store, settled, disk, { kind: proposal ? 'applied' : 'after' });
    return proposal ? 'applied' : 'recorded';
  }
  if (o.untouched && proposal) {
    await discard(ctx, store, change.id, { note: DENIED_NOTE, decidedBy: 'prompt' });
    return 'denied';
  }
  if (o.untouched) {
    await updateRefs(
      store,
      [{ op: 'delete', ref: changeRef(change.id), old: change.tip }],
      `fettle: ${fields.tool ?? 'write'} never ran, nothing changed`,
    );
    return 'dropped';
  }
  const counts = fields.reason === 'new-file' ? {} : countChanges(previous?.bytes ?? null, disk?.bytes ?? null);
  await recordAfter(
    ctx,
    store,
    { id: change.id, tip: change.tip, fields: { ...fields, ...counts, note: UNSURE_NOTE } },
    disk,
  );
  return 'recorded';
};

/** Settles what `links` can be settled; the outcomes in the same order. One failure does not stop the others. */
export const settleLinks = async (
  ctx: Context,
  store: Store,
  links: OpenLink[],
  ended: (link: OpenLink) => boolean,
): Promise<Settled[]> => {
  const out: Settled[] = [];
  let first: unknown;
  for (const link of links) {
    try {
      out.push(await settleLink(ctx, store, link, { ended: ended(link) }));
    } catch (error) {
      first ??= error;
      out.push('open');
    }
  }
  if (first !== undefined) throw first;
  return out;
};

/**
 * For commands: records left open (a `before` record, a proposal a person was asked about) are settled when the
 * disk proves their result, before they are shown or rolled back. True when anything changed, so the caller lists
 * again. Nothing is read when no change is open.
 */
export const settleMet = async (ctx: Context, store: Store, changes: Change[]): Promise<boolean> => {
  const open = new Set(
    changes
      .filter(
        (c) =>
          c.state !== 'discarded' &&
          (c.fields.kind === 'before' || (c.fields.kind === 'proposal' && c.fields.review === 'person')),
      )
      .map((c) => c.id),
  );
  if (open.size === 0) return false;
  const links = (await openLinks(linksDir(store.commonDir))).filter((l) => open.has(l.pending.id));
  if (links.length === 0) return false;
  const outcomes = await settleLinks(ctx, store, links, () => false);
  return outcomes.some((o) => o !== 'open');
};
