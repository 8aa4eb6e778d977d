// FETTLE_AUDIT=1: every hook decision, pass-throughs included, appended as one JSON line to
// `<git-common-dir>/fettle/audit.jsonl`. Bounded: once the file reaches AUDIT_MAX_BYTES it is rotated to
// audit.1.jsonl (audit.1 to audit.2, and so on), and AUDIT_KEEP rotated files are kept. One append per hook call,
// written with O_APPEND (lines of concurrent hooks do not interleave) and no git process; the log is the user's
// alone (0600). Logging never fails a write: any error here is swallowed. A store a newer fettle stamped
// (store/store-format.ts) gets no line: this fettle writes nothing there.
import { closeSync, fstatSync, openSync, renameSync, statSync, unlinkSync, writeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { commonDirNear } from '../../store/locate';
import { readStamp } from '../../store/store-format';

export const AUDIT_FILE = 'audit.jsonl';
export const AUDIT_MAX_BYTES = 1024 * 1024;
export const AUDIT_KEEP = 5;
/** A rotation lock older than this was left by a killed process. */
const STALE_LOCK_MS = 10_000;

export const auditPath = (commonDir: string): string => join(commonDir, 'fettle', AUDIT_FILE);
const rotated = (dir: string, n: number): string => join(dir, `audit.${n}.jsonl`);

/** Rotates the log when it is still at least `max` bytes, under a lock: one process rotates, the others skip. */
const rotate = (dir: string, max: number, keep: number): void => {
  const lock = join(dir, 'audit.lock');
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch {
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) unlinkSync(lock);
    return;
  }
  try {
    const size = statSync(join(dir, AUDIT_FILE), { throwIfNoEntry: false })?.size ?? 0;
    if (size < max) return; // rotated meanwhile by another process
    for (let n = keep - 1; n >= 1; n--) {
      try {
        renameSync(rotated(dir, n), rotated(dir, n + 1));
      } catch {
        // not there yet
      }
    }
    renameSync(join(dir, AUDIT_FILE), rotated(dir, 1));
  } finally {
    closeSync(fd);
    unlinkSync(lock);
  }
};

/** Appends `entry` as one line to the audit log of `commonDir`; never throws. */
export const appendAudit = (
  commonDir: string,
  entry: Record<string, unknown>,
  limits: { maxBytes: number; keep: number } = { maxBytes: AUDIT_MAX_BYTES, keep: AUDIT_KEEP },
): void => {
  try {
    readStamp({ kind: 'repo', commonDir }); // a store a newer fettle stamped gets nothing from this one
    const dir = join(commonDir, 'fettle');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(join(dir, AUDIT_FILE), 'a', 0o600);
    let size: number;
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
    if (size >= limits.maxBytes) rotate(dir, limits.maxBytes, limits.keep);
  } catch {
    // The audit log is a record of decisions, never a reason to fail one.
  }
};

/** The common dir an audit entry goes to when the hook located no store: the repository around `dir`, if any. */
export const auditDirNear = async (dir: string): Promise<string | null> => commonDirNear(dir).catch(() => null);
