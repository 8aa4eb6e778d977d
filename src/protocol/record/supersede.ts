// A new proposal for a file that already has one pending from the same agent session replaces it: the model
// retried a large Write, or rewrote the file again before deciding. The older one is discarded in the very
// transaction that stages the newer (its ref moves to refs/fettle-discarded/ with a marker commit saying
// `Fettle-Superseded-By: <new id>`), so `status` never lists both. Finding it must not cost the hook a git
// process: each model-reviewed proposal of a session is remembered in a small file under fettle's folder, named
// by a hash of the session and the path, holding what the marker commit needs; the compare-and-swap on its ref
// is what proves it still pending.
import { createHash } from 'node:crypto';
import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderRecord, type RecordFields } from '../../core/record-message';
import { makeOwnDir } from '../../io/fettle-dir';
import type { CommitSpec } from '../../store/objects';
import { commitId } from '../../store/objects';
import { changeRef, discardedRef, type RefUpdate } from '../../store/refs';
import type { Store } from '../../store/store';
import { fettleDir } from '../../store/worktrees';
import { stamp } from '../ids';

/** A pending proposal as the index keeps it. */
export interface StagedEntry {
  id: string;
  /** its proposal commit (the ref's value while it is pending) and that commit's tree */
  tip: string;
  tree: string;
  fields: RecordFields;
}

const indexDir = (store: Store): string => join(fettleDir(store), 'staged');

const entryPath = (store: Store, session: string, path: string): string =>
  join(indexDir(store), `${createHash('sha1').update(`${session}\0${path}`).digest('hex').slice(0, 20)}.json`);

/** The session's pending proposal for `path`, as last remembered (its ref may have moved since); null if none. */
export const stagedEntry = async (store: Store, session: string, path: string): Promise<StagedEntry | null> => {
  try {
    const entry = JSON.parse(await readFile(entryPath(store, session, path), 'utf8')) as StagedEntry;
    return typeof entry.id === 'string' && typeof entry.tip === 'string' && entry.fields?.path === path ? entry : null;
  } catch {
    return null;
  }
};

/**
 * Remembers a newly staged proposal of a session. Bookkeeping: written in place (a reader that meets it half
 * written cannot parse it and replaces nothing), and losing it only loses the supersede.
 */
export const rememberStaged = async (store: Store, entry: StagedEntry): Promise<void> => {
  if (entry.fields.session === undefined) return;
  const path = entryPath(store, entry.fields.session, entry.fields.path);
  await makeOwnDir(indexDir(store));
  await writeFile(path, JSON.stringify(entry), { mode: 0o600 }).catch(() => undefined);
};

/** Once a change is decided (confirmed, discarded, superseded), its entry goes, if it is still the one kept. */
export const forgetStaged = async (store: Store, change: { id: string; fields: RecordFields }): Promise<void> => {
  const { session, path } = change.fields;
  if (session === undefined) return;
  if ((await stagedEntry(store, session, path))?.id === change.id)
    await unlink(entryPath(store, session, path)).catch(() => undefined);
};

export const SUPERSEDED_NOTE = (by: string): string =>
  `Superseded by change ${by}, a newer proposal for the same file from the same session; nothing of this one was written.`;

/**
 * The marker commit and the ref updates that discard `entry` in favour of change `by`, for the staging's own
 * transaction: its ref deleted at the proposal (a change decided meanwhile fails the compare-and-swap) and
 * created under refs/fettle-discarded/.
 */
export const supersedeUpdates = (
  store: Store,
  entry: StagedEntry,
  by: string,
  when: Date,
): { commit: CommitSpec; updates: RefUpdate[] } => {
  const message = renderRecord({
    ...entry.fields,
    kind: 'discarded',
    supersededBy: by,
    // The agent's newer write of the file replaced it.
    decidedBy: 'model',
    note: SUPERSEDED_NOTE(by),
    ...stamp(when),
  });
  const commit: CommitSpec = { tree: entry.tree, parents: [entry.tip], message, when };
  return {
    commit,
    updates: [
      { op: 'delete', ref: changeRef(entry.id), old: entry.tip },
      { op: 'create', ref: discardedRef(entry.id), oid: commitId(store, commit) },
    ],
  };
};

/** `fettle gc`: entries whose change is no longer pending (decided by other means, or removed). */
export const staleStaged = async (store: Store, pending: ReadonlySet<string>, dryRun: boolean): Promise<string[]> => {
  const dir = indexDir(store);
  const stale: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const id = await readFile(join(dir, name), 'utf8').then(
      (t) => (JSON.parse(t) as { id?: unknown }).id,
      () => undefined,
    );
    if (typeof id === 'string' && pending.has(id)) continue;
    if (!dryRun) await unlink(join(dir, name)).catch(() => undefined);
    stale.push(name);
  }
  return stale;
};
