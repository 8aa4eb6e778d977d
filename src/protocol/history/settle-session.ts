// The end of a turn (Stop) or of a session (SessionEnd): the session's records whose after step never came are
// settled from the disk (settle.ts). `claude -p` exits right after the model's last answer and cancels the
// background PostToolUse of the last write. Cheap when the session has no open record: a few small files are
// read, and no git process starts.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openRegular } from '../../io/regular-file';
import { commonDirNear, locateTarget } from '../../store/locate';
import type { Store } from '../../store/store';
import { readStamp } from '../../store/store-format';
import type { Context } from '../context';
import { settleLinks } from '../record/settle';
import { forgetSessionCalls } from '../record/call-answers';
import { linksDir, openLinks, type OpenLink } from '../record/call-links';
import { settleBashSession } from '../bash/bash-settle';
import { openSnapshots } from '../bash/bash-state';

/** A PostToolUse of this turn may still be running in the background: it gets this long to record its write. */
const POST_GRACE_MS = 1000;
/** Links younger than this may belong to such a PostToolUse. */
const YOUNG_MS = 10_000;
/** Of a long transcript, the tail read for the calls of the last turn. */
const TRANSCRIPT_TAIL_BYTES = 32 * 1024 * 1024;

/**
 * The tool calls of `ids` the transcript holds a result for: the call is over (written, failed or refused), so no
 * permission prompt for it can still be open. An unreadable transcript proves nothing.
 */
export const endedCalls = async (transcript: string | undefined, ids: string[]): Promise<Set<string>> => {
  const ended = new Set<string>();
  if (!transcript || ids.length === 0) return ended;
  let text: string;
  try {
    const { handle, info } = await openRegular(transcript);
    try {
      const { size } = info;
      const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return ended;
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"tool_result"')) continue;
    for (const id of ids) if (line.includes(`"${id}"`) && /"tool_use_id"\s*:/.test(line)) ended.add(id);
  }
  return ended;
};

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** Settles `session`'s open records; at Stop, only those the transcript shows are over (see endedCalls). */
export const settleSessionRecords = async (
  ctx: Context,
  end: {
    session: string;
    event: 'Stop' | 'SessionEnd';
    transcript: string | undefined;
    /** the agent's end of a turn means every tool call of the turn is over (Codex's Stop, Gemini's AfterAgent) */
    callsOver?: boolean | undefined;
  },
): Promise<void> => {
  const common = await commonDirNear(ctx.cwd);
  // Its per-call files are fettle's data too: a store a newer fettle stamped is left as it is.
  if (common) readStamp({ kind: 'repo', commonDir: common });
  // The turn is over: no retry of its tool calls can come, so their answers need not be kept.
  if (common) await forgetSessionCalls(common, end.session);
  const dirs = unique([...(common ? [linksDir(common)] : []), linksDir(join(ctx.config.dataDir, 'store.git'))]);
  const find = async () => (await Promise.all(dirs.map((d) => openLinks(d, end.session)))).flat();
  let links = await find();
  let commands = await openSnapshots(ctx.config.dataDir, end.session);
  const young = () =>
    [...links.map((l) => l.writtenAt), ...commands.map((c) => c.writtenAt)].some((t) => Date.now() - t < YOUNG_MS);
  // SessionEnd shares a 1.5 s budget, and nothing runs after it: no waiting there.
  const deadline = end.event === 'Stop' ? Date.now() + POST_GRACE_MS : 0;
  while (young() && Date.now() < deadline) {
    await sleep(100);
    links = await find();
    commands = await openSnapshots(ctx.config.dataDir, end.session);
  }
  let failed: unknown;
  await settleWrites(ctx, links, end).catch((error: unknown) => {
    failed = error;
  });
  // Bash commands whose PostToolUse never came (the client cancels the last one's at exit), after the writes:
  // a path a later write recorded is that write's, not the command's.
  await settleBashSession(ctx, commands).catch((error: unknown) => {
    failed ??= error;
  });
  if (failed !== undefined) throw failed;
};

const settleWrites = async (
  ctx: Context,
  links: OpenLink[],
  end: { event: 'Stop' | 'SessionEnd'; transcript: string | undefined; callsOver?: boolean | undefined },
): Promise<void> => {
  if (links.length === 0) return;
  const toolUse = (l: OpenLink) => l.pending.fields?.toolUse ?? '';
  const ended =
    end.event === 'SessionEnd' || end.callsOver
      ? null
      : await endedCalls(end.transcript, links.map(toolUse).filter(Boolean));
  const stores = new Map<string, { store: Store; links: OpenLink[] }>();
  for (const link of links) {
    const { store } = await locateTarget(link.pending.file, ctx.cwd, ctx.env, ctx.config.dataDir, {
      resident: ctx.resident,
    });
    const group = stores.get(store.commonDir) ?? { store, links: [] };
    group.links.push(link);
    stores.set(store.commonDir, group);
  }
  for (const { store, links: group } of stores.values())
    await settleLinks(ctx, store, group, (l) => ended === null || ended.has(toolUse(l)));
};
