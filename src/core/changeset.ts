// Changesets: changes made as one unit (one command that wrote several files) or decided as one unit share a
// `Fettle-Changeset` id. A change stays one file (one ref, one chain); the changeset only groups them. Here, as
// pure functions: what a name on the command line means, which changes a confirm or discard of several takes
// and in what order, why it refuses a set, and how one file of a confirm is brought to its proposal.
import { nearest } from './nearest';

/** What resolution needs to know of a change. */
export interface Named {
  id: string;
  changeset?: string | undefined;
}

export type Resolved =
  | { kind: 'change'; id: string }
  | { kind: 'changeset'; id: string; members: string[] }
  | { kind: 'unknown'; near: string | undefined };

/**
 * A name given on the command line: a change id, else a changeset id (its members, in the order given), else
 * unknown, with the nearest id of either kind that could be a typo of it.
 */
export const resolveName = (name: string, changes: readonly Named[]): Resolved => {
  if (changes.some((c) => c.id === name)) return { kind: 'change', id: name };
  const members = changes.filter((c) => c.changeset === name).map((c) => c.id);
  if (members.length > 0) return { kind: 'changeset', id: name, members };
  const sets = [...new Set(changes.map((c) => c.changeset).filter((s): s is string => s !== undefined))];
  return { kind: 'unknown', near: nearest(name, [...changes.map((c) => c.id), ...sets]) };
};

export type Verdict = 'confirm' | 'discard';

/** A change a confirm or discard of several was asked to take, and what it needs to know of it. */
export interface Candidate {
  id: string;
  path: string;
  state: 'pending' | 'expired' | 'applied' | 'discarded' | 'incomplete' | 'failed';
  /** a staged change (a direct write is never confirmed or discarded) */
  staged: boolean;
  /** named on its own (not only as a member of a changeset, a session or --all) */
  named: boolean;
  /** only a person may confirm it, and this runs in the agent's shell */
  personOnly: boolean;
}

export type SetRefusal = 'applied' | 'discarded' | 'expired' | 'not-staged' | 'person' | 'same-path';

export interface SetPlan<C extends Candidate> {
  /** the changes to decide, in lock order (by path, then id) */
  take: C[];
  /** members of a changeset, session or --all that are already decided: left out, not refused */
  skipped: C[];
  /** the changes that stop the whole set, each with why (with another change of the same path for 'same-path') */
  refusals: { change: C; why: SetRefusal; other?: C }[];
}

/**
 * Which states each decision takes: an expired change can still be discarded, and confirmed only with
 * `expired` (a person applying it: the base check and the merge keep stale bytes off the disk).
 */
const open = (d: Verdict, c: Candidate, expired: boolean): boolean =>
  c.staged && (c.state === 'pending' || (c.state === 'expired' && (d === 'discard' || expired)));

const whyNot = (d: Verdict, c: Candidate): SetRefusal => {
  if (c.state === 'applied') return c.staged ? 'applied' : 'not-staged';
  if (c.state === 'discarded') return 'discarded';
  if (c.state === 'expired' && d === 'confirm') return 'expired';
  return 'not-staged';
};

/**
 * The set a confirm or discard takes, all or nothing. A change named on its own that cannot be decided refuses
 * the set; a member brought in by a changeset, a session or --all that is already decided is skipped. A confirm
 * refuses two changes of one path (the second was staged on bytes the first replaces: which one is meant is the
 * person's call), and a change only a person may confirm when run from the agent's shell.
 */
export const planSet = <C extends Candidate>(
  d: Verdict,
  candidates: readonly C[],
  options: { expired?: boolean } = {},
): SetPlan<C> => {
  // Each change once; named on its own wins over being a member of something named.
  const unique = new Map<string, C>();
  for (const c of candidates) if (!unique.get(c.id)?.named) unique.set(c.id, c);
  const take: C[] = [];
  const skipped: C[] = [];
  const refusals: SetPlan<C>['refusals'] = [];
  for (const c of unique.values()) {
    if (open(d, c, options.expired === true)) take.push(c);
    else if (c.named) refusals.push({ change: c, why: whyNot(d, c) });
    else skipped.push(c);
  }
  take.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (d === 'confirm') {
    for (const c of take) if (c.personOnly) refusals.push({ change: c, why: 'person' });
    take.forEach((c, n) => {
      const before = take[n - 1];
      if (before && before.path === c.path) refusals.push({ change: c, why: 'same-path', other: before });
    });
  }
  return { take, skipped, refusals };
};

/** What is at a staged change's path now, against the two versions it knows. */
export type DiskState = 'absent' | 'base' | 'proposal' | 'other' | 'not-a-file';

export interface FileFacts {
  disk: DiskState;
  /** the proposal's base had the file (false: the proposal creates it) */
  baseExists: boolean;
  /** the proposal removes the file (a contract's `delete`) */
  removes?: boolean | undefined;
  /** the file (or its directory, for a new file) can be replaced by this process */
  writable: boolean;
  /** disk, base and proposal are all text (only text is merged) */
  text: boolean;
  /** the three-way merge, once run */
  merge?: { clean: boolean; conflicts: number } | undefined;
  /** an overlapping merge is written with its conflict markers (`confirm --with-conflicts`) instead of refused */
  withConflicts?: boolean | undefined;
}

export type FileRefusal = 'deleted' | 'created' | 'binary' | 'conflict' | 'not-a-file' | 'unwritable' | 'edited';

export type FileVerdict =
  | { how: 'written' | 'merged' | 'already-on-disk' }
  | { how: 'conflicts'; conflicts: number }
  | { merge: true }
  | { refuse: FileRefusal; conflicts?: number };

/**
 * How a confirm brings one file to its proposal: write it over the base it was staged on (the fast-forward),
 * nothing when the file already holds it, else a clean three-way merge with what is on disk (`merge: true`
 * asks for the merge, then this is asked again with its result), or a refusal.
 */
export const fileVerdict = (f: FileFacts): FileVerdict => {
  if (f.disk === 'not-a-file') return { refuse: 'not-a-file' };
  if (f.disk === 'proposal') return { how: 'already-on-disk' };
  if (!f.writable) return { refuse: 'unwritable' };
  if (f.disk === 'base') return { how: 'written' };
  if (f.disk === 'absent') return { refuse: 'deleted' };
  // A removal has nothing to merge with edits made since: the person decides what is kept.
  if (f.removes) return { refuse: 'edited' };
  if (!f.baseExists) return { refuse: 'created' };
  if (!f.text) return { refuse: 'binary' };
  if (!f.merge) return { merge: true };
  if (f.merge.clean) return { how: 'merged' };
  return f.withConflicts
    ? { how: 'conflicts', conflicts: f.merge.conflicts }
    : { refuse: 'conflict', conflicts: f.merge.conflicts };
};
