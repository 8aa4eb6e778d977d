// Pointing refs at objects just written. New objects are unreachable until a ref names them, and a concurrent
// `git gc --prune=now` deletes unreachable objects however new (git documents the race), before the ref update
// (git then refuses it: "nonexistent object") or after it. Either way the objects are written again, which
// recreates the very same ids, and the update or the check is retried.
import { GitError } from './git';
import type { Store } from './store';
import { ensureObjects } from './object-presence';
import { holdNewRef, type HeldRef, refsThroughGit } from './ref-create';
import { updateRefs, type RefUpdate, warmRefUpdate } from './refs';

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

/**
 * A fresh ref for objects about to be written. Where this repository lets fettle create refs itself
 * (ref-create.ts), `hold` writes and syncs the ref's value while the objects' pack is synced, and `publish` gives
 * it its name once the pack is in; elsewhere `hold` does nothing and `publish` asks git, as `publish` above.
 */
export interface NewRef {
  /** git creates the ref here (ref-create.ts refsThroughGit): its `update-ref` is already started */
  throughGit: boolean;
  /** the value `oid` being synced: join it to the objects' fsyncs (undefined: nothing to join) */
  hold(ref: string, oid: string): Promise<void> | undefined;
  publish(ref: string, oid: string, written: Written): Promise<void>;
  /** drops a held value (after a failure) */
  abort(): Promise<void>;
}

export const newRef = async (store: Store, reason: string): Promise<NewRef> => {
  const throughGit = (await refsThroughGit(store)) !== undefined;
  if (throughGit) warmRefUpdate(store, reason);
  let held: HeldRef | null = null;
  return {
    throughGit,
    hold: (ref, oid) => {
      if (throughGit) return undefined;
      held = holdNewRef(store, ref, oid);
      return held.synced;
    },
    publish: async (ref, oid, written) => {
      const committing = held;
      held = null;
      // Nothing held (git makes refs here), or a file system without hard links: git creates it.
      if (!committing || (await committing.commit()) === 'git')
        return publish(store, [{ op: 'create', ref, oid }], reason, written);
      await ensureObjects(store, written.oids, written.rewrite);
    },
    abort: async () => {
      const dropping = held;
      held = null;
      await dropping?.abort();
    },
  };
};
