// Pointing refs at objects just written. New objects are unreachable until a ref names them, and a concurrent
// `git gc --prune=now` deletes unreachable objects however new (git documents the race), before the ref update
// (git then refuses it: "nonexistent object") or after it. Either way the objects are written again, which
// recreates the very same ids, and the update or the check is retried.
import { GitError } from './git';
import type { Store } from './store';
import { ensureObjects } from './object-presence';
import { updateRefs, type RefUpdate } from './refs';

const ATTEMPTS = 3;

export interface Written {
  /** every object the update makes reachable that this process wrote */
  oids: string[];
  /** writes them again, byte for byte */
  rewrite: () => Promise<unknown>;
}

/** Runs a ref update (`fn`), writing the objects again each time git refuses it for naming a missing one. */
export const retryMissing = async <T>(fn: () => Promise<T>, written: Written): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof GitError && /nonexistent object/i.test(error.stderr)) || attempt >= ATTEMPTS) throw error;
      await written.rewrite();
    }
  }
};

export const publish = async (store: Store, updates: RefUpdate[], reason: string, written: Written): Promise<void> => {
  await retryMissing(() => updateRefs(store, updates, reason), written);
  await ensureObjects(store, written.oids, written.rewrite);
};
