// Claude Code's Read, answered from what the session was last given of the file (protocol/reread.ts: the answer
// fettle_read gives over MCP). With `fettle install --read` only. The first read of a file goes to the client's own
// Read, whose read-before-edit tracking must see it; its PostToolUse keeps the file's bytes as the session's
// baseline when the text the tool returned shows exactly them. A re-read of identical bytes is denied with one line:
// the client's own state for the file stays as that first read left it, so a later Edit or Write is accepted. A
// re-read of a changed file goes to the tool, with what changed beside it: a diff in place of the file would leave
// the client's state on the old bytes, and its next Write refused as "modified since read", again after every
// re-read so answered (measured with Claude Code 2.1.330: docs/HOOK.md, "Re-reads"). A partial read never moves
// the baseline; the session's own writes do (wroteSeen). A path a policy rule ignores, a session that reads
// nothing through fettle, and any failure of this bookkeeping leave the Read to the tool.
import { extname, resolve } from 'node:path';
import { readWindow, resultBytes, showsBytes, showsWhole, shownFile, windowText } from '../core/client-read';
import type { Reread } from '../core/reread';
import type { ToolCall } from '../core/tool-call';
import { toFettleError } from '../errors';
import type { DiskFile } from '../io/atomic-write';
import type { Context } from '../protocol/context';
import { policyFor } from '../protocol/decide/policy';
import {
  forgetAllReads,
  forgetBaseline,
  loadReads,
  meterRead,
  moveBaseline,
  type ReadIndex,
  saveReads,
} from '../protocol/read-baselines';
import { noteLastRead, sinceOtherRead } from '../protocol/read-registry';
import { answerRead, readFileOf, readTarget, seenWords } from '../protocol/reread';
import { currentTurn } from '../protocol/turns';
import type { Target } from '../store/store';
import type { HookEdge } from './edge';
import { isOutcome, writeContext } from './failure';
import { context, deny, pass, warn, type HookOutcome } from './outcome';
import { PASS_THROUGH } from './read';

/**
 * Whose reads a call's are: the session's main conversation, or one of its subagents (Claude Code names it in
 * `agent_id`), each with a context and a read-before-edit state of its own, so never answered from another's.
 */
export const readerOf = (session: string | undefined, agentId: string | undefined): Reader | undefined =>
  session === undefined ? undefined : { session, key: agentId === undefined ? session : `${session}.agent-${agentId}` };

/** The session (whose turns date a read) and the key of the reads index of the conversation within it. */
export interface Reader {
  session: string;
  key: string;
}

export interface ReadHookCall {
  call: Extract<ToolCall, { tool: 'Read' }>;
  cwd: string | undefined;
  reader: Reader | undefined;
  /** PostToolUse: what the tool returned (`tool_response`) */
  response?: unknown;
}

interface Located {
  target: Target;
  disk: DiskFile;
}

/** The file's store and bytes, or null when its reads are not fettle's to answer. */
const located = async (ctx: Context, path: string): Promise<Located | null> => {
  if (PASS_THROUGH.has(extname(path).toLowerCase())) return null;
  const target = await readTarget(ctx, path);
  if (policyFor(ctx, target, { tool: 'Read' }).effect.kind === 'ignore') return null;
  const disk = await readFileOf(target.realPath);
  return disk ? { target, disk } : null;
};

/** The bookkeeping failed: the Read goes on as the tool does it, and the person is told why once per call. */
const leftToTool = (error: unknown): HookOutcome => {
  const e = toFettleError(error);
  // Not fettle's to record (inside .git, a pseudo-filesystem): the tool reads it, nothing to say.
  if (e.code === 'E_FORBIDDEN_PATH' || e.code === 'E_TOO_LARGE') return pass();
  return warn(`fettle: ${e.message}${e.hint ? ` ${e.hint}` : ''} This Read was left to the tool.`);
};

/**
 * A Read of a session that reads through fettle, of a file fettle keeps: `body` decides; anything else, and any
 * failure of the bookkeeping, leaves the Read to the tool.
 */
