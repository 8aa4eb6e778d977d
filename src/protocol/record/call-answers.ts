// One answer per tool call. A PreToolUse fettle has already answered (the client retried it, or fettle is
// installed twice, as a plugin and in settings, and the client runs both hooks of the event in parallel) must
// not record or stage again. Before recording, the call is claimed with an exclusive-create marker under
// fettle's folder, named by a hash of the session, the tool_use_id and the tool input; the winner writes its
// answer into it, and a later call with the same marker replays that answer. A duplicate running at the same
// moment finds the marker unanswered and answers nothing at once: the client combines the answers of parallel
// hooks and the most restrictive one (deny, ask, a block) wins, so the winner's answer is the one that counts.
// Files only, no git process. Markers go when the call reports back (PostToolUse), at the end of the turn
// (Stop), and in `fettle gc`.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeOwnDir } from '../../io/fettle-dir';
import { sweepNewRefs } from '../../store/ref-create';
import { callFileName, creatorGone, markCall, sessionTag } from './call-files';

export const callsDir = (commonDir: string): string => join(commonDir, 'fettle', 'calls');

/** The marker's name: the session's tag (so the end of a turn finds its own), then the call's (its input as JSON). */
export const callName = (session: string | undefined, toolUse: string, call: unknown): string =>
  callFileName(session, `${toolUse}\0${JSON.stringify(call)}`);

export type Claim =
  /** this process answers the call: `answer` stores what it answered; `release` lets a retry run anew */
  | { kind: 'first'; answer: (text: string) => Promise<void>; release: () => Promise<void> }
  /** answered before: the same answer again */
  | { kind: 'answered'; answer: string }
  /** another process is answering it right now */
  | { kind: 'busy' };

interface Marker {
  pid?: number;
  answer?: string;
}

/** A marker created and not yet given its pid is this young at most; older and empty, its writer died. */
const EMPTY_STALE_MS = 2_000;

const readMarker = async (
  path: string,
  nowMs = Date.now(),
): Promise<{ marker: Marker | null; ageMs: number } | null> => {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    let marker: Marker | null = null;
    try {
      marker = JSON.parse(text) as Marker;
    } catch {
      marker = null;
    }
    return { marker, ageMs: nowMs - info.mtimeMs };
  } catch {
    return null;
  }
};

/** Claims the call (see the file comment). */
export const claimCall = async (commonDir: string, name: string): Promise<Claim> => {
  const dir = callsDir(commonDir);
  const path = join(dir, name);
  // The folder is made when missing, not before every call: a mkdir is a round trip of its own.
  const create = () => markCall(path);
  const created = () =>
    create().catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      await makeOwnDir(dir);
      return create();
    });
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await created()) {
      return {
        kind: 'first',
        // Written in place, no temp file and rename: a reader that meets it half written cannot parse it, and
        // takes it for one being answered (busy), which is what it is. One directory entry per call, not three.
        // Synchronously: a few hundred bytes, before every answer (see turns.ts).
        answer: async (text) => {
          const bytes = Buffer.from(JSON.stringify({ pid: process.pid, answer: text }));
          const fd = openSync(path, 'r+');
          try {
            writeSync(fd, bytes, 0, bytes.length, 0);
            ftruncateSync(fd, bytes.length);
          } finally {
            closeSync(fd);
          }
        },
        release: () => unlink(path).catch(() => undefined),
      };
    }
    const found = await readMarker(path);
    if (found === null) continue; // removed meanwhile: claim it again
    const { marker, ageMs } = found;
    if (typeof marker?.answer === 'string') return { kind: 'answered', answer: marker.answer };
    if (!creatorGone(marker, ageMs, EMPTY_STALE_MS)) return { kind: 'busy' };
    // Its writer died before answering: take it over (a rename, so that of two takers only one removes it).
    const stale = `${path}.${process.pid}.stale`;
    if (
      await rename(path, stale).then(
        () => true,
        () => false,
      )
    ) {
      await unlink(stale).catch(() => undefined);
      await sweepNewRefs(commonDir); // what else the dead writer left mid-record
    }
  }
  return { kind: 'busy' };
};

/** The call reported back (PostToolUse, PostToolUseFailure): its marker goes. */
export const forgetCall = (commonDir: string, name: string): Promise<void> =>
  unlink(join(callsDir(commonDir), name)).catch(() => undefined);

/** The end of a turn: the session's markers go (no retry of its calls can come after it). */
export const forgetSessionCalls = async (commonDir: string, session: string): Promise<void> => {
  const tag = sessionTag(session);
  const dir = callsDir(commonDir);
  for (const name of await readdir(dir).catch(() => [] as string[]))
    if (name.startsWith(tag) && name.endsWith('.json')) await unlink(join(dir, name)).catch(() => undefined);
};

/**
 * `fettle gc`: markers no call will come back for: older than `maxAgeMs`, or left unanswered by a process that
 * is gone, or temp files of one. Returns their names (removed unless `dryRun`).
 */
export const staleCalls = async (
  commonDir: string,
  o: { maxAgeMs: number; dryRun: boolean; nowMs: number },
): Promise<string[]> => {
  const dir = callsDir(commonDir);
  const stale: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const found = await readMarker(join(dir, name), o.nowMs);
    if (!found) continue;
    const leftover = !name.endsWith('.json') && found.ageMs > EMPTY_STALE_MS;
    const orphan = found.marker?.answer === undefined && creatorGone(found.marker, found.ageMs, EMPTY_STALE_MS);
    if (!(leftover || orphan || found.ageMs > o.maxAgeMs)) continue;
    if (!o.dryRun) await unlink(join(dir, name)).catch(() => undefined);
    stale.push(name);
  }
  return stale;
};
