// `fettle confirm <id|changeset>... | --session <s> | --all`: write staged changes to disk, all or nothing, and
// only over the bytes fettle recorded. Each file is planned first (confirm-plan.ts): the proposal written over
// the base it was staged on (a fast-forward), or a clean three-way merge with what is on disk, or a refusal; one
// refusal refuses the set and nothing is written. Then: the user's bytes of merged files committed and their
// refs moved to them (`snapshot`), the applied commits written and every ref (changes and sessions) locked in one
// prepared transaction, the journal written, the files replaced, the transaction committed. A failure puts the
// files back; a crash leaves the journal, and the next command undoes it (recover.ts).
import { renderRecord, type RecordKind } from '../../core/record-message';
import { fileModeOf, gitModeOf, NotDurableError } from '../../io/atomic-write';
import { withLocks } from '../../io/lock';
import { failpoint } from '../../io/failpoint';
import type { Store } from '../../store/store';
import { commitFile } from '../../store/objects';
import { ensureObjects } from '../../store/object-presence';
import { publish, retryMissing, type Written } from '../../store/publish';
import { prepareRefs, type RefUpdate } from '../../store/refs';
import { hashObject } from '../../store/tree-codec';
import { applyFiles, type Replacement } from '../journal/apply-files';
import { listChanges, type Change } from '../changes';
import { decidedSet, lockedChanges, refuseSet, selectDecision, type DecideRequest, type Selection } from './changesets';
import { planFiles, type FilePlan } from './confirm-plan';
import type { Context } from '../context';
import { stamp } from '../ids';
import { diskPathOf, fileLockPath } from '../paths';
import { retrySession, sessionStep, type Landing } from '../record/session-ref';
import { commandDecider, requirePersonForExpired } from '../decide/person-review';
import { forgetStaged } from '../record/supersede';
import { recordingFailure } from '../record/failed';
import { confirmFeedback } from './confirm-feedback';
import { currentTurn } from '../turns';
import { plural } from '../../core/plural';

export interface Confirmed {
  change: Change;
  /** the real path written */
  path: string;
  /** how the disk was brought to the proposal; `conflicts`: merged, with conflict markers (--with-conflicts) */
  how: 'written' | 'merged' | 'already-on-disk' | 'conflicts';
  /** conflict regions written into the file (`conflicts` only) */
  conflicts?: number | undefined;
}

export interface ConfirmOutcome {
  confirmed: Confirmed[];
  /** members of a changeset or session already decided, left out */
  skipped: Change[];
  changeset?: string | undefined;
}

/**
 * What a decision set adds to a confirm's one transaction (decide-set.ts): the ref updates of the changes it
 * discards or splits off, with their objects, and what each applied commit says beyond the usual.
 */
export interface Beside {
  updates: RefUpdate[];
  written: Written;
  /** by change id: a note for its applied commit (which hunks it took, and where the others went) */
  notes: Map<string, string>;
}

/** A new commit on a change's tip, written; `written` rewrites it if a prune takes it before a ref names it. */
const commitOn = async (
  ctx: Context,
  store: Store,
  change: Change,
  o: { kind: RecordKind; bytes: Buffer | null; mode: string; note?: string; turn?: number; parents?: string[] },
) => {
  const when = ctx.now();
  const { kind, note, turn } = o;
  const decidedBy = commandDecider(ctx);
  const [parent = change.tip, ...otherParents] = o.parents ?? [];
  const spec = {
    parent,
    otherParents,
    path: change.fields.path,
    bytes: o.bytes,
    mode: o.mode,
    message: renderRecord({
      ...change.fields,
      kind,
      note,
      decidedBy,
      ...(turn === undefined ? {} : { turn }),
      ...stamp(when),
    }),
    when,
  };
  const { commit, written } = await commitFile(store, spec);
  return { commit, written: { oids: written, rewrite: () => commitFile(store, spec) } as Written };
};

const joined = (all: Written[]): Written => ({
  oids: all.flatMap((w) => w.oids),
  rewrite: async () => {
    for (const w of all) await w.rewrite();
  },
});

