// Links a PreToolUse record to its PostToolUse: a small file per tool call under fettle's folder in the git
// dir, named by a hash of the tool_use_id. Losing one only means the "after" bytes go unrecorded; the
// previous bytes are already safe in git.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cellSources } from '../core/notebook';
import type { RecordFields } from '../core/record';
import type { Store } from '../store/locate';
import { fettleDir } from '../store/worktrees';

export interface PendingWrite {
  id: string;
  /** the real path written, to check the PostToolUse is about the same file */
  file: string;
  /** digest of the bytes fettle predicted the tool would write, when it could predict them */
  expect?: string | undefined;
  /** the change's tip and record when PreToolUse wrote it: PostToolUse commits on top without re-reading refs
   * (the compare-and-swap on the ref still catches anyone who moved it) */
  tip?: string | undefined;
  fields?: RecordFields | undefined;
}

/**
 * What must be equal for a prediction to count as what landed: the bytes, or for a notebook its cells' sources
 * (the tool serialises the JSON its own way, which fettle does not reproduce).
 */
export const digest = (bytes: Buffer, tool?: string): string => {
  const cells = tool === 'NotebookEdit' ? cellSources(bytes.toString('utf8')) : null;
  return createHash('sha1')
    .update(cells ?? bytes)
    .digest('hex');
};

const pathFor = (store: Store, toolUseId: string): string =>
  join(fettleDir(store), 'tool-use', `${createHash('sha1').update(toolUseId).digest('hex').slice(0, 20)}.json`);

export const rememberWrite = async (store: Store, toolUseId: string, pending: PendingWrite): Promise<void> => {
  const path = pathFor(store, toolUseId);
  await mkdir(join(fettleDir(store), 'tool-use'), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, JSON.stringify(pending));
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
};

/** The record started for this tool call, removed from the list; null when there is none. */
export const takeWrite = async (store: Store, toolUseId: string): Promise<PendingWrite | null> => {
  const path = pathFor(store, toolUseId);
  try {
    const pending = JSON.parse(await readFile(path, 'utf8')) as PendingWrite;
    await unlink(path).catch(() => undefined);
    return typeof pending.id === 'string' && typeof pending.file === 'string' ? pending : null;
  } catch {
    return null;
  }
};