const withReadFile = async (
  r: ReadHookCall,
  edge: HookEdge,
  body: (ctx: Context, reader: Reader, found: Located) => Promise<HookOutcome>,
): Promise<HookOutcome> => {
  const { reader } = r;
  if (!reader) return pass();
  const ctx = writeContext(edge, r.cwd, false);
  if (isOutcome(ctx)) return ctx;
  try {
    const found = await located(ctx, resolve(ctx.cwd, r.call.filePath));
    return found ? await body(ctx, reader, found) : pass();
  } catch (error) {
    return leftToTool(error);
  }
};

/** The bookkeeping of an answer: a lost index costs later re-reads their saving, never a wrong answer. */
const save = (ctx: Context, reader: Reader, index: ReadIndex): Promise<void> =>
  saveReads(ctx.config.dataDir, reader.key, index).catch(() => undefined);

/** When the reader is given bytes now: the time, and the session's turn. */
const now = async (ctx: Context, reader: Reader) => ({
  at: ctx.now().getTime(),
  turn: await currentTurn(ctx.config.dataDir, reader.session),
});

/** What goes beside a changed file's Read: what changed since the session's read, in one line. */
const changedNote = (answer: Reread, path: string, seen: string): string =>
  `fettle: ${answer.kind === 'diff' ? answer.summary : `${path} changed since your read at ${seen}.`}`;

/**
 * The conversation's first read of the file goes to the tool; when another session was given it whole, a line
 * beside it says whether it is unchanged since, or what changed (protocol/read-registry.ts).
 */
const firstRead = async (
  ctx: Context,
  reader: Reader,
  index: ReadIndex,
  read: { target: Target; bytes: Buffer },
): Promise<HookOutcome> => {
  const at = ctx.now().getTime();
  const note = await sinceOtherRead(ctx.config.dataDir, { reader: reader.session, ...read, now: at });
  if (!note) return pass();
  index.meter.sentBytes += Buffer.byteLength(note);
  await save(ctx, reader, index);
  return context('PreToolUse', note);
};

/** PreToolUse: a re-read of identical bytes is answered with one line; anything else goes to the tool. */
export const rereadBefore = (r: ReadHookCall, edge: HookEdge): Promise<HookOutcome> =>
  withReadFile(r, edge, async (ctx, reader, { target, disk }) => {
    const asked = readWindow(r.call, disk.bytes);
    if (asked.kind === 'past') return pass();
    const window = asked.kind === 'window' ? asked.window : undefined;
    const request = { session: reader.key, target, bytes: disk.bytes, window };
    const { index, answer, baseline } = await answerRead(ctx, request);
    const entry = index.files[target.realPath];
    if (!baseline || !entry) return firstRead(ctx, reader, index, { target, bytes: disk.bytes });
    if (!baseline.bytes.equals(disk.bytes)) {
      const note = changedNote(answer, target.realPath, seenWords(entry));
      // The note is sent on top of the file: the meter says so (the Read itself is counted after it).
      index.meter.sentBytes += Buffer.byteLength(note);
      await save(ctx, reader, index);
      return context('PreToolUse', note);
    }
    // The same bytes, but the client's own state may not agree: the file was written since (its time moved: a
    // formatter, a revert), or the last re-read was answered so already (the client refused a write since, or lost
    // its state). The tool reads it, which sets the client's state again; a refused write cannot loop.
    if (answer.kind !== 'unchanged' || entry.mtime !== disk.mtimeMs || entry.answered) return pass();
    entry.answered = (entry.answered ?? 0) + 1;
    const plain = resultBytes(windowText(disk.bytes.toString('utf8'), window), window?.offset);
    const reason = `${answer.text.slice(0, -1)}: what that read showed is current (fettle answered this re-read).`;
    meterRead(index, { plainBytes: plain, sentBytes: Buffer.byteLength(reason), short: true });
    await save(ctx, reader, index);
    return deny(reason);
  });

