// Commits whose note is still to be written. A person's `git commit` does not wait for attribution: the
// post-commit hook leaves a mark (an empty file named by the commit's id, under <common dir>/fettle/notes-pending/,
// written by the hook's shell, or by markPending) and a detached `fettle git-hook post-commit --pending` writes the notes. Everything
// that reads or carries notes (post-rewrite, blame, trace export) settles the marks first, under the lock every
// note is written under, so nobody reads a commit's notes before they are written. A mark whose note failed stays
// for the next one to retry: losing it would lose the attribution, keeping it costs a retry.
import { closeSync, openSync } from 'node:fs';
import { readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeOwnDir } from '../io/fettle-dir';
import { withLock } from '../io/lock';
import type { Store } from '../store/store';
import { noteCommits } from './commit-notes';
import type { Context } from './context';
import { startDetached } from './detached';

export const PENDING_DIR = join('fettle', 'notes-pending');
const LOCK = join('fettle', 'locks', 'notes.lock');
/** A rebase of many commits notes them one after another; a waiter gives up (E_LOCKED) only after this. */
const LOCK_WAIT_MS = 120_000;

const isCommitId = (name: string): boolean => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(name);

/** The commits marked pending, by id. */
export const pendingOf = async (store: Store): Promise<string[]> =>
  readdir(join(store.commonDir, PENDING_DIR)).then(
    (names) => names.filter(isCommitId).sort(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );

/** `work` under the notes' lock: one writer of refs/notes/fettle at a time, among fettle's processes. */
export const withNotesLock = <T>(store: Store, work: () => Promise<T>): Promise<T> =>
  withLock(join(store.commonDir, LOCK), work, { timeoutMs: LOCK_WAIT_MS });

/** Notes the pending commits; the caller holds the notes' lock. How many were pending. */
export const settleLocked = async (ctx: Context, store: Store): Promise<number> => {
  const marks = await pendingOf(store);
  if (marks.length === 0) return 0;
  await noteCommits(ctx, store, new Map(marks.map((c) => [c, []])));
  for (const c of marks) await unlink(join(store.commonDir, PENDING_DIR, c)).catch(() => undefined);
  return marks.length;
};

/** Notes every pending commit, if any: a directory listing when there is none, which is nearly always. */
export const settlePending = async (ctx: Context, store: Store): Promise<number> => {
  if (store.kind !== 'repo' || (await pendingOf(store)).length === 0) return 0;
  return withNotesLock(store, () => settleLocked(ctx, store));
};

/**
 * post-commit without waiting for the note: `commit` marked pending and `fettle git-hook post-commit --pending`
 * started detached to note it, its stderr appended to `.git/fettle/git-hook.log`. False when it could not start:
 * the caller notes the commit itself (the mark is settled with it).
 */
export const noteLater = async (
  store: Store,
  commit: string,
  script: string,
  env: Context['env'],
): Promise<boolean> => {
  const dir = join(store.commonDir, PENDING_DIR);
  await makeOwnDir(dir);
  await writeFile(join(dir, commit), '', { mode: 0o600 });
  const log = openSync(join(store.commonDir, 'fettle', 'git-hook.log'), 'a', 0o600);
  try {
    // a partial commit's temporary index is gone by the time the note is written; the note reads no index
    const childEnv = { ...env, GIT_INDEX_FILE: undefined };
    return startDetached(script, store.workTree, ['git-hook', 'post-commit', '--pending'], childEnv, { stderrFd: log });
  } finally {
    closeSync(log);
  }
};
