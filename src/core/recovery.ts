// What to do with an operation a crash interrupted, from its journal: the refs that record it, and each file's
// bytes against the two versions the journal names. Pure; protocol/journal/recover.ts reads the facts and acts.
//
// The commit point is the ref transaction. Once every ref moved, the operation completed (its files were all
// written before the refs moved): only the journal is left to remove. While none moved, it did not happen: every
// file that holds the operation's bytes is put back, so all or none is applied and the refs agree with the disk.
// A file holding anything else was saved by someone since, and is kept. Some refs moved and not others (git
// itself stopped mid-transaction) is for a person to look at.

/** A file's bytes now: what it held before, what the operation wrote, or neither (a save since; absent). */
export type FileNow = 'from' | 'to' | 'other';

export type RecoveryPlan =
  | { outcome: 'finished' }
  | { outcome: 'undo'; restore: number[]; kept: number[] }
  | { outcome: 'stuck'; why: string };

export const planRecovery = (refsMoved: readonly boolean[], files: readonly FileNow[]): RecoveryPlan => {
  const moved = refsMoved.filter(Boolean).length;
  if (refsMoved.length > 0 && moved === refsMoved.length) return { outcome: 'finished' };
  if (moved > 0)
    return {
      outcome: 'stuck',
      why: `${moved} of the ${refsMoved.length} refs that record it moved and the others did not`,
    };
  const restore: number[] = [];
  const kept: number[] = [];
  files.forEach((f, n) => {
    if (f === 'to') restore.push(n);
    else if (f === 'other') kept.push(n);
  });
  return { outcome: 'undo', restore, kept };
};
