// A staged change: its before and proposal commits under a fresh id, published as its ref. A proposal the model
// reviews replaces the same session's pending one for the file (supersede.ts): in the same transaction, or in the
// resident server right after the answer.
import { renderRecord, type RecordFields } from '../../core/record-message';
import { FettleError } from '../../errors';
import { failpoint } from '../../io/failpoint';
import { gitModeOf } from '../../io/atomic-write';
import type { Store } from '../../store/store';
import { commitId, writeRecord, type CommitSpec } from '../../store/objects';
import { newRef, publish } from '../../store/publish';
import { changeRef, warmRefUpdate, type RefUpdate } from '../../store/refs';
import { rememberStaged, stagedEntry, supersedeUpdates } from './supersede';
import type { Background, Context, Origin } from '../context';
import { stamp } from '../ids';
import type { Plan } from '../decide/plan';
import { type BeforeSpec, commitBefore, withFreshId } from './before-commit';
import { fieldsOf } from './record';

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

/** Writes a staged change's before and proposal commits, and an older proposal's discarded marker, in one batch. */
const proposalWriter =
  (
    store: Store,
    plan: Plan,
    spec: { messages: BeforeSpec['messages']; when: Date; mode: string; extra: CommitSpec[] },
  ) =>
  (known?: Plan['stored'], alongside?: (commits: string[]) => Promise<unknown> | undefined) =>
    commitBefore(
      store,
      {
        path: plan.target.treePath,
        old: plan.old,
        messages: spec.messages,
        when: spec.when,
        next: { bytes: plan.next, mode: spec.mode },
        stored: known,
        extra: spec.extra,
      },
      alongside,
    );

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
  const kept = origin.session !== undefined && origin.review !== 'person' && origin.supersedes !== false;
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
    const write = proposalWriter(store, plan, { messages, when, mode, extra: side ? [side.commit] : [] });
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
