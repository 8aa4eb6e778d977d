// The session ref, refs/fettle/sessions/<name>: one commit per change that landed in an agent session (a direct
// write, an applied staged change, a rollback), first parent the commit before it, the first one's parent the
// user's commit the session started from. Its tree is that commit plus every file the session wrote, at the
// bytes that landed. Whoever moves a change's ref to a landed state plans the session's next commit here and
// moves both refs in one `update-ref --stdin` transaction: the session ref is compare-and-swapped, and a lost
// race (another writer of the same session) is read again and retried, so no commit is lost.
import {
  parseSessionCommit,
  renderSessionCommit,
  sessionName,
  type SessionCommitFields,
  type SessionEvent,
} from '../../core/session';
import { FettleError } from '../../errors';
import { commitId, writeBatch, type CommitSpec } from '../../store/objects';
import { readObjects, type BatchObject } from '../../store/object-read';
import { SESSIONS_PREFIX, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import {
  dirSpecs,
  dirsAlong,
  editOverlay,
  leafAt,
  overlayOf,
  sameLeaf,
  type Leaf,
  type Overlay,
} from '../../store/tree-overlay';
import type { NewTree } from '../../store/tree-codec';
import { rootOf } from '../../store/objects';
import { stamp } from '../ids';

export const sessionRef = (session: string): string => `${SESSIONS_PREFIX}${sessionName(session)}`;

/** A change that landed, as the session ref records it. */
export interface Landing {
  path: string;
  /** the blob that landed (already written) and its git mode; null: the change removed the file */
  leaf: Leaf | null;
  /** the bytes the change replaced (null: no file); undefined: not known, taken as the session's own */
  replaced?: Leaf | null | undefined;
  change: string;
  event: Exclude<SessionEvent, 'found'>;
  turn?: number | undefined;
  added?: number | undefined;
  removed?: number | undefined;
  reverts?: string | undefined;
}

/** Where a session's next commits start: its tip (null: the ref does not exist yet) and the trees along the paths. */
export interface SessionState {
  session: string;
  ref: string;
  tip: string | null;
  /** the user's commit the session started from */
  base: string | null;
  overlay: Overlay;
}

/**
 * The cat-file specs that read a session's state for `paths`, so a caller can read them in the cat-file it
 * runs anyway, and `from` to make the state from the objects they returned. The ref is read with the trees
 * below it; a ref that moves in between fails the compare-and-swap later, never a wrong commit.
 */
export const sessionRead = (
  store: Store,
  session: string,
  paths: readonly string[],
): { specs: string[]; from: (objects: readonly (BatchObject | null)[]) => SessionState } => {
  const ref = sessionRef(session);
  const dirs = dirsAlong(paths);
  const head = store.head;
  const specs = [ref, ...dirSpecs(ref, dirs), ...dirSpecs(head, dirs)];
  return {
    specs,
    from: (objects) => {
      const tip = objects[0]?.type === 'commit' ? objects[0] : null;
      if (tip) {
        const fields = parseSessionCommit(tip.body.toString('utf8').split('\n\n').slice(1).join('\n\n'));
        const overlay = overlayOf(dirs, objects.slice(1, 1 + dirs.length));
        return { session, ref, tip: tip.oid, base: fields?.base ?? null, overlay };
      }
      const overlay = overlayOf(dirs, head === null ? [] : objects.slice(1 + dirs.length));
      return { session, ref, tip: null, base: head, overlay };
    },
  };
};

/** A session's state for `paths`, in one cat-file. */
export const readSession = async (store: Store, session: string, paths: readonly string[]): Promise<SessionState> => {
  const read = sessionRead(store, session, paths);
  return read.from(await readObjects(store, read.specs));
};

export interface SessionPlan {
  trees: NewTree[];
  commits: CommitSpec[];
  /** moves the session ref from the tip read to the last commit planned */
  update: RefUpdate;
}

/**
 * The session's next commits, one per landing in order, planned in memory; nothing is written. A landing whose
 * replaced bytes are not what the session's tree holds at its path (another session or the person edited the
 * file) first gets a `found` commit of those bytes, so the landing's own commit diffs against what it replaced.
 */
export const planSession = (
  store: Store,
  state: SessionState,
  landings: readonly Landing[],
  when: Date,
): SessionPlan => {
  if (landings.length === 0) throw new FettleError('E_INTERNAL', 'internal error: a session step with no change');
  const trees: NewTree[] = [];
  const commits: CommitSpec[] = [];
  let parent = state.tip ?? state.base;
  const commit = (fields: Omit<SessionCommitFields, 'session' | 'base'>, leaf: Leaf | null) => {
    const made = editOverlay(state.overlay, fields.path, leaf, store.objectFormat);
    trees.push(...made);
    const all: SessionCommitFields = { session: state.session, ...fields, base: state.base ?? undefined };
    const message = renderSessionCommit({ ...all, ...stamp(when) });
    const spec: CommitSpec = { tree: rootOf(made), parents: parent ? [parent] : [], message, when };
    commits.push(spec);
    parent = commitId(store, spec);
  };
  for (const { leaf, replaced, ...landing } of landings) {
    if (replaced !== undefined && !sameLeaf(replaced, leafAt(state.overlay, landing.path, store.objectFormat)))
      commit({ change: landing.change, event: 'found', path: landing.path }, replaced);
    commit(landing, leaf);
  }
  const oid = parent as string;
  const update: RefUpdate = state.tip
    ? { op: 'update', ref: state.ref, oid, old: state.tip }
    : { op: 'create', ref: state.ref, oid };
  return { trees, commits, update };
};

/** A compare-and-swap lost to another writer of the same refs (or a git ref lock held meanwhile). */
export const isRace = (error: unknown): boolean =>
  error instanceof FettleError && (error.code === 'E_CONFLICT' || error.code === 'E_LOCKED');

/** How many times a writer re-reads the session and tries again: eight writers of one session settle in far fewer. */
export const SESSION_ATTEMPTS = 60;

/** A short random wait before the next attempt, growing with the attempts, so racing writers spread out. */
export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 3)));

export interface SessionStep {
  /** the session ref's update, to go in the caller's transaction */
  update: RefUpdate;
  /** every object the update makes reachable, and how to write them again (see publish.ts) */
  written: { oids: string[]; rewrite: () => Promise<unknown> };
}

/**
 * For a command moving a change to a landed state (confirm, rollback): the session's next commits for the
 * landings (their blobs already written), written, with the ref update for the caller's transaction. Reads the
 * session in its own cat-file; after a lost race the caller calls it again (see retrySession).
 */
export const sessionStep = async (
  store: Store,
  session: string,
  landings: readonly Landing[],
  when: Date,
): Promise<SessionStep> => {
  const state = await readSession(
    store,
    session,
    landings.map((l) => l.path),
  );
  const plan = planSession(store, state, landings, when);
  const write = () => writeBatch(store, plan.trees, plan.commits);
  const ids = await write();
  return { update: plan.update, written: { oids: [...plan.trees.map((t) => t.oid), ...ids], rewrite: write } };
};

/**
 * Runs `attempt` until it does not lose a race on the session ref: each attempt reads the session again. Only
 * with a session to race on; a lost race on the caller's own refs is the caller's to report.
 */
export const retrySession = async <T>(hasSession: boolean, attempt: () => Promise<T>): Promise<T> => {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!hasSession || !isRace(error) || n >= SESSION_ATTEMPTS) throw error;
      await backoff(n);
    }
  }
};
