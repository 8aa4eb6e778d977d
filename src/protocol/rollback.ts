// `fettle rollback <id>`: put back the bytes a change replaced. Only over what fettle wrote: if the file
// changed since, merge the undo three ways and apply only a clean result (or --force). The rollback is
// itself recorded as a change, so it can be undone the same way.
import { classifyContent } from '../core/content';
import { diffLines } from '../core/diff';
import { parseRecord } from '../core/record';
import { FettleError } from '../errors';
import { fileModeOf, readDisk, removeFile, replaceFile } from '../io/atomic-write';
import { failpoint } from '../io/failpoint';
import { withLock } from '../io/lock';
import type { Store, Target } from '../store/locate';
import { mergeFile } from '../store/merge';
import { readFile, readObjects, type FileEntry } from '../store/objects';
import { loadChange, type Change } from './changes';
import type { Context } from './context';
import { diskPathOf, fileLockPath } from './paths';
import { recordAfter, recordBefore } from './record';

export interface RollbackResult {
  change: Change;
  /** id of the change that records this rollback (undo it with another rollback) */
  undoId: string;
  how: 'restored' | 'removed' | 'merged' | 'forced';
}

/**
 * The commit holding the bytes the change replaced on disk: the `snapshot` a merging confirm took of the
 * user's edits, else the `before` record. Walks first parents from the tip (a few hops at most).
 */
const replacedCommitOf = async (store: Store, tip: string): Promise<string> => {
  let oid = tip;
  for (let hop = 0; hop < 8; hop++) {
    const [commit] = await readObjects(store, [oid]);
    if (!commit) break;
    const text = commit.body.toString('utf8');
    const kind = parseRecord(text)?.kind;
    if (kind === 'before' || kind === 'snapshot') return oid;
    const parent = /^parent ([0-9a-f]+)$/m.exec(text)?.[1];
    if (!parent) break;
    oid = parent;
  }
  throw new FettleError('E_INTERNAL', `internal error: change at ${tip} has no 'before' record`);
};

/** Equal bytes, where null (no file) equals only null. */
const sameBytes = (a: Buffer | null | undefined, b: Buffer | null | undefined): boolean =>
  a == null || b == null ? (a ?? null) === (b ?? null) : a.equals(b);

const counts = (from: Buffer | null, to: Buffer | null): { added?: number; removed?: number } => {
  const [a, b] = [from ?? Buffer.alloc(0), to ?? Buffer.alloc(0)];
  if (classifyContent(a) !== 'text' || classifyContent(b) !== 'text') return {};
  const d = diffLines(a.toString('utf8'), b.toString('utf8'));
  return d ? { added: d.added, removed: d.removed } : {};
};

export const rollback = async (ctx: Context, store: Store, id: string, options: { force?: boolean } = {}): Promise<RollbackResult> => {
  const change = await loadChange(store, id, ctx.config.ttlSeconds, ctx.now());
  const { fields } = change;
  if (change.state === 'pending' || change.state === 'expired' || change.state === 'discarded') {
    throw new FettleError('E_USAGE', `Change ${id} was never written to disk (it is ${change.state}); there is nothing to roll back.`, {
      hint: change.state === 'pending' ? `Drop it with \`fettle discard ${id}\`.` : undefined,
    });
  }
  const path = diskPathOf(store, fields);
  const target: Target = { store, realPath: path, treePath: fields.path };
  return withLock(fileLockPath(store, fields.path), async () => {
    const previous: FileEntry | null = await readFile(store, await replacedCommitOf(store, change.tip), fields.path);
    // An incomplete record has no "after": fettle does not know what was written, so only --force may proceed.
    const written = change.state === 'incomplete' ? undefined : await readFile(store, change.tip, fields.path);
    const disk = await readDisk(path);
    if (sameBytes(disk?.bytes, previous?.bytes)) {
      throw new FettleError('E_USAGE', `${fields.path} already holds the bytes change ${id} replaced; nothing to roll back.`);
    }
    let bytes = previous?.bytes ?? null;
    let how: RollbackResult['how'] = previous ? 'restored' : 'removed';
    const untouched = written !== undefined && sameBytes(disk?.bytes, written?.bytes);
    if (!untouched && options.force) how = 'forced';
    else if (!untouched) {
      bytes = await mergeUndo(store, id, path, disk?.bytes ?? null, written, previous);
      how = 'merged';
    }
    // Record the bytes about to be replaced first: the rollback is a change like any other.
    const undo = await recordBefore(ctx, target, disk, {
      tier: 'direct', path: fields.path, file: path, reason: 'rollback', tool: 'fettle rollback', ...counts(disk?.bytes ?? null, bytes),
      note: `Rolls back change ${id}.`,
    });
    await failpoint('rollback.recorded');
    if (bytes === null) await removeFile(path);
    else await replaceFile(path, bytes, { mode: disk?.mode ?? (previous ? fileModeOf(previous.mode) : undefined), createOnly: disk === null });
    await failpoint('rollback.file-written');
    await recordAfter(ctx, store, undo.id, undo, await readDisk(path));
    return { change, undoId: undo.id, how };
  });
};

const mergeUndo = async (store: Store, id: string, path: string, disk: Buffer | null, written: FileEntry | null | undefined, previous: FileEntry | null): Promise<Buffer> => {
  const refuse = (why: string) =>
    new FettleError('E_CONFLICT', `${path} changed after fettle wrote it (change ${id}), and ${why}. Nothing was changed.`, {
      hint: `Look at \`git show fettle/${id}\`; to overwrite anyway run \`fettle rollback ${id} --force\` (the current bytes are recorded first).`,
    });
  if (written === undefined) throw refuse('fettle has no record of what the write left on disk');
  if (!disk || !written || !previous) throw refuse('the file was created or deleted since');
  if ([disk, written.bytes, previous.bytes].some((b) => classifyContent(b) !== 'text')) throw refuse('binary content cannot be merged');
  const merged = await mergeFile(store, disk, written.bytes, previous.bytes);
  if (!merged.clean) throw refuse(`undoing it conflicts with those edits (${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'})`);
  return merged.bytes;
};
