// fettle_read: a page of a text file with line numbers, and a re-read answered from what this server's session
// was last given of the file (core/reread.ts): one line when it is unchanged, a diff when it changed, the file
// with a line saying why when the diff would not help. `full: true` sends the page whatever was read before.
// A page that is not the whole file never moves the session's baseline; the whole file, or a diff, does.
import { resolve } from 'node:path';
import { classifyContent } from '../core/content';
import { plural } from '../core/plural';
import { numberedLines, type ReadView } from '../core/read-view';
import type { LineWindow, Reread } from '../core/reread';
import { FettleError } from '../errors';
import { policyFor } from '../protocol/decide/policy';
import { readUserDisk } from '../protocol/read';
import { loadReads, meterRead, moveBaseline, saveReads } from '../protocol/read-baselines';
import { noteLastRead, sinceOtherRead } from '../protocol/read-registry';
import { answerRead } from '../protocol/reread';
import { openTarget } from '../protocol/select/open';
import type { Target } from '../store/store';
import { type Args, contextFor, type McpEdge, text, type ToolResult } from './edge';

/** Characters of a page of fettle_read: about 10,000 tokens. */
const PAGE_CHARS = 40_000;
const PAGE_LINES = 2000;

/** The page as a plain read sends it. */
const pageText = (path: string, view: ReadView): string => {
  if (view.total === 0) return `${path} is empty.`;
  if (view.first > view.total) return `${path} has ${plural(view.total, 'line')}; line ${view.first} is past the end.`;
  const next =
    view.last < view.total
      ? `Lines ${view.last + 1}-${view.total} were not shown: read on with offset ${view.last + 1}.`
      : 'That is the end of the file.';
  return `Lines ${view.first}-${view.last} of ${view.total} of ${path}:\n${view.text}\n${next}`;
};

/** What is sent for a decision: the line, the diff, or the page (after the gate's reason). */
const sentFor = (answer: Reread, page: string): string => {
  if (answer.kind === 'unchanged' || answer.kind === 'diff') return answer.text;
  if (answer.kind === 'full') return `[fettle: sent in full, not as a diff: ${answer.reason}.]\n${page}`;
  return page;
};

/** The file's store, or null when its read keeps no baseline: none can be kept, or a policy rule ignores it. */
const targetOf = async (edge: McpEdge, path: string): Promise<Target | null> => {
  const ctx = contextFor(edge, {});
  try {
    const target = await openTarget(ctx, path);
    return policyFor(ctx, target, { tool: 'fettle_read' }).effect.kind === 'ignore' ? null : target;
  } catch (error) {
    // No store for this path (inside .git, a read-only place): the page is sent as a plain read sends it.
    edge.log(`fettle_read: ${path} is read without a baseline: ${String((error as Error).message ?? error)}`);
    return null;
  }
};

export const readTool = async (edge: McpEdge, args: Args): Promise<ToolResult> => {
  const path = resolve(edge.cwd, args.path as string);
  const disk = await readUserDisk(path).catch((error: NodeJS.ErrnoException) => {
    throw Object.assign(error, { path: error.path ?? path });
  });
  const bytes = disk?.bytes;
  if (!disk || !bytes) throw new FettleError('E_IO', `no such file or directory (${path})`);
  if (classifyContent(bytes) === 'binary')
    throw new FettleError('E_NOT_TEXT', `${path} is not UTF-8 text; fettle_read reads text files only.`);
  const view = numberedLines(
    bytes.toString('utf8'),
    (args.offset as number | undefined) ?? 1,
    (args.limit as number | undefined) ?? PAGE_LINES,
    PAGE_CHARS,
  );
  const page = pageText(path, view);
  if (view.total === 0 || view.first > view.total) return text(page);
  const target = await targetOf(edge, path);
  if (!target) return text(page);
  const whole = view.first === 1 && view.last === view.total;
  const window: LineWindow | undefined = whole ? undefined : { offset: view.first, limit: view.last - view.first + 1 };
  return text(await answer(edge, target, { bytes, mode: disk.mode, page, window, full: args.full === true }));
};

/** A first read's page, after the line saying what changed since another session's read, when one was. */
const firstPage = async (edge: McpEdge, read: { target: Target; bytes: Buffer; page: string; at: number }) => {
  const { dataDir } = contextFor(edge, {}).config;
  const last = { reader: edge.conversation, target: read.target, bytes: read.bytes, now: read.at };
  const note = await sinceOtherRead(dataDir, last);
  return note ? `${note}\n${read.page}` : read.page;
};

const answer = async (
  edge: McpEdge,
  target: Target,
  read: { bytes: Buffer; mode: number; page: string; window: LineWindow | undefined; full: boolean },
): Promise<string> => {
  const ctx = contextFor(edge, {});
  const { dataDir } = ctx.config;
  const at = ctx.now().getTime();
  const request = { session: edge.conversation, target, bytes: read.bytes, window: read.window };
  const { index, answer: decided } = read.full
    ? { index: loadReads(dataDir, edge.conversation), answer: { kind: 'first' } as Reread }
    : await answerRead(ctx, request);
  // `full: true` asks for the page alone.
  const first = decided.kind === 'first' && !read.full;
  const sent = first
    ? await firstPage(edge, { target, bytes: read.bytes, page: read.page, at })
    : sentFor(decided, read.page);
  // The session now holds the whole file (sent whole, or as a diff against what it held): it is the baseline, and
  // the last read of the file another session's first read is told about.
  if (!read.window && decided.kind !== 'unchanged') {
    const file = { realPath: target.realPath, bytes: read.bytes, mode: read.mode };
    const blob = await moveBaseline(target.store, index, file, { at });
    const last = blob && { session: edge.session, reader: edge.conversation, blob, at };
    if (last) await noteLastRead(dataDir, target.realPath, last).catch((e: unknown) => edge.log(`fettle_read: ${e}`));
  }
  const short = decided.kind === 'unchanged' || decided.kind === 'diff';
  meterRead(index, { plainBytes: Buffer.byteLength(read.page), sentBytes: Buffer.byteLength(sent), short });
  // The index is bookkeeping: the answer stands without it (the next re-read is then sent whole, or diffed
  // against the older baseline the session was also given).
  await saveReads(dataDir, edge.conversation, index).catch((error: unknown) =>
    edge.log(`fettle_read: ${String(error)}`),
  );
  return sent;
};
