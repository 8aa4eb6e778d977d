// Reading changes back from refs: a change's state is the kind of the commit its ref points at.
import { parseRecord, type RecordFields } from '../core/record-message';
import { FettleError } from '../errors';
import type { Store } from '../store/store';
import {
  changeRef,
  DISCARDED_PREFIX,
  discardedRef,
  listRefs,
  listRefTips,
  REF_PREFIX,
  type RefRecord,
  refTipsArgs,
} from '../store/refs';
import { GitError } from '../store/git';
import { readTips } from './tip-cache';
import { isId } from './ids';
import { minutesText } from '../core/time';
import type { Context } from './context';
import { nearest } from '../core/nearest';
import { FETCHED_PREFIX, parseFetchedRef } from '../core/shared-refs';

export type ChangeState = 'pending' | 'expired' | 'applied' | 'discarded' | 'incomplete' | 'failed';

export interface Change {
  id: string;
  ref: string;
  tip: string;
  parents: string[];
  fields: RecordFields;
  state: ChangeState;
  /** when the tip was written (staging time for a pending change) */
  at: Date;
  /** staged changes: when confirming stops being possible */
  expiresAt?: Date;
  /** id of the rollback that undid this change and is itself still in effect (only from listChanges) */
  revertedBy?: string;
}

/** Where a change stands by its tip's kind; a proposal's expiry is toChange's. */
const stateOf = (fields: RecordFields, discarded: boolean): ChangeState => {
  if (discarded) return 'discarded';
  switch (fields.kind) {
    case 'proposal':
    // A merging confirm moved the ref to the user's bytes (`snapshot`) and stopped before finishing: it was
    // decided, so it does not expire; `fettle confirm` resumes it.
    case 'snapshot':
      return 'pending';
    case 'after':
    case 'applied':
      return 'applied';
    case 'failed':
      // a confirm or apply that failed: a record of the attempt, never a change of any file
      return 'failed';
    default:
      // a `before` record whose tool call never completed (denied at the prompt, or the tool failed)
      return 'incomplete';
  }
};

/**
 * A ref's tip as a change: its record's fields, parsed, and where it stands; null for a ref that is not one. A
 * change lives at refs/fettle/<id> (or refs/fettle-discarded/<id>) alone: a record anywhere deeper (a teammate's
 * shared session, fetched under refs/fettle/remotes/) is never one of this repository's changes, so nothing
 * fetched can be confirmed, rolled back or pruned as one. `fetched`: such a record, read as what it says.
 */
const toChange = (
  r: { ref: string; oid: string; time: number; parents: string[]; fields: RecordFields | null },
  ttlSeconds: number,
  now: Date,
  fetched = false,
): Change | null => {
  const { fields, ref } = r;
  if (!fields) return null;
  const id = ref.slice(ref.lastIndexOf('/') + 1);
  // A record names its own change: one that names another was not written for this ref (copied or planted).
  if (fields.id !== id) return null;
  const discarded = ref.startsWith(DISCARDED_PREFIX);
  // refs/fettle/<id> or refs/fettle-discarded/<id>, nothing between (a thousand at a time: no string made)
  const prefix = discarded ? DISCARDED_PREFIX : REF_PREFIX;
  if (!fetched && (ref.length !== prefix.length + id.length || !ref.startsWith(prefix))) return null;
  // The record's own time when it has one (milliseconds), else the commit's (seconds), for records written
  // before it existed. It must agree with the commit's second, or it is not to be believed.
  const at = new Date(
    fields.time !== undefined && Math.floor(fields.time / 1000) === r.time ? fields.time : r.time * 1000,
  );
  const change: Change = { id, ref, tip: r.oid, parents: r.parents, fields, at, state: stateOf(fields, discarded) };
  if (change.state === 'pending' && fields.kind === 'proposal') {
    change.expiresAt = new Date(at.getTime() + ttlSeconds * 1000);
    if (now.getTime() >= change.expiresAt.getTime()) change.state = 'expired';
  }
  return change;
};

/**
 * The order of changes, newest first, that never ties: the time their tip was written (milliseconds), then the
 * writing process's count of records (one process writes many records in one millisecond), then the id. Two
 * records of different processes in the same millisecond were made at the same time; the id orders them.
 */
export const newestFirst = (a: Change, b: Change): number =>
  b.at.getTime() - a.at.getTime() ||
  (b.fields.seq ?? 0) - (a.fields.seq ?? 0) ||
  (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The changes a rollback record undid (one `Fettle-Reverts` value, space-separated ids). */
export const revertedIds = (fields: RecordFields): string[] => (fields.reverts ?? '').split(' ').filter(Boolean);

/** Reverts of reverts nest (undo, redo, undo…); deeper than this is not a real history. */
const MAX_REVERT_DEPTH = 64;

/**
 * A change is rolled back when a completed rollback of it (`Fettle-Reverts`) is not itself rolled back:
 * rolling back the rollback (a redo) puts the change back in effect.
 */
const markReverted = (changes: Change[]): Change[] => {
  const reverters = new Map<string, Change[]>();
  for (const c of changes) {
    // A rollback of some hunks (Fettle-Hunks) leaves the change in effect.
    if (!c.fields.reverts || c.state !== 'applied' || c.fields.hunks) continue;
    // One rollback record may undo several changes of a file at once: their ids, space-separated.
    for (const id of revertedIds(c.fields)) reverters.set(id, [...(reverters.get(id) ?? []), c]);
  }
  if (reverters.size === 0) return changes;
  const memo = new Map<string, string | null>();
  const activeReverter = (id: string, depth: number): string | null => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    if (depth > MAX_REVERT_DEPTH) return null;
    const by = (reverters.get(id) ?? []).find((r) => activeReverter(r.id, depth + 1) === null)?.id ?? null;
    memo.set(id, by);
    return by;
  };
  return changes.map((c) => {
    const by = activeReverter(c.id, 0);
    return by ? { ...c, revertedBy: by } : c;
  });
};

