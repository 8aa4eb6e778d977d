// Writing changes into the store. Order matters for durability: blobs, trees and commits (one pack), then the
// ref, each fsynced, all before the caller lets the user's file change. The commits a change starts with are
// before-commit.ts; a staged change is stage.ts.
import { renderRecord, type RecordFields } from '../../core/record-message';
import { failpoint } from '../../io/failpoint';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import type { Store, Target } from '../../store/store';
import { blobId, commitId, rootOf, writeRecord, type CommitSpec } from '../../store/objects';
import { type BatchObject, readObjects } from '../../store/object-read';
import { newRef, publish } from '../../store/publish';
import { changeRef, lostRace, warmRefUpdate, type RefUpdate } from '../../store/refs';
import {
  dirSpecs,
  dirsAlong,
  editOverlay,
  type Leaf,
  leafAt,
  overlayOf,
  parentOf,
  sameLeaf,
} from '../../store/tree-overlay';
import type { NewTree } from '../../store/tree-codec';
import { backoff, isRace, planSession, SESSION_ATTEMPTS, sessionRead } from './session-ref';
import type { Context, Origin } from '../context';
import { stamp } from '../ids';
import type { Plan } from '../decide/plan';
import { commitBefore, withFreshId } from './before-commit';

export type Fields = Omit<RecordFields, 'kind' | 'id'>;

export const fieldsOf = (plan: Plan, origin: Origin): Fields => {
  const d = plan.decision;
  // A policy rule decides binary content too, which has no line counts.
  const counted =
    d.tier !== 'noop' && (d.reason === 'policy' ? plan.kind === 'text' : d.reason === 'small' || d.tier === 'staged');
  return {
    tier: d.tier === 'staged' ? 'staged' : 'direct',
    path: plan.target.treePath,
    file: plan.target.realPath,
    reason: d.tier === 'noop' ? undefined : d.reason,
    added: counted ? d.added : undefined,
    removed: counted ? d.removed : undefined,
    ...origin,
    ...(plan.note === undefined ? {} : { note: plan.note }),
  };
};

/** A record's bookkeeping written while git moves its ref (the tool call's link), and taken back if that fails. */
export interface Beside {
  write: (record: { id: string; tip: string; fields: RecordFields }) => Promise<void>;
  undo: () => Promise<void>;
}

/**
 * Direct change, step 1 (before the agent's tool writes): the previous bytes, durably in git. `beside` is written
 * at the same time as the ref moves, not after: both are done before this returns, so before any answer.
 */
export const recordBefore = async (
  ctx: Context,
  target: Target,
  old: DiskFile | null,
  fields: Fields,
  {
    stored,
    beside,
  }: {
    /** the id of `old`'s blob when the caller already wrote it */
    stored?: string | undefined;
    beside?: Beside | undefined;
  } = {},
): Promise<{ id: string; tip: string; fields: RecordFields }> => {
  const { store, treePath } = target;
  const when = ctx.now(); // one time for the record, so a rewrite after a prune recreates the same commit
  const ref = await newRef(store, `fettle: record ${treePath}`);
  return withFreshId(async (id) => {
    const before = renderRecord({ ...fields, id, kind: 'before', ...stamp(when) });
    const record = { id, tip: '', fields: { ...fields, id, kind: 'before' as const } };
    let besides: Promise<void> | undefined;
    // The ref's lock and the call's link are written while the pack is synced; the ref goes in after it.
    const alongside = ([commit = '']: string[]) => {
      record.tip = commit;
      const held = ref.hold(changeRef(id), commit);
      besides = beside?.write(record).then(() => failpoint('record.beside-written'));
      return Promise.all([held, besides]);
    };
    // A rewrite after a prune writes every object again, the caller's blob included.
    const write = (known?: { old?: string }, joined?: typeof alongside) =>
      commitBefore(store, { path: treePath, old, messages: { before }, when, stored: known }, joined);
    try {
      const { written } = await write({ old: stored }, alongside);
      await failpoint('record.commit-written');
      await ref.publish(changeRef(id), record.tip, { oids: written, rewrite: () => write() });
    } catch (error) {
      await ref.abort();
      await besides?.catch(() => undefined);
      if (besides) await beside?.undo();
      throw error;
    }
    await failpoint('record.ref-written');
    return record;
  });
};