/**
 * The bytes on disk of every merged file, committed on top of its proposal, and the refs moved there in one
 * transaction before anything replaces them: the merge is undoable, and a confirm killed later resumes from it.
 */
const snapshotUserBytes = async (ctx: Context, store: Store, plans: FilePlan[]): Promise<void> => {
  const merging = plans.filter((p) => p.snapshot);
  if (merging.length === 0) return;
  const made = [];
  for (const p of merging) {
    const disk = p.disk as NonNullable<FilePlan['disk']>;
    // Resumed, and saved again since: the earlier snapshot stays reachable as a second parent.
    const parents = p.proposal === p.change.tip ? undefined : [p.proposal, p.change.tip];
    const snapshot = { kind: 'snapshot' as const, bytes: disk.bytes, mode: gitModeOf(disk.mode), parents };
    made.push({ p, ...(await commitOn(ctx, store, p.change, snapshot)) });
  }
  const updates = made.map(
    (m): RefUpdate => ({ op: 'update', ref: m.p.change.ref, oid: m.commit, old: m.p.change.tip }),
  );
  await publish(store, updates, `fettle: confirm ${ids(merging)} (snapshot)`, joined(made.map((m) => m.written)));
  for (const m of made) {
    m.p.change = { ...m.p.change, tip: m.commit, fields: { ...m.p.change.fields, kind: 'snapshot' } };
  }
  await failpoint('confirm.snapshot-written');
};

const NOTHING_BESIDE: Beside = { updates: [], written: { oids: [], rewrite: async () => undefined }, notes: new Map() };

const ids = (plans: { change: Change }[]): string => plans.map((p) => p.change.id).join(' ');

/**
 * The applied commit of every file, and one prepared transaction moving every change ref there and adding each
 * agent session's commits (a lost race on a session ref reads it again).
 */
const prepareAll = async (ctx: Context, store: Store, plans: FilePlan[], beside: Beside) => {
  const applied = [];
  const decidedBy = commandDecider(ctx);
  for (const p of plans) {
    // Applied by the agent, a change lands in the turn its session is in now; by a person (or a script), in the
    // turn the agent staged it in: the person's decision is no step of the agent's current turn.
    const now = decidedBy === 'model' ? await currentTurn(ctx.config.dataDir, p.change.fields.session) : undefined;
    const turn = now ?? p.change.fields.turn;
    const merge =
      p.how === 'merged'
        ? 'Merged with edits made on disk after it was staged.'
        : p.how === 'conflicts'
          ? `Merged with edits made on disk after it was staged; ${plural(p.conflicts ?? 0, 'overlapping region')} written with conflict markers (--with-conflicts).`
          : undefined;
    const note = [beside.notes.get(p.change.id), merge].filter(Boolean).join('\n\n') || undefined;
    const made = await commitOn(ctx, store, p.change, { kind: 'applied', bytes: p.bytes, mode: p.mode, note, turn });
    applied.push({ p, turn, ...made });
  }
  const own = applied.map(
    (a): RefUpdate => ({ op: 'update', ref: a.p.change.ref, oid: a.commit, old: a.p.change.tip }),
  );
  // The refs whose move completes the confirm, as the journal names them.
  const moves = applied.map((a) => ({ ref: a.p.change.ref, old: a.p.change.tip }));
  const reason = `fettle: confirm ${ids(plans)}`;
  const sessions = new Map<string, Landing[]>();
  for (const a of applied) {
    const { session, path, added, removed } = a.p.change.fields;
    if (session === undefined) continue;
    const leafOf = (bytes: Buffer, mode: string) => ({ mode, oid: hashObject('blob', bytes, store.objectFormat) });
    const leaf = a.p.bytes && leafOf(a.p.bytes, a.p.mode);
    // What the apply replaced on disk; bytes already there were put by someone else, whose they are is not known.
    const { disk } = a.p;
    const replaced = a.p.how === 'already-on-disk' ? undefined : disk && leafOf(disk.bytes, gitModeOf(disk.mode));
    const { id } = a.p.change;
    const landing: Landing = { path, leaf, replaced, change: id, event: 'apply', turn: a.turn, added, removed };
    sessions.set(session, [...(sessions.get(session) ?? []), landing]);
  }
  const base = joined([...applied.map((a) => a.written), beside.written]);
  return retrySession(sessions.size > 0, async () => {
    const steps = [];
    for (const [session, landings] of sessions) steps.push(await sessionStep(store, session, landings, ctx.now()));
    const written = joined([base, ...steps.map((s) => s.written)]);
    const updates = [...own, ...beside.updates, ...steps.map((s) => s.update)];
    return { refs: await retryMissing(() => prepareRefs(store, updates, reason), written), written, moves };
  });
};

