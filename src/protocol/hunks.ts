// The hunks of a change, as every surface shows and picks them: `fettle review` numbers them, `--hunks` takes
// them, the interactive review and the page decide them. They are read from git's diff of the change's two
// commits (the bytes it was staged on or replaced, and the bytes it proposes or wrote), so the numbers a person
// reads are the numbers a decision uses.
import { classifyContent } from '../core/content';
import { applyHunks, type Hunk, parseHunkList, parseHunks } from '../core/hunks';
import { FettleError } from '../errors';
import { type FileEntry, readFiles } from '../store/object-read';
import { diffCommits } from '../store/patch';
import type { Store } from '../store/store';
import type { Change } from './changes';
import { chainOf, replacedCommit, writtenCommit } from './chains';

export interface ChangeHunks {
  change: Change;
  /** the diff the hunks were read from (coloured when asked for: the same lines) */
  diff: string;
  hunks: Hunk[];
  /** the bytes the hunks go from (staged on, or replaced) and to (proposed, or written); null: no file */
  from: FileEntry | null;
  to: FileEntry | null;
  /** why the change can only be taken whole (binary, a file removed), when it can */
  whole?: string | undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour sequences
const ANSI = /\u001b\[[0-9;]*m/g;

/** A change's hunks; a change fettle never saw the result of has none. */
export const changeHunks = async (store: Store, change: Change, o: { color?: boolean } = {}): Promise<ChangeHunks> => {
  const chain = await chainOf(store, change.tip);
  const to = writtenCommit(chain);
  if (!to) return { change, diff: '', hunks: [], from: null, to: null, whole: 'fettle has no record of its result' };
  const from = replacedCommit(chain);
  const { path } = change.fields;
  const [diff, [before = null, after = null]] = await Promise.all([
    diffCommits(store, from, to, { ...o, path }),
    readFiles(store, [
      { commit: from, path },
      { commit: to, path },
    ]),
  ]);
  const hunks = parseHunks(o.color ? diff.replace(ANSI, '') : diff);
  const binary = [before, after].some((f) => f && classifyContent(f.bytes) !== 'text');
  const whole = binary
    ? 'its content is binary'
    : after === null
      ? 'it removes the file'
      : hunks.length === 0
        ? 'it changes no line'
        : undefined;
  return { change, diff, hunks: binary ? [] : hunks, from: before, to: after, whole };
};

/** The hunks a person picked, checked: each in range, none both kept and dropped. */
export interface Picked {
  keep: number[];
  drop: number[];
  /** the others: they stay pending */
  rest: number[];
}

export const pickHunks = (h: ChangeHunks, keep: number[], drop: number[]): Picked => {
  const { id } = h.change;
  if (h.whole && keep.length + drop.length > 0)
    throw new FettleError('E_USAGE', `Change ${id} can only be decided whole: ${h.whole}.`, {
      hint: `Decide it without --hunks: \`fettle confirm ${id}\` or \`fettle discard ${id}\`.`,
    });
  const count = h.hunks.length;
  const check = (list: number[]) => parseHunkList(list.join(','), count);
  const kept = keep.length ? check(keep) : [];
  const dropped = drop.length ? check(drop) : [];
  const both = kept.filter((k) => dropped.includes(k));
  if (both.length > 0)
    throw new FettleError('E_USAGE', `Hunk ${both[0]} of change ${id} is both kept and dropped.`, {
      hint: 'Decide each hunk once.',
    });
  const rest = h.hunks.map((x) => x.index).filter((k) => !kept.includes(k) && !dropped.includes(k));
  return { keep: kept, drop: dropped, rest };
};

/** The bytes of the change's starting point with `hunks` of it applied. */
export const withHunks = (h: ChangeHunks, hunks: readonly number[]): Buffer =>
  applyHunks(h.from?.bytes ?? Buffer.alloc(0), h.to?.bytes ?? Buffer.alloc(0), h.hunks, new Set(hunks));

/** What hunks of how many a decision took, as a trailer says it: `1,3 of 3`. */
export const hunksTrailer = (picked: readonly number[], count: number): string => `${picked.join(',')} of ${count}`;
