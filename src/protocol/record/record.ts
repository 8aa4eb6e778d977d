// Writing changes into the store. Order matters for durability: blobs, trees and commits (one pack), then the
// ref, each fsynced, all before the caller lets the user's file change. The commits a change starts with are
// before-commit.ts.
import { renderRecord, type RecordFields } from '../../core/record-message';
import { FettleError } from '../../errors';
import { failpoint } from '../../io/failpoint';
import { gitModeOf, type DiskFile } from '../../io/atomic-write';
import type { Store, Target } from '../../store/store';
import { blobId, commitId, rootOf, writeRecord, type CommitSpec } from '../../store/objects';
import { readObjects } from '../../store/object-read';
import { newRef, publish } from '../../store/publish';
import { changeRef, lostRace, warmRefUpdate, type RefUpdate } from '../../store/refs';
import { dirSpecs, dirsAlong, editOverlay, overlayOf } from '../../store/tree-overlay';
import type { NewTree } from '../../store/tree-codec';
import { backoff, isRace, planSession, SESSION_ATTEMPTS, sessionRead } from './session-ref';
import { rememberStaged, stagedEntry, supersedeUpdates } from './supersede';
import type { Background, Context, Origin } from '../context';
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

/** Bytes the tool wrote that another writer replaced before they could be recorded. */
export interface Replaced {
  bytes: Buffer;
  fields: RecordFields;
}

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
  { kind = 'after', replaced }: { kind?: 'after' | 'applied'; replaced?: Replaced | undefined } = {},
): Promise<string> => {
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
  for (let attempt = 1; ; attempt++) {
    const objects = await readObjects(store, [...own, ...(session?.specs ?? [])]);
    if (objects[0]?.oid !== previous.tip) throw lostRace(changeRef(id));
    const landedLeaf = landed ? { mode, oid: blobs[0] as string } : null;
    const overlay = overlayOf(dirs, objects.slice(1, own.length));
    const trees: NewTree[] = [];
    const commits: CommitSpec[] = [];
    const otherParents: string[] = [];
    if (replaced) {
      const sideTrees = editOverlay(
        new Map(overlay),
        path,
        { mode, oid: blobs[landed ? 1 : 0] as string },
        store.objectFormat,
      );
      const side: CommitSpec = { tree: rootOf(sideTrees), parents: [previous.tip], message: sideMessage || '', when };
      trees.push(...sideTrees);
      commits.push(side);
      otherParents.push(commitId(store, side));
    }
    const mainTrees = editOverlay(overlay, path, landedLeaf, store.objectFormat);
    trees.push(...mainTrees);
    commits.push({ tree: rootOf(mainTrees), parents: [previous.tip, ...otherParents], message, when });
    const updates: RefUpdate[] = [];
    if (session) {
      const state = session.from(objects.slice(own.length));
      const landing = {
        path,
        leaf: landedLeaf,
        change: id,
        event: fields.reverts ? ('rollback' as const) : kind === 'applied' ? ('apply' as const) : ('write' as const),
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
    return commit;
  }
};

/**
 * The resident server's supersede, run right after the answer: its transaction (the older proposal's ref
 * deleted at its tip, the discarded marker created) takes a second ref file, its fsync and git's
 * packed-refs.lock, which the blocking call no longer waits for. Killed before it, both proposals stay pending
 * (docs/RELIABILITY.md); a proposal decided meanwhile fails the compare-and-swap and is left as decided.
 */
const supersedeAfter = (
  background: Background,
  store: Store,
  side: { commit: CommitSpec; updates: RefUpdate[] },
  older: string,
  reason: string,
): void => {
  const marker = commitId(store, side.commit);
  const task = async () => {
    await failpoint('stage.superseding');
    const rewrite = () => writeRecord(store, { blobs: [], trees: [], commits: [side.commit] });
    await publish(store, side.updates, reason, { oids: [marker], rewrite }).catch((error: unknown) => {
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT')) throw error;
    });
  };
  background(`${store.commonDir}\0supersede\0${older}`, task, 0, { completes: true });
};

/**
 * Staged change: a `before` commit (HEAD plus the file as on disk) and a `proposal` commit on top, so that
 * `git show fettle/<id>` is exactly the proposed change and `git diff HEAD fettle/<id>` a reviewable PR. The
 * hidden worktree is not made here: `fettle test` creates it on first use (the product brief: "create it
 * lazily"), which keeps `git worktree add` and its checkout off the hook path. A proposal the model reviews
 * replaces the same session's pending one for the file, in the same transaction (supersede.ts).
 */
export const stage = async (
  ctx: Context,
  plan: Plan,
  origin: Origin,
): Promise<{ id: string; tip: string; fields: RecordFields; supersedes?: string | undefined }> => {
  const { store, treePath } = plan.target;
  const fields = fieldsOf(plan, origin);
  const mode = plan.old ? gitModeOf(plan.old.mode) : '100644';
  const when = ctx.now();
  const reason = `fettle: stage ${treePath}`;
  const kept = origin.session !== undefined && origin.review !== 'person';
  let previous = kept ? await stagedEntry(store, origin.session as string, treePath) : null;
  // In the resident server the older proposal is discarded right after the answer, in a transaction of its own
  // (see supersedeAfter); elsewhere in the very transaction that stages the newer, which git makes.
  const alone = !previous || !!ctx.background;
  const ref = await newRef(store, reason);
  if (!alone && !ref.throughGit) warmRefUpdate(store, reason);
  return withFreshId(async (id) => {
    const messages = {
      before: renderRecord({ ...fields, id, kind: 'before', ...stamp(when) }),
      proposal: renderRecord({ ...fields, id, kind: 'proposal', ...stamp(when) }),
    };
    const side = previous ? supersedeUpdates(store, previous, id, when) : null;
    const later = side && ctx.background ? side : null;
    const write = (known?: Plan['stored'], alongside?: (commits: string[]) => Promise<unknown> | undefined) =>
      commitBefore(
        store,
        {
          path: treePath,
          old: plan.old,
          messages,
          when,
          next: { bytes: plan.next, mode },
          stored: known,
          extra: side ? [side.commit] : [],
        },
        alongside,
      );
    // A proposal alone is a fresh ref: its lock is written while the pack is synced (see recordBefore).
    const hold = ([, proposal = '']: string[]) => ref.hold(changeRef(id), proposal);
    let commits: string[];
    let trees: string[];
    try {
      let written: string[];
      ({ commits, written, trees } = await write(plan.stored, alone ? hold : undefined));
      const proposal = commits[1];
      if (!proposal) throw new FettleError('E_INTERNAL', 'internal error: no proposal commit');
      await failpoint('stage.commits-written');
      const wrote = { oids: written, rewrite: () => write() };
      if (alone) await ref.publish(changeRef(id), proposal, wrote);
      else
        await publish(
          store,
          [{ op: 'create' as const, ref: changeRef(id), oid: proposal }, ...(side?.updates ?? [])],
          reason,
          wrote,
        );
    } catch (error) {
      await ref.abort();
      // The older proposal was decided meanwhile (its ref moved): stage without replacing it. (Replaced after
      // the answer, a conflict here is the id's alone.)
      if (side && !later && error instanceof FettleError && error.code === 'E_CONFLICT') previous = null;
      throw error;
    }
    const proposal = commits[1] as string;
    await failpoint('stage.ref-written');
    const made = { id, tip: proposal, fields: { ...fields, id, kind: 'proposal' as const } };
    if (kept) await rememberStaged(store, { ...made, tree: trees[1] as string });
    if (later && previous && ctx.background) supersedeAfter(ctx.background, store, later, previous.id, reason);
    return { ...made, supersedes: side ? previous?.id : undefined };
  });
};