/** A proposal's tip: where the bytes it replaced are, the directory holding them in its `before` commit. */
const beforeDirOf = ({ tip, fields }: { tip: string; fields: RecordFields }): string | undefined =>
  fields.kind === 'proposal' ? `${tip}^:${parentOf(fields.path)}` : undefined;

/** Bytes the tool wrote that another writer replaced before they could be recorded. */
export interface Replaced {
  bytes: Buffer;
  fields: RecordFields;
}

/** What every attempt at recording what landed shares; an attempt is retried when a session's ref moved meanwhile. */
interface AfterSpec {
  previous: { id: string; tip: string; fields: RecordFields };
  kind: 'after' | 'applied';
  when: Date;
  message: string;
  /** the message of the replaced bytes' own commit */
  sideMessage: string | undefined;
  mode: string;
  dirs: string[];
  /** how many of the objects read are the change's own: its ref, then its tree's directories along the path */
  own: number;
  /** the landed bytes' blob, then the replaced bytes' (each only if there are such bytes) */
  blobs: string[];
  landed: boolean;
  replaced: boolean;
  session: ReturnType<typeof sessionRead> | undefined;
  /** a proposal's tip: the cat-file spec of the directory holding the bytes it replaced (in its `before`) */
  beforeDir: string | undefined;
}

/**
 * One attempt's trees, commits and ref updates, on the objects it read: the replaced bytes' commit on the tip, the
 * commit of what landed (with it as a second parent), and the session's commit.
 */
const afterWrites = (
  store: Store,
  s: AfterSpec,
  objects: (BatchObject | null)[],
): { trees: NewTree[]; commits: CommitSpec[]; updates: RefUpdate[]; found?: Leaf | null } => {
  const { id, tip, fields } = s.previous;
  const { path } = fields;
  const { mode, when } = s;
  const landedLeaf = s.landed ? { mode, oid: s.blobs[0] as string } : null;
  const overlay = overlayOf(s.dirs, objects.slice(1, s.own));
  // The bytes the change replaced: in the `before` commit, the tip or a proposal's parent.
  const replacedLeaf =
    fields.kind === 'before'
      ? leafAt(overlay, path, store.objectFormat)
      : s.beforeDir
        ? leafAt(overlayOf([parentOf(path)], objects.slice(-1)), path, store.objectFormat)
        : undefined;
  const trees: NewTree[] = [];
  const commits: CommitSpec[] = [];
  const otherParents: string[] = [];
  if (s.replaced) {
    const leaf = { mode, oid: s.blobs[s.landed ? 1 : 0] as string };
    const sideTrees = editOverlay(new Map(overlay), path, leaf, store.objectFormat);
    const side: CommitSpec = { tree: rootOf(sideTrees), parents: [tip], message: s.sideMessage || '', when };
    trees.push(...sideTrees);
    commits.push(side);
    otherParents.push(commitId(store, side));
  }
  const mainTrees = editOverlay(overlay, path, landedLeaf, store.objectFormat);
  trees.push(...mainTrees);
  commits.push({ tree: rootOf(mainTrees), parents: [tip, ...otherParents], message: s.message, when });
  const updates: RefUpdate[] = [];
  let found: Leaf | null | undefined;
  if (s.session) {
    const state = s.session.from(objects.slice(s.own, s.own + s.session.specs.length));
    if (replacedLeaf !== undefined && !sameLeaf(replacedLeaf, leafAt(state.overlay, path, store.objectFormat)))
      found = replacedLeaf;
    const landing = {
      path,
      leaf: landedLeaf,
      replaced: replacedLeaf,
      change: id,
      event: fields.reverts ? ('rollback' as const) : s.kind === 'applied' ? ('apply' as const) : ('write' as const),
      turn: fields.turn,
      added: fields.added,
      removed: fields.removed,
      reverts: fields.reverts,
    };
    const plan = planSession(store, state, [landing], when);
    trees.push(...plan.trees);
    commits.push(...plan.commits);
    updates.push(plan.update);
  }
  return { trees, commits, updates, found };
};