/** A ref's tip as listRefs read it, its message parsed: what the tip cache keeps, read from git instead. */
const parsed = (r: RefRecord) => ({ ...r, fields: parseRecord(r.message) });

/** The one git command listChanges runs while the tip cache holds every commit: a command may start it early. */
export const LISTING_ARGS = refTipsArgs([REF_PREFIX, DISCARDED_PREFIX]);

/**
 * The tips from the cache. Refs read from their files include one whose commit is missing, which git's listing
 * leaves out (with a warning): then git lists them.
 */
const cachedTips = async (store: Store, prefixes: string[]) => {
  try {
    return await readTips(store, await listRefTips(store, prefixes));
  } catch (error) {
    if (!store.refTips || !(error instanceof GitError)) throw error;
    return readTips(store, await listRefTips(store, prefixes, { git: true }));
  }
};

/**
 * Every change, newest first, with `revertedBy` derived. One for-each-ref of the refs alone, their commits read
 * from the tip cache (tip-cache.ts): cost grows with fettle's refs only, and with the commits new since.
 */
export const listChanges = async (ctx: Context, store: Store, via: 'cache' | 'git' = 'cache'): Promise<Change[]> => {
  const ttlSeconds = ctx.config.ttlSeconds;
  const now = ctx.now();
  const prefixes = [REF_PREFIX, DISCARDED_PREFIX];
  // `git`: one for-each-ref that prints each tip's message, for a hook's retention: one process, where the cache
  // would add a cat-file for the records new since it was written, and its read.
  const tips = via === 'cache' ? await cachedTips(store, prefixes) : (await listRefs(store, prefixes)).map(parsed);
  return markReverted(
    tips
      .map((r) => toChange(r, ttlSeconds, now))
      .filter((c): c is Change => c !== null)
      .sort(newestFirst),
  );
};

/**
 * The changes of teammates' sessions fetched from remotes (`fettle fetch`), newest first: read-only copies, never
 * listed with this repository's own (see toChange).
 */
export const listFetchedChanges = async (ctx: Context, store: Store): Promise<Change[]> => {
  const now = ctx.now();
  return markReverted(
    (await listRefs(store, [FETCHED_PREFIX]))
      .filter((r) => parseFetchedRef(r.ref)?.kind === 'change')
      .map((r) => toChange(parsed(r), ctx.config.ttlSeconds, now, true))
      .filter((c): c is Change => c !== null)
      .sort(newestFirst),
  );
};

export const notFound = (id: string, known: readonly string[] = []): FettleError => {
  const near = nearest(id, known);
  return new FettleError('E_NOT_FOUND', `No change '${id}'. It may have expired or been discarded.`, {
    hint: `${near ? `Did you mean ${near}? ` : ''}Run \`fettle status\` to list pending changes.`,
  });
};

/** The change with this id, whatever its state; E_NOT_FOUND when there is none. */
export const loadChange = async (ctx: Context, store: Store, id: string): Promise<Change> => {
  const ttlSeconds = ctx.config.ttlSeconds;
  const now = ctx.now();
  if (!isId(id)) throw notFound(id);
  const records = await listRefs(store, [changeRef(id), discardedRef(id)]);
  const change = records.map((r) => toChange(parsed(r), ttlSeconds, now)).find((c): c is Change => c !== null);
  if (!change)
    throw notFound(
      id,
      (await listChanges(ctx, store)).map((c) => c.id),
    );
  return change;
};

/**
 * Refuses anything but a pending staged change, with the baseline texts of the original protocol; an expired one
 * passes with `expired` (a person applying it: the base check and the merge keep stale bytes off the disk).
 */
export const requirePending = (change: Change, now: Date, options: { expired?: boolean } = {}): void => {
  const { id } = change;
  if (change.state === 'applied') {
    throw new FettleError('E_ALREADY_APPLIED', `Change ${id} was already applied.`, {
      hint: `${change.fields.tier === 'direct' ? 'It was written directly. ' : ''}Undo it with \`fettle rollback ${id}\`.`,
    });
  }
  if (change.state === 'discarded')
    throw new FettleError('E_ALREADY_DISCARDED', `Change ${id} was already discarded.`, {
      hint: `Nothing of it was written. Its proposal stays readable with \`git show ${change.tip}\` until \`fettle gc\`.`,
    });
  if (change.state === 'expired' && change.expiresAt && !options.expired) {
    throw new FettleError(
      'E_EXPIRED',
      `Change ${id} expired ${minutesText(now.getTime() - change.expiresAt.getTime())} ago. Re-run the Write to try again.`,
      {
        hint: `A person can still apply it, over the bytes it was staged on or merged cleanly with edits made since: \`fettle confirm ${id} --expired\`. Review it first with \`fettle review ${id}\`.`,
      },
    );
  }
  if (change.state !== 'pending' && !(options.expired && change.state === 'expired')) {
    throw new FettleError('E_NOT_FOUND', `Change ${id} is not a staged change waiting for confirmation.`, {
      hint: 'Run `fettle status` to list pending changes.',
    });
  }
};

/** Written to disk and not undone since; rollbacks themselves are undone by naming them explicitly. */
export const inEffect = (c: Change): boolean => c.state === 'applied' && !c.revertedBy && !c.fields.reverts;