/**
 * PostToolUse: what the tool returned is on the meter, and a whole file it showed exactly as the disk holds it is
 * the session's baseline; a whole file it showed otherwise (replaced since) leaves the session with no baseline.
 */
export const rereadAfter = async (r: ReadHookCall, edge: HookEdge): Promise<HookOutcome> => {
  const shown = shownFile(r.response);
  if (!shown) return pass();
  return withReadFile(r, edge, async (ctx, reader, { target, disk }) => {
    const index = loadReads(ctx.config.dataDir, reader.key);
    if (showsWhole(shown) && showsBytes(shown.content, disk.bytes)) {
      const file = { realPath: target.realPath, bytes: disk.bytes, mode: disk.mode, mtimeMs: disk.mtimeMs };
      const seen = await now(ctx, reader);
      const blob = await moveBaseline(target.store, index, file, seen);
      const last = blob && { session: reader.session, reader: reader.session, blob, at: seen.at };
      // Bookkeeping, as the index's: a lost entry costs another session its note, never a wrong one.
      if (last) await noteLastRead(ctx.config.dataDir, target.realPath, last).catch(() => undefined);
    } else if (showsWhole(shown)) forgetBaseline(index, target.realPath);
    const sent = resultBytes(shown.content, shown.startLine);
    meterRead(index, { plainBytes: sent, sentBytes: sent, short: false });
    await save(ctx, reader, index);
    return pass();
  });
};

/**
 * The session's own write, as it landed, is what it has seen of the file: a later read is compared with it, so an
 * Edit then a Read sends no stale note. Bytes fettle did not predict (another writer, a tool it cannot model)
 * leave the session with no baseline. Only for a session that reads through fettle: any other write pays one
 * small file read. Bookkeeping: a failure here is not the write's, and leaves at worst the older baseline, which
 * the bytes on disk no longer equal (the next Read goes to the tool).
 */
export const wroteSeen = async (
  ctx: Context,
  reader: Reader | undefined,
  wrote: { target: Target; landed: DiskFile | null; predicted: boolean },
): Promise<void> => {
  const index = reader ? loadReads(ctx.config.dataDir, reader.key) : undefined;
  if (!reader || !index || index.meter.reads === 0) return;
  const { target, landed } = wrote;
  try {
    if (wrote.predicted && landed) {
      const file = { realPath: target.realPath, bytes: landed.bytes, mode: landed.mode, mtimeMs: landed.mtimeMs };
      await moveBaseline(target.store, index, file, await now(ctx, reader));
    } else if (!forgetBaseline(index, target.realPath)) return;
    await save(ctx, reader, index);
  } catch {
    // as the comment says
  }
};

/** A write the client refused or failed: the session's next Read of the file goes to the tool, whole. */
export const forgetSeen = async (ctx: Context, reader: Reader | undefined, path: string): Promise<void> => {
  const index = reader ? loadReads(ctx.config.dataDir, reader.key) : undefined;
  if (!reader || !index || Object.keys(index.files).length === 0) return;
  try {
    const target = await readTarget(ctx, path);
    if (forgetBaseline(index, target.realPath)) await save(ctx, reader, index);
  } catch {
    // bookkeeping, as wroteSeen's
  }
};

/**
 * PreCompact, and SessionStart after `/clear` or a compaction: the model may no longer hold what the session was
 * given, so every next read goes to the tool.
 */
export const forgetReads = async (
  reader: Reader | undefined,
  cwd: string | undefined,
  edge: HookEdge,
): Promise<HookOutcome> => {
  const ctx = writeContext(edge, cwd, false);
  if (!reader || isOutcome(ctx)) return pass();
  try {
    await forgetAllReads(ctx.config.dataDir, reader.key);
    return pass();
  } catch (error) {
    // Kept, the baselines would answer re-reads the model can no longer look back on: say so, never silently.
    const e = toFettleError(error);
    return warn(`fettle: could not forget what this session read before its context was cleared: ${e.message}`);
  }
};
