// A write tool that failed after fettle recorded the file (PostToolUseFailure: the edit did not match, the
// call was interrupted, the disk refused it). If the file is as it was, nothing happened: the record has
// nothing to keep and is dropped, so `status` and `log` do not show a change that never was. If the file
// changed anyway (a partial write, or another writer), what is there is recorded, as for a write that landed.
import { sameBytes } from '../../core/content';
import type { RecordFields } from '../../core/record-message';
import { readDisk } from '../../io/atomic-write';
import type { Store } from '../../store/store';
import { readFile } from '../../store/object-read';
import { changeRef, updateRefs } from '../../store/refs';
import type { Context } from '../context';
import { recordAfter } from '../record/record';

export type FailedOutcome = 'dropped' | 'recorded' | 'kept';

/** The record a tool call opened: its change id, its tip and record, and the file's real path. */
export interface OpenRecord {
  id: string;
  change: { tip: string; fields: RecordFields };
  realPath: string;
}

export const settleFailedWrite = async (
  ctx: Context,
  store: Store,
  { id, change, realPath }: OpenRecord,
  error: string | undefined,
): Promise<FailedOutcome> => {
  // A staged change a human approved, whose tool then failed, stays pending: `fettle confirm` can still apply it.
  if (change.fields.kind !== 'before') return 'kept';
  const [disk, recorded] = await Promise.all([readDisk(realPath), readFile(store, change.tip, change.fields.path)]);
  if (sameBytes(disk?.bytes, recorded?.bytes)) {
    await updateRefs(
      store,
      [{ op: 'delete', ref: changeRef(id), old: change.tip }],
      `fettle: ${change.fields.tool ?? 'write'} failed, nothing changed`,
    );
    return 'dropped';
  }
  const why = error
    ?.split('\n')
    .find((l) => l.trim() !== '')
    ?.trim()
    .slice(0, 200);
  const note = `The tool reported a failure${why ? ` (${why})` : ''}; these bytes were on disk after it.`;
  await recordAfter(ctx, store, { id, tip: change.tip, fields: { ...change.fields, note } }, disk);
  return 'recorded';
};
