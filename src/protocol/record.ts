// Writing changes into the store. Order matters for durability: blob, trees, commit, then the ref, each
// fsynced, all before the caller lets the user's file change.
import { renderRecord, type RecordFields } from '../core/record';
import { FettleError } from '../errors';
import { failpoint } from '../io/failpoint';
import { gitModeOf, type DiskFile } from '../io/atomic-write';
import type { Store, Target } from '../store/locate';
import { ensureObjects, headCommit, looseOnly, planTrees, readLevels, rootOf, writeBlob, writeCommit, writeTrees } from '../store/objects';
import { levelsAfter } from '../store/tree-codec';
import { changeRef, updateRefs } from '../store/refs';
import { addHiddenWorktree, removeHiddenWorktree } from '../store/worktrees';
import type { Context, Origin } from './context';
import { newId } from './ids';
import type { Plan } from './plan';

const MAX_ID_ATTEMPTS = 5;

export type Fields = Omit<RecordFields, 'kind' | 'id'>;

export const fieldsOf = (plan: Plan, origin: Origin): Fields => {
  const d = plan.decision;
  const counted = d.tier !== 'noop' && (d.reason === 'small' || d.tier === 'staged');
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

/**
 * A commit on top of HEAD (none when unborn) whose tree holds the file as it is on disk now; with `next`, also
 * the tree of a proposal on top of it. The blobs are hashed while the trees along the path are read, and every
 * new tree is written in one `mktree`: the hook path's spawns are few, and none grows with the repository.
 */
const commitBefore = async (
  store: Store,
  path: string,
  old: DiskFile | null,
  record: (kind: 'before') => string,
  when: Date,
  next?: { bytes: Buffer; mode: string },
): Promise<{ commit: string; tree: string; nextTree: string | null; written: string[] }> => {
  const head = headCommit(store);
  const [oldBlob, nextBlob, levels] = await Promise.all([
    old ? writeBlob(store, old.bytes) : null,
    next ? writeBlob(store, next.bytes) : null,
    readLevels(store, head ? `${head}^{tree}` : null, path),
  ]);
  await failpoint('record.blob-written');
  const before = planTrees(store, levels, path, old && oldBlob ? { mode: gitModeOf(old.mode), oid: oldBlob } : null);
  const after = next && nextBlob ? planTrees(store, levelsAfter(levels, before), path, { mode: next.mode, oid: nextBlob }) : [];
  await writeTrees(store, [...before, ...after]);
  const commit = await writeCommit(store, rootOf(before), head ? [head] : [], record('before'), when);
  // An object git did not write loose already existed (the file's bytes and trees at HEAD, packed): not new, so
  // not at risk from a prune racing this record, and checking it after the ref would cost a git call.
  const written = await looseOnly(store, [oldBlob, nextBlob, ...before.map((t) => t.oid), ...after.map((t) => t.oid), commit].filter((o): o is string => !!o));
  return { commit, tree: rootOf(before), nextTree: after.length > 0 ? rootOf(after) : null, written };
};

/** Creates refs/fettle/<id> for a fresh id; a taken id fails the CAS and another is drawn. */
const withFreshId = async <T>(attempt: (id: string) => Promise<T>): Promise<T> => {
  for (let n = 1; ; n++) {
    try {
      return await attempt(newId());
    } catch (error) {
      if (!(error instanceof FettleError && error.code === 'E_CONFLICT') || n >= MAX_ID_ATTEMPTS) throw error;
    }
  }
};

/** Direct change, step 1 (before the agent's tool writes): the previous bytes, durably in git. */
export const recordBefore = async (
  ctx: Context,
  target: Target,
  old: DiskFile | null,
  fields: Fields,
): Promise<{ id: string; tip: string; fields: RecordFields }> => {
  const { store, treePath } = target;
  const when = ctx.now(); // one time for the record, so a rewrite after a prune recreates the same commit
  return withFreshId(async (id) => {
    const write = () => commitBefore(store, treePath, old, (kind) => renderRecord({ ...fields, id, kind }), when);
    const { commit, written } = await write();
    await failpoint('record.commit-written');
    await updateRefs(store, [{ op: 'create', ref: changeRef(id), oid: commit }], `fettle: record ${treePath}`);
    await ensureObjects(store, written, write);
    await failpoint('record.ref-written');
    return { id, tip: commit, fields: { ...fields, id, kind: 'before' } };
  });
};

/**
 * After the tool wrote: the bytes that landed, as a commit on top of the tip. `after` completes a direct change;
 * `applied` completes a staged change a human approved at Claude Code's prompt (human review mode).
 */
export const recordAfter = async (
  ctx: Context,
  store: Store,
  id: string,
  previous: { tip: string; fields: RecordFields },
  landed: DiskFile | null,
  kind: 'after' | 'applied' = 'after',
): Promise<string> => {
  const { path } = previous.fields;
  const when = ctx.now();
  const write = async () => {
    const leaf = landed ? { mode: gitModeOf(landed.mode), oid: await writeBlob(store, landed.bytes) } : null;
    const trees = planTrees(store, await readLevels(store, `${previous.tip}^{tree}`, path), path, leaf);
    await writeTrees(store, trees);
    const commit = await writeCommit(store, rootOf(trees), [previous.tip], renderRecord({ ...previous.fields, id, kind }), when);
    return { commit, written: [...(leaf ? [leaf.oid] : []), ...trees.map((t) => t.oid), commit] };
  };
  const { commit, written } = await write();
  await updateRefs(store, [{ op: 'update', ref: changeRef(id), oid: commit, old: previous.tip }], `fettle: ${kind === 'after' ? 'write' : 'apply'} ${path}`);
  await ensureObjects(store, written, write);
  await failpoint('after.ref-written');
  return commit;
};

/**
 * Staged change: a `before` commit (HEAD plus the file as on disk) and a `proposal` commit on top, so that
 * `git show fettle/<id>` is exactly the proposed change and `git diff HEAD fettle/<id>` a reviewable PR.
 */
export const stage = async (ctx: Context, plan: Plan, origin: Origin): Promise<{ id: string; worktree: string; tip: string; fields: RecordFields }> => {
  const { store, treePath } = plan.target;
  const fields = fieldsOf(plan, origin);
  const mode = plan.old ? gitModeOf(plan.old.mode) : '100644';
  const when = ctx.now();
  return withFreshId(async (id) => {
    const write = async () => {
      const before = await commitBefore(store, treePath, plan.old, (kind) => renderRecord({ ...fields, id, kind }), when, { bytes: plan.next, mode });
      if (!before.nextTree) throw new FettleError('E_INTERNAL', 'internal error: no proposal tree');
      const proposal = await writeCommit(store, before.nextTree, [before.commit], renderRecord({ ...fields, id, kind: 'proposal' }), when);
      return { proposal, written: [...before.written, proposal] };
    };
    const { proposal, written } = await write();
    await failpoint('stage.commits-written');
    const worktree = await addHiddenWorktree(store, id, proposal, treePath, plan.next, plan.old?.mode ?? 0o644);
    try {
      await failpoint('stage.worktree-added');
      await updateRefs(store, [{ op: 'create', ref: changeRef(id), oid: proposal }], `fettle: stage ${treePath}`);
    } catch (error) {
      await removeHiddenWorktree(store, id).catch(() => undefined);
      throw error;
    }
    await ensureObjects(store, written, write);
    await failpoint('stage.ref-written');
    return { id, worktree, tip: proposal, fields: { ...fields, id, kind: 'proposal' } };
  });
};
