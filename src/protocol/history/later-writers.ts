// Who else wrote a file since the changes a rollback undoes, named where the rollback merges around their bytes or
// refuses to overwrite them: another agent session's changes, a person's own fettle command, and bytes on disk that
// no record explains (a person's editor, a program fettle does not watch). Several sessions share one tree; a
// rollback of one of them says whose work it kept or would have lost (Claude Code #28078).
import type { DiskFile } from '../../io/atomic-write';
import type { Store } from '../../store/store';
import { hashObject } from '../../store/tree-codec';
import type { Change } from '../changes';
import { idsOf } from './rollback-runs';

/** Who wrote a file since, as the end of "…, by <who>": `session A (changes 1a2b3c4d, 5e6f7a8b)`, `a person (change …)`. */
export type WhoWrote = (current: DiskFile | null) => Promise<string>;

export const UNRECORDED = 'a person or a program fettle did not record';

const writerOf = (c: Change): string => {
  if (c.fields.session !== undefined) return `session ${c.fields.session}`;
  return c.fields.decidedBy === 'person' ? 'a person' : 'a command outside any agent session';
};

/**
 * For one file: the changes fettle recorded to it since the oldest of `undoing` (newest first, still in effect,
 * none of `undoing`), and whether the disk holds what the newest of them wrote; when it does not, someone fettle did
 * not record wrote it last.
 */
export const laterWriters = (
  store: Store,
  listed: () => Promise<Change[]>,
  undoing: Change[],
  path: string,
): WhoWrote => {
  const own = new Set(undoing.map((c) => c.id));
  const since = Math.min(...undoing.filter((c) => c.fields.path === path).map((c) => c.at.getTime()));
  return async (current) => {
    const later = (await listed()).filter(
      (c) =>
        c.fields.path === path && !own.has(c.id) && c.state === 'applied' && !c.revertedBy && c.at.getTime() >= since,
    );
    const ids = new Map<string, string[]>();
    for (const c of later) ids.set(writerOf(c), [...(ids.get(writerOf(c)) ?? []), c.id]);
    const named = [...ids].map(([who, of]) => `${who} (${of.length === 1 ? 'change' : 'changes'} ${of.join(', ')})`);
    const [newest] = later;
    let unrecorded = true;
    if (newest) {
      const [wrote] = await idsOf(store, [newest]);
      const disk = current ? hashObject('blob', current.bytes, store.objectFormat) : null;
      unrecorded = wrote?.writtenOid !== disk;
    }
    return [...named, ...(unrecorded ? [UNRECORDED] : [])].join(' and ');
  };
};

/**
 * Whether another session's change wrote the bytes a shell command's change left (`current`, which the disk still
 * holds): a file another session wrote while the command ran is recorded with the command too (git status sees
 * both), and undoing the command would take the other session's work. Names that session and change; null if none.
 * A change undone by the same rollback (`rolling`) takes nobody's work: two overlapping commands undone together.
 */
export const claimedFrom = (
  store: Store,
  listed: () => Promise<Change[]>,
  change: Change,
  rolling: readonly Change[] = [],
): ((current: DiskFile | null) => Promise<string | null>) => {
  const together = new Set(rolling.map((c) => c.id));
  return async (current) => {
    const { path, session } = change.fields;
    const theirs = (await listed()).filter(
      (c) =>
        !together.has(c.id) &&
        c.fields.path === path &&
        c.fields.session !== undefined &&
        c.fields.session !== session &&
        c.state === 'applied' &&
        !c.revertedBy,
    );
    if (theirs.length === 0 || path.includes('\n')) return null;
    const wrote = await idsOf(store, theirs);
    const disk = current ? hashObject('blob', current.bytes, store.objectFormat) : null;
    const n = wrote.findIndex((w) => w.writtenOid === disk);
    const c = theirs[n];
    return c ? `session ${c.fields.session} (change ${c.id})` : null;
  };
};
