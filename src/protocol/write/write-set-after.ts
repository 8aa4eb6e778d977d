// After a set's tool wrote (write-set.ts has the before step): what landed in each file the before step recorded,
// one transaction per repository. A file that holds what was predicted keeps the counts of its plan; one that
// does not is counted again against the recorded previous bytes.
import { changeCounts } from '../../core/diff';
import { shapeOf, type WriteShape } from '../../core/direct-note';
import type { RecordFields } from '../../core/record-message';
import { readDisk, type DiskFile } from '../../io/atomic-write';
import type { Store } from '../../store/store';
import { readFile } from '../../store/object-read';
import { callName, forgetCall } from '../record/call-answers';
import { claimWrite, digest, type Claimed } from '../record/call-links';
import { locateWritten } from './target';
import type { Context, Origin } from '../context';
import { recordAfters } from '../record/record-many';
import { housekeep } from '../retention/housekeeping';
import { setLink } from './write-set-record';

/** A file of the set as it was recorded, and what the write left (for the note of a set of one). */
export interface SetFileAfter {
  id: string;
  path: string;
  file: string;
  fields: RecordFields;
  shape: WriteShape;
}

export type SetAfter = { kind: 'none' } | { kind: 'recorded'; store: Store; files: SetFileAfter[] };

/** After the tool wrote: what landed in each file the before step recorded, one transaction per repository. */
export const afterWriteSet = async (
  ctx: Context,
  paths: string[],
  input: unknown,
  origin: Origin,
): Promise<SetAfter> => {
  const { toolUse } = origin;
  if (!toolUse) return { kind: 'none' };
  const claimed: { store: Store; realPath: string; link: Claimed }[] = [];
  let forgotten = false;
  for (const [n, path] of paths.entries()) {
    const target = await locateWritten(ctx, path).catch(() => null);
    if (!target) continue;
    if (!forgotten) await forgetCall(target.store.commonDir, callName(origin.session, toolUse, input));
    forgotten = true;
    const link = await claimWrite(target.store, setLink(toolUse, n));
    if (!link) continue;
    if (link.pending.file !== target.realPath || !link.pending.tip || !link.pending.fields) {
      await link.restore();
      continue;
    }
    claimed.push({ store: target.store, realPath: target.realPath, link });
  }
  if (claimed.length === 0) return { kind: 'none' };
  const recorded: SetFileAfter[] = [];
  try {
    const byStore = new Map<string, typeof claimed>();
    for (const c of claimed) byStore.set(c.store.commonDir, [...(byStore.get(c.store.commonDir) ?? []), c]);
    for (const group of byStore.values()) {
      const items = [];
      for (const c of group) {
        const pending = c.link.pending;
        const landed = await readDisk(c.realPath);
        const previous = { id: pending.id, tip: pending.tip as string, fields: pending.fields as RecordFields };
        const predicted =
          pending.expect === 'removed' ? landed === null : landed !== null && pending.expect === digest(landed.bytes);
        const recount = predicted ? undefined : await landedCounts(c, landed);
        const fields = recount
          ? { ...previous.fields, added: recount.added, removed: recount.removed }
          : previous.fields;
        const shape = shapeOf(landed?.bytes ?? null, predicted ? pending.modified : recount?.modified);
        items.push({ previous: { ...previous, fields }, landed });
        recorded.push({ id: pending.id, path: fields.path, file: c.realPath, fields, shape });
      }
      await recordAfters(ctx, (group[0] as (typeof claimed)[number]).store, items);
      await housekeep(ctx, (group[0] as (typeof claimed)[number]).store);
    }
  } catch (error) {
    await Promise.all(claimed.map((c) => c.link.restore()));
    throw error;
  }
  await Promise.all(claimed.map((c) => c.link.release()));
  return { kind: 'recorded', store: (claimed[0] as (typeof claimed)[number]).store, files: recorded };
};

/** Counts against the recorded previous bytes, when what landed is not what was predicted. */
const landedCounts = async (c: { store: Store; realPath: string; link: Claimed }, landed: DiskFile | null) => {
  const fields = c.link.pending.fields as RecordFields;
  const old = await readFile(c.store, c.link.pending.tip as string, fields.path);
  return changeCounts(old?.bytes ?? null, landed?.bytes ?? null);
};
