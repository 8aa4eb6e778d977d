// The post-commit hook notes a commit in a detached process (protocol/notes-pending.ts): a test that reads
// refs/notes/fettle with git itself waits for the commits still marked pending, as `fettle blame` settles them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from './repo';

const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** The commits whose note is still to be written. */
export const pendingNotes = (repo: Repo): string[] => {
  try {
    return readdirSync(join(repo.dir, '.git', 'fettle', 'notes-pending'));
  } catch {
    return [];
  }
};

/** Waits until no commit is pending (the detached hooks removed their marks, each after its note). */
export const notesSettled = (repo: Repo, timeoutMs = 60_000): void => {
  const deadline = Date.now() + timeoutMs;
  while (pendingNotes(repo).length > 0) {
    if (Date.now() > deadline) throw new Error(`notes still pending after ${timeoutMs} ms: ${pendingNotes(repo)}`);
    pause(20);
  }
};
