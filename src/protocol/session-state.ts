// Each agent session's state log (core/session-log.ts): the tool calls the hooks saw (reads, shell commands,
// writes), one JSON line each in `<git-common-dir>/fettle/state/<session>.jsonl`, which policy rules' state
// conditions ask ("has it read docs/schema.md"). Appended with O_APPEND (lines of concurrent hooks do not
// interleave), no git process; read only when a rule's other conditions hold. Bounded: past MAX_BYTES the log
// keeps its newest half (swapped in whole, under a lock; an entry appended during that swap may be lost, which
// costs a state condition one call's history). As readable as fettle's folder, no more. Logging never fails a
// call: errors here are swallowed, and a store a newer fettle stamped gets no line.
import { readFileSync } from 'node:fs';
import { appendFile, readFile, realpath, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { sessionName } from '../core/session';
import { entryLine, keptTail, parseEntries, type SessionEntry } from '../core/session-log';
import { makeOwnDir } from '../io/fettle-dir';
import { createExclusive } from '../io/lock';
import { removeStaleFiles, type Aging } from '../io/stale-files';
import { swapFile } from '../io/swap-file';
import { repoNear } from '../store/locate';
import { readStamp } from '../store/store-format';

/** Past this a session's log keeps its newest half: ~1,000 entries, read in well under a millisecond. */
export const STATE_MAX_BYTES = 96 * 1024;

/** A compaction lock older than this was left by a killed process. */
const STALE_LOCK_MS = 10_000;

export const stateDir = (commonDir: string): string => join(commonDir, 'fettle', 'state');
export const statePath = (commonDir: string, session: string): string =>
  join(stateDir(commonDir), `${sessionName(session)}.jsonl`);

const compact = async (path: string, max: number, mode: number): Promise<void> => {
  const lock = `${path}.lock`;
  if (!(await createExclusive(lock))) {
    // another process compacts it, or one killed while it did left its lock: cleared for the next append
    const age = Date.now() - ((await stat(lock).catch(() => null))?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
    return;
  }
  try {
    const text = await readFile(path, 'utf8');
    if (Buffer.byteLength(text) >= max) await swapFile(path, keptTail(text, Math.floor(max / 2)), mode);
  } finally {
    await unlink(lock).catch(() => undefined);
  }
};

/** Appends one entry to the session's log in `commonDir`; never throws. */
export const appendSessionEntry = async (
  commonDir: string,
  session: string,
  entry: SessionEntry,
  max = STATE_MAX_BYTES,
): Promise<void> => {
  try {
    readStamp({ kind: 'repo', commonDir });
    const dir = stateDir(commonDir);
    await makeOwnDir(dir);
    const mode = (await stat(dir)).mode & 0o660;
    const path = statePath(commonDir, session);
    await appendFile(path, `${entryLine(entry)}\n`, { mode });
    if ((await stat(path)).size >= max) await compact(path, max, mode);
  } catch {
    // the log serves rules' state conditions; it never fails the call it records
  }
};

/** A reader of the session's log for the policy engine, which calls it at most once per evaluation. */
export const sessionHistory = (store: { commonDir: string }, session: string | undefined) => (): SessionEntry[] => {
  if (session === undefined) return [];
  try {
    return parseEntries(readFileSync(statePath(store.commonDir, session), 'utf8'));
  } catch {
    return [];
  }
};

/** A path as the log keeps it: from the top of `workTree` when inside it, else absolute; symlinks resolved. */
const loggedPath = async (workTree: string, file: string): Promise<string> => {
  const real = await realpath(file).catch(() => file);
  const rel = relative(await realpath(workTree).catch(() => workTree), real);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? real : rel.split(sep).join('/');
};

/**
 * A tool call the hook saw, logged in the session's log of the repository around `cwd` (or around `file`, when
 * it has one): found from the files alone, no git process. Never throws.
 */
export const noteCall = async (
  cwd: string,
  session: string | undefined,
  call: { tool: string; file?: string | undefined; command?: string | undefined; write?: boolean },
  at: number,
): Promise<void> => {
  if (session === undefined) return;
  try {
    const file = call.file === undefined ? undefined : resolve(cwd, call.file);
    const repo = await repoNear(file === undefined ? cwd : dirname(file));
    if (!repo) return;
    const entry: SessionEntry = { t: call.tool, at };
    if (file !== undefined) entry.p = await loggedPath(repo.workTree, file);
    if (call.command !== undefined) entry.c = call.command;
    if (call.write) entry.w = 1;
    await appendSessionEntry(repo.commonDir, session, entry);
  } catch {
    // as appendSessionEntry: never the call's failure
  }
};

/** `fettle gc`: the logs of sessions idle longer than the history kept (their last append is their mtime). */
export const staleStates = async (commonDir: string, o: Aging): Promise<string[]> =>
  (await removeStaleFiles(stateDir(commonDir), o)).map((name) => `state/${name}`);
