// Recording many changes at once (a rollback of a whole session, the files of one changeset): every `before`
// record (and a staged item's proposal) in one transaction, then every `after` record, with the session refs'
// commits, in another. The trees along all the paths are read in one cat-file, objects are written in process,
// and each step is one `update-ref --stdin`, so a thousand files cost a handful of git processes. Each change is
// the same chain one file's record would make.
import { renderRecord, type RecordFields } from '../../core/record-message';
import { FettleError } from '../../errors';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import { failpoint } from '../../io/failpoint';
import { commitId, rootOf, writeRecord, type CommitSpec } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import { publish } from '../../store/publish';
import { changeRef, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { hashObject, type NewTree } from '../../store/tree-codec';
import { dirSpecs, dirsAlong, editOverlay, leafAt, overlayOf, type Leaf, type Overlay } from '../../store/tree-overlay';
import type { Context } from '../context';
import { newId, stamp } from '../ids';
import type { Fields } from './record';
import { planSession, retrySession, sessionRead, type Landing } from './session-ref';

export interface Recorded {
  id: string;
  tip: string;
  fields: RecordFields;
  /** the `before` commit (the tip's parent, for a staged item) */
  before?: string | undefined;
}

/** Objects planned in memory, written in one batch (and again, identically, if a prune took them). */
interface Batch {
  blobs: Buffer[];
  trees: NewTree[];
  commits: CommitSpec[];
}

/** Everything in one pack (a second one for bytes of files fewer people may read: see writeObjects). */
const writeAll = async (store: Store, batch: Batch, modes: (number | undefined)[] = [], failpoints = false) => {
  const blobs = batch.blobs.map((bytes, n) => ({ bytes, oid: blobOid(store, bytes), fileMode: modes[n] }));
  if (failpoints) await failpoint('record.blob-written');
  const ids = await writeRecord(store, { blobs, trees: batch.trees, commits: batch.commits });
  if (failpoints) await failpoint('record.commit-written');
  return { ids, oids: [...blobs.map((b) => b.oid), ...batch.trees.map((t) => t.oid), ...ids] };
};

/** The overlay's directories along one path only: each record edits its own copy of the base tree. */
const along = (overlay: Overlay, path: string): Overlay =>
  new Map(dirsAlong([path]).map((d) => [d, overlay.get(d) ?? Buffer.alloc(0)]));

const blobOid = (store: Store, bytes: Buffer): string => hashObject('blob', bytes, store.objectFormat);

/** A blob already in the store, with its git mode. */
export type StoredLeaf = { mode: string; oid: string };

/** One file of a batch: its bytes now, its record's fields, and for a staged change the proposed bytes. */
export interface Item {
  old: DiskFile | null;
  /** instead of `old`, a blob the store already holds (null: no file): nothing is written for it */
  stored?: StoredLeaf | null | undefined;
  fields: Fields;
  /** a proposal on top of `before` (a staged change): the bytes and their git mode; null: it removes the file */
  next?: { bytes: Buffer; mode: string } | null | undefined;
}

/**
 * The records of many files, created in one transaction: each a `before` commit (HEAD plus the file as it is
 * now), and for a staged item a `proposal` commit on top, which its ref then names. Items of one changeset
 * (fields.changeset) are thereby all recorded, or none. `o.ids` names the changes (drawn otherwise); with
 * `o.publish: false` the objects are written and no ref is made (`fettle apply --test` tests them first).
 */
export const recordMany = async (
  ctx: Context,
  store: Store,
  items: Item[],
  o: { ids?: string[]; publish?: boolean } = {},
): Promise<Recorded[]> => {
  if (items.length === 0) return [];
  const when = ctx.now();
  const head = store.head;
  const dirs = dirsAlong(items.map((i) => i.fields.path));
  const base = overlayOf(dirs, await readObjects(store, dirSpecs(head, dirs)));
  for (let attempt = 1; ; attempt++) {
    const batch: Batch = { blobs: [], trees: [], commits: [] };
    const modes: (number | undefined)[] = [];
    const made = items.map(({ old, stored, fields, next }, n) => {
      const id = (attempt === 1 ? o.ids?.[n] : undefined) ?? newId();
      const leaf =
        stored !== undefined ? stored : old ? { mode: gitModeOf(old.mode), oid: blobOid(store, old.bytes) } : null;
      if (old && stored === undefined) {
        batch.blobs.push(old.bytes);
        modes.push(old.mode);
      }
      const own = along(base, fields.path);
      const trees = editOverlay(own, fields.path, leaf, store.objectFormat);
      const message = renderRecord({ ...fields, id, kind: 'before', ...stamp(when) });
      const spec: CommitSpec = { tree: rootOf(trees), parents: head ? [head] : [], message, when };
      batch.trees.push(...trees);
      batch.commits.push(spec);
      if (next === undefined)
        return { id, tip: commitId(store, spec), fields: { ...fields, id, kind: 'before' as const } };
      if (next) {
        batch.blobs.push(next.bytes);
        modes.push(old?.mode);
      }
      const proposedLeaf = next && { mode: next.mode, oid: blobOid(store, next.bytes) };
      const proposed = editOverlay(own, fields.path, proposedLeaf, store.objectFormat);
      const proposal: CommitSpec = {
        tree: rootOf(proposed),
        parents: [commitId(store, spec)],
        message: renderRecord({ ...fields, id, kind: 'proposal', ...stamp(when) }),
        when,
      };
      batch.trees.push(...proposed);
      batch.commits.push(proposal);
      const before = commitId(store, spec);
      return { id, tip: commitId(store, proposal), fields: { ...fields, id, kind: 'proposal' as const }, before };
    });
    const { oids } = await writeAll(store, batch, modes, true);
    if (o.publish === false) return made;
    const creates = made.map((m): RefUpdate => ({ op: 'create', ref: changeRef(m.id), oid: m.tip }));
    try {
      await publish(store, creates, 'fettle: record', { oids, rewrite: () => writeAll(store, batch, modes) });
      await failpoint('record.ref-written');
      return made;
    } catch (error) {
      // A taken id (one in 2.8e12) fails the whole transaction: draw new ones.
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT') || attempt >= 3) throw error;
    }
  }
};

/** `before` records of many files (HEAD plus each file as it is now), created in one transaction. */
export const recordBefores = (
  ctx: Context,
  store: Store,
  items: { old: DiskFile | null; stored?: StoredLeaf | null | undefined; fields: Fields }[],
): Promise<Recorded[]> => recordMany(ctx, store, items);

/** What landed for one record of recordAfters. */
export interface Landed {
  previous: Recorded;
  landed: DiskFile | null;
  /** instead of `landed`, a blob the store already holds (null: no file) */
  stored?: StoredLeaf | null | undefined;
  /** false: not added to its agent session's ref (a file whose bytes fettle did not keep) */
  land?: boolean | undefined;
}

/** One item's `after` commit on its `before`, with its ref's update, added to what the attempt writes. */
const addAfter = (
  store: Store,
  out: { batch: Batch; modes: (number | undefined)[]; updates: RefUpdate[] },
  { previous, landed, stored }: Landed,
  overlay: Overlay,
  when: Date,
): StoredLeaf | null => {
  const { fields } = previous;
  const leaf =
    stored !== undefined ? stored : landed ? { mode: gitModeOf(landed.mode), oid: blobOid(store, landed.bytes) } : null;
  if (landed && stored === undefined) {
    out.batch.blobs.push(landed.bytes);
    out.modes.push(landed.mode);
  }
  const trees = editOverlay(overlay, fields.path, leaf, store.objectFormat);
  const message = renderRecord({ ...fields, kind: 'after', ...stamp(when) });
  const spec: CommitSpec = { tree: rootOf(trees), parents: [previous.tip], message, when };
  out.batch.trees.push(...trees);
  out.batch.commits.push(spec);
  out.updates.push({ op: 'update', ref: changeRef(previous.id), oid: commitId(store, spec), old: previous.tip });
  return leaf;
};

/** A recorded change as its session's ref records it: what landed, over the bytes it replaced. */
const landingOf = ({ id, fields }: Recorded, leaf: StoredLeaf | null, replaced: Leaf | null | undefined): Landing => {
  const { path, turn, added, removed, reverts } = fields;
  return { path, leaf, replaced, change: id, event: reverts ? 'rollback' : 'write', turn, added, removed, reverts };
};

/**
 * `after` records of many files (what landed, on each `before`), and each agent session's commits for them, in
 * one transaction; a race on a session ref reads the sessions again.
 */
export const recordAfters = async (ctx: Context, store: Store, items: Landed[]): Promise<void> => {
  if (items.length === 0) return;
  const when = ctx.now();
  const landsOn = (i: Landed) => (i.land === false ? undefined : i.previous.fields.session);
  const sessions = [...new Set(items.map(landsOn).filter((s): s is string => !!s))];
  const reads = sessions.map((s) =>
    sessionRead(
      store,
      s,
      items.filter((i) => landsOn(i) === s).map((i) => i.previous.fields.path),
    ),
  );
  const own = items.map((i) => dirsAlong([i.previous.fields.path]));
  const ownSpecs = items.flatMap((i, n) => dirSpecs(`${i.previous.tip}^{tree}`, own[n] as string[]));
  await retrySession(sessions.length > 0, async () => {
    const objects = await readObjects(store, [...ownSpecs, ...reads.flatMap((r) => r.specs)]);
    const batch: Batch = { blobs: [], trees: [], commits: [] };
    const modes: (number | undefined)[] = [];
    const updates: RefUpdate[] = [];
    const landings = new Map<string, Landing[]>();
    let at = 0;
    items.forEach((item, n) => {
      const { previous } = item;
      const dirs = own[n] as string[];
      const overlay = overlayOf(dirs, objects.slice(at, at + dirs.length));
      at += dirs.length;
      // Read before addAfter edits the overlay: the bytes the `before` commit kept.
      const replaced =
        previous.fields.kind === 'before' ? leafAt(overlay, previous.fields.path, store.objectFormat) : undefined;
      const leaf = addAfter(store, { batch, modes, updates }, item, overlay, when);
      if (landsOn(item)) {
        const session = previous.fields.session as string;
        landings.set(session, [...(landings.get(session) ?? []), landingOf(previous, leaf, replaced)]);
      }
    });
    sessions.forEach((session, n) => {
      const read = reads[n] as (typeof reads)[number];
      const state = read.from(objects.slice(at, at + read.specs.length));
      at += read.specs.length;
      const plan = planSession(store, state, landings.get(session) ?? [], when);
      batch.trees.push(...plan.trees);
      batch.commits.push(...plan.commits);
      updates.push(plan.update);
    });
    const { oids } = await writeAll(store, batch, modes);
    await publish(store, updates, 'fettle: record', { oids, rewrite: () => writeAll(store, batch, modes) });
  });
  await failpoint('after.ref-written');
};
