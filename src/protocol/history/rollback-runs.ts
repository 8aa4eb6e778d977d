// Which of a file's changes follow each other (each one's previous bytes are what the one before it wrote), told
// from blob ids alone, without reading any content: such a run is undone at once, from its two ends.
import { readBlobIds } from '../../store/object-read';
import type { Store } from '../../store/store';
import type { Change } from '../changes';
import { chainsOf, replacedCommit, type Chain, writtenCommit } from '../chains';

/** Each change's previous commit and written commit (if any), and the blob ids at its path: no content read. */
export const idsOf = async (store: Store, changes: Change[]) => {
  const chains = await chainsOf(
    store,
    changes.map((c) => c.tip),
  );
  const commits = changes.map((c, n) => {
    const chain = chains[n] as Chain;
    return { previous: replacedCommit(chain), written: writtenCommit(chain), path: c.fields.path };
  });
  const specs = commits.flatMap((c) => [`${c.previous}:${c.path}`, ...(c.written ? [`${c.written}:${c.path}`] : [])]);
  const oids = await readBlobIds(store, specs);
  let i = 0;
  return commits.map((c) => {
    const previous = oids[i++] ?? null;
    const written = c.written ? (oids[i++] ?? null) : undefined;
    return { ...c, previousOid: previous, writtenOid: written };
  });
};

export type Ids = Awaited<ReturnType<typeof idsOf>>[number];

/** Whether each change's previous bytes are what the one before it wrote: then only the ends matter. */
export const consecutive = (run: Ids[]): boolean =>
  run.every((c, n) => c.writtenOid !== undefined && (n === 0 || c.previousOid === run[n - 1]?.writtenOid));

export type Member = { change: Change; ids: Ids };

/**
 * A file's changes, oldest first, as one consecutive run if they form one: in time order, or else (records of
 * different processes in the same millisecond have no order in time) by following each change's written bytes
 * to the change that replaced them, when that leads one way only. Null when they do not form one run.
 */
export const asRun = (group: Member[]): Member[] | null => {
  if (consecutive(group.map((m) => m.ids))) return group;
  const left = new Set(group);
  const produced = new Set(group.map((m) => m.ids.writtenOid));
  const starts = group.filter((m) => !produced.has(m.ids.previousOid));
  if (starts.length !== 1) return null;
  const run: Member[] = [];
  for (let at: Member | undefined = starts[0]; at; ) {
    run.push(at);
    left.delete(at);
    const next: Member[] = [...left].filter((m) => m.ids.previousOid === at?.ids.writtenOid);
    if (next.length > 1) return null;
    at = next[0];
  }
  return left.size === 0 && consecutive(run.map((m) => m.ids)) ? run : null;
};