/**
 * After the tool wrote: the bytes that landed, as a commit on top of the tip. `after` completes a direct change;
 * `applied` completes a staged change a human approved at Claude Code's prompt (human review mode). `replaced`
 * bytes become a commit of their own on the tip, and a second parent of the one recorded: reachable and
 * restorable, while the first-parent chain keeps its usual shape. A change of an agent session also gets its
 * commit on the session's ref, in the same transaction (see session-ref.ts): one cat-file reads the trees for
 * both, so the hook starts no git process for it.
 */
export const recordAfter = async (
  ctx: Context,
  store: Store,
  previous: { id: string; tip: string; fields: RecordFields },
  landed: DiskFile | null,
  o: { kind?: 'after' | 'applied'; replaced?: Replaced | undefined } = {},
): Promise<string> => (await recordLanding(ctx, store, previous, landed, o)).commit;

/**
 * recordAfter, saying also what its session did not hold (`found`): the bytes the change replaced, where the
 * session's tree held others at the path (another session or a person changed the file since the session last
 * wrote it); undefined when the session held them, or the change has no session.
 */
export const recordLanding = async (
  ctx: Context,
  store: Store,
  previous: { id: string; tip: string; fields: RecordFields },
  landed: DiskFile | null,
  { kind = 'after', replaced }: { kind?: 'after' | 'applied'; replaced?: Replaced | undefined } = {},
): Promise<{ commit: string; found?: Leaf | null | undefined }> => {
  const { id, fields } = previous;
  const { path } = fields;
  const when = ctx.now();
  const reason = `fettle: ${kind === 'after' ? 'write' : 'apply'} ${path}`;
  warmRefUpdate(store, reason);
  const sideMessage = replaced && renderRecord({ ...replaced.fields, id, kind, ...stamp(when) });
  const message = renderRecord({ ...fields, id, kind, ...stamp(when) });
  const mode = gitModeOf(landed?.mode ?? 0o644);
  const dirs = dirsAlong([path]);
  const own = [changeRef(id), ...dirSpecs(`${previous.tip}^{tree}`, dirs)];
  const session = fields.session === undefined ? undefined : sessionRead(store, fields.session, [path]);
  const bytes = [landed?.bytes, replaced?.bytes].filter((b): b is Buffer => !!b);
  const blobs = bytes.map((b) => blobId(store, b));
  const blobObjects = bytes.map((b, n) => ({ bytes: b, oid: blobs[n] as string, fileMode: landed?.mode }));
  const spec: AfterSpec = {
    previous,
    kind,
    when,
    message,
    sideMessage,
    mode,
    dirs,
    own: own.length,
    blobs,
    landed: !!landed,
    replaced: !!replaced,
    session,
    beforeDir: session && beforeDirOf(previous),
  };
  for (let attempt = 1; ; attempt++) {
    const { beforeDir } = spec;
    const objects = await readObjects(store, [...own, ...(session?.specs ?? []), ...(beforeDir ? [beforeDir] : [])]);
    if (objects[0]?.oid !== previous.tip) throw lostRace(changeRef(id));
    const { trees, commits, updates, found } = afterWrites(store, spec, objects);
    const write = () => writeRecord(store, { blobs: blobObjects, trees, commits });
    const ids = await write();
    const commit = ids[replaced ? 1 : 0] as string;
    const oids = [...blobs, ...trees.map((t) => t.oid), ...ids];
    try {
      await publish(store, [{ op: 'update', ref: changeRef(id), oid: commit, old: previous.tip }, ...updates], reason, {
        oids,
        rewrite: write,
      });
    } catch (error) {
      // Another writer of the same session moved its ref: read it again and retry.
      if (!session || !isRace(error) || attempt >= SESSION_ATTEMPTS) throw error;
      await backoff(attempt);
      continue;
    }
    await failpoint('after.ref-written');
    return { commit, found };
  }
};
