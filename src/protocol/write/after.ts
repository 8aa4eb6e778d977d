// The write protocol's after steps (before.ts has the before step): what landed is recorded on the change the
// before step started for the tool call; a failed call settles it (failed-write.ts).
import { sameBytes } from '../../core/content';
import { changeCounts, countChanges } from '../../core/diff';
import { shapeOf, type WriteShape } from '../../core/direct-note';
import type { RecordFields } from '../../core/record-message';
import { writtenBytes } from '../../core/text-file';
import type { WriteCall } from '../../core/tool-call';
import { FettleError } from '../../errors';
import { type DiskFile, readDisk } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { readFile } from '../../store/object-read';
import type { Target } from '../../store/store';
import { callName, forgetCall } from '../record/call-answers';
import { type Claimed, claimWrite, digest } from '../record/call-links';
import { loadChange } from '../changes';
import { locateWritten } from './target';
import type { Context, Origin } from '../context';
import { settleFailedWrite } from './failed-write';
import { housekeep } from '../retention/housekeeping';
import { recordLanding } from '../record/record';
import { type OtherSession, otherSessionWrote } from '../other-session';

export type After =
  | { kind: 'none' }
  | {
      kind: 'recorded';
      target: Target;
      id: string;
      fields: RecordFields;
      shape: WriteShape;
      /** another agent session changed the file since this session last wrote it (other-session.ts) */
      since?: OtherSession | undefined;
      /** what is on disk now, and whether it is exactly what fettle predicted the call would write */
      landed: DiskFile | null;
      predicted: boolean;
    };

const WRITTEN_THEN_REPLACED =
  'The bytes this Write wrote; another writer replaced them before fettle recorded the write.';
const REPLACED_BY_ANOTHER =
  "Found on disk after this Write: another writer replaced its bytes (kept in this commit's second parent) before fettle recorded them.";

/** The record the before step started for this tool call (its link claimed), or null when there is none. */
const startedRecord = async (ctx: Context, call: WriteCall, origin: Origin) => {
  const { toolUse } = origin;
  if (!toolUse) return null;
  const target = await locateWritten(ctx, call.filePath);
  // The call reported back: no retry of its PreToolUse can come now.
  await forgetCall(target.store.commonDir, callName(origin.session, toolUse, call));
  const claimed = await claimWrite(target.store, toolUse);
  if (!claimed) return null;
  const { pending } = claimed;
  try {
    if (pending.file !== target.realPath) {
      await claimed.restore();
      return null;
    }
    const change =
      pending.tip && pending.fields
        ? { tip: pending.tip, fields: pending.fields }
        : await loadChange(ctx, target.store, pending.id);
    return { target, pending, change, claimed };
  } catch (error) {
    await claimed.restore();
    throw error;
  }
};

/** Completes the started record with `complete`; the link goes only once that is done, else it is put back. */
const completing = async <T>(claimed: Claimed, complete: () => Promise<T>): Promise<T> => {
  try {
    const result = await complete();
    await claimed.release();
    return result;
  } catch (error) {
    await claimed.restore();
    throw error;
  }
};

/** After the tool wrote: what landed is recorded on the change the before step started. */
export const afterWrite = async (ctx: Context, call: WriteCall, origin: Origin): Promise<After> => {
  const started = await startedRecord(ctx, call, origin);
  if (!started) return { kind: 'none' };
  return completing(started.claimed, () => recordLanded(ctx, call, started));
};

type Started = NonNullable<Awaited<ReturnType<typeof startedRecord>>>;

const recordLanded = async (ctx: Context, call: WriteCall, started: Started): Promise<After> => {
  const { target, pending, change } = started;
  await failpoint('after.claimed');
  const kind = change.fields.kind === 'before' ? 'after' : change.fields.kind === 'proposal' ? 'applied' : null;
  if (!kind) throw new FettleError('E_CONFLICT', `change ${pending.id} was already completed by another process.`);
  const landed = await readDisk(target.realPath);
  const predicted =
    pending.expect !== undefined && landed !== null && pending.expect === digest(landed.bytes, pending.random);
  // The recorded previous bytes, read once, if at all (only when what landed differs from fettle's prediction).
  let recordedBytes: Promise<Buffer | null> | undefined;
  const recordedOld = () =>
    (recordedBytes ??= readFile(target.store, change.tip, change.fields.path).then((f) => f?.bytes ?? null));
  const countsTo = async (bytes: Buffer | null) => countChanges(await recordedOld(), bytes);
  const writeOf = async (content: string) => {
    const bytes = writtenBytes(content, await recordedOld());
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(content, 'utf8');
  };
  // A proposal that lands through the tool was allowed at the agent's permission prompt.
  const decided = kind === 'applied' ? { ...change.fields, decidedBy: 'prompt' } : change.fields;
  const recount =
    predicted || change.fields.reason === 'new-file'
      ? undefined
      : changeCounts(await recordedOld(), landed?.bytes ?? null);
  const fields = recount ? { ...decided, added: recount.added, removed: recount.removed } : decided;
  const shape = shapeOf(landed?.bytes ?? null, predicted ? pending.modified : recount?.modified);
  // The tool reported success, so a Write's bytes were on disk; if other bytes are there now, another writer
  // replaced them before this step ran. The Write's own bytes (in the file's encoding, its BOM kept) are kept
  // too, so they can be restored.
  const asked = kind === 'after' && !predicted && call.tool === 'Write' ? await writeOf(call.content) : null;
  const replaced =
    asked && !sameBytes(asked, landed?.bytes)
      ? { bytes: asked, fields: { ...change.fields, ...(await countsTo(asked)), note: WRITTEN_THEN_REPLACED } }
      : undefined;
  const recorded = replaced ? { ...fields, note: REPLACED_BY_ANOTHER } : fields;
  const previous = { id: pending.id, tip: change.tip, fields: recorded };
  const { found } = await recordLanding(ctx, target.store, previous, landed, { kind, replaced });
  // Only where the session's tree did not hold the bytes replaced: a write over its own costs no lookup.
  const { session } = fields;
  const since =
    found === undefined || session === undefined
      ? undefined
      : await otherSessionWrote(ctx, target.store, { session, path: fields.path, oid: found?.oid ?? null });
  await housekeep(ctx, target.store);
  return { kind: 'recorded', target, id: pending.id, fields, shape, ...(since ? { since } : {}), landed, predicted };
};

/** After the tool failed: the record the before step started is settled (see failed-write.ts). */
export const afterFailedWrite = async (
  ctx: Context,
  call: WriteCall,
  origin: Origin,
  error?: string,
): Promise<void> => {
  const started = await startedRecord(ctx, call, origin);
  if (started)
    await completing(started.claimed, () =>
      settleFailedWrite(
        ctx,
        started.target.store,
        { id: started.pending.id, change: started.change, realPath: started.target.realPath },
        error,
      ),
    );
};