/** Confirms the changes a request names, all or nothing (see the file comment). */
export const confirmChanges = async (ctx: Context, store: Store, request: DecideRequest): Promise<ConfirmOutcome> => {
  const selection = await selectDecision(ctx, store, 'confirm', request);
  const [first] = selection.candidates;
  if (request.expired && first) requirePersonForExpired(ctx, first.change);
  const involved = lockedChanges(selection);
  // A record that names a file outside the repository's work trees is refused before anything else is said of it.
  for (const c of involved) await diskPathOf(store, c.fields);
  return recordingFailure(ctx, store, { attempt: 'confirm', changes: involved }, () =>
    confirmLocked(ctx, store, selection, involved),
  );
};

const confirmLocked = (ctx: Context, store: Store, selection: Selection, involved: Change[]): Promise<ConfirmOutcome> =>
  withLocks(
    involved.map((c) => fileLockPath(store, c.fields.path)),
    async () => {
      await failpoint('confirm.locked');
      // Read again under the locks: another process may have confirmed or discarded some meanwhile.
      const now = new Map((await listChanges(ctx, store)).map((c) => [c.id, c]));
      const chosen = decidedSet(ctx, selection, now);
      const changes = chosen.changes;
      const { plans, refusals } = await planFiles(ctx, store, changes, selection.request);
      if (refusals.length > 0) throw refuseSet('confirm', refusals, changes.length);
      const deliver = confirmFeedback(ctx, plans, commandDecider(ctx));
      await applyPlans(ctx, store, plans, NOTHING_BESIDE);
      // Landed: a note the agent does not get is not worth failing a confirm that wrote every file.
      await deliver().catch(() => undefined);
      const confirmed = plans.map((p) => ({ change: p.change, path: p.file, how: p.how, conflicts: p.conflicts }));
      return { confirmed, skipped: chosen.skipped, changeset: chosen.changeset };
    },
  );

/**
 * Writes planned files and moves every ref (theirs, `beside`'s, the sessions') in one journalled step: the user's
 * bytes of merged files committed first, the transaction prepared, the journal written, the files replaced, the
 * transaction committed. A failure puts the files back; a crash leaves the journal for the next command.
 */
export const applyPlans = async (ctx: Context, store: Store, plans: FilePlan[], beside: Beside): Promise<void> => {
  await snapshotUserBytes(ctx, store, plans);
  const { refs, written, moves } = await prepareAll(ctx, store, plans, beside);
  await failpoint('confirm.prepared');
  const files = plans.map(
    (p): Replacement => ({
      id: p.change.id,
      file: p.file,
      path: p.change.fields.path,
      from: p.disk,
      fromOid: p.disk ? hashObject('blob', p.disk.bytes, store.objectFormat) : null,
      to: p.bytes && { bytes: p.bytes, mode: p.disk?.mode ?? fileModeOf(p.mode) },
      toOid: p.bytes && hashObject('blob', p.bytes, store.objectFormat),
    }),
  );
  const settled = async () => {
    // Applied once the refs moved: the bookkeeping goes whatever happens after.
    for (const p of plans) await forgetStaged(store, p.change);
  };
  try {
    await applyFiles(store, { op: 'confirm', files, refs: moves }, async () => {
      await refs.commit();
      await ensureObjects(store, written.oids, written.rewrite);
    });
  } catch (error) {
    // Replaced but not durable: the operation completed, so history says applied; anything else put it all back.
    if (error instanceof NotDurableError) await settled();
    else await refs.abort().catch(() => undefined);
    throw error;
  }
  await settled();
};
