// The opt-in Read hook (`fettle install --read`): Claude Code's Read refuses text files over 256 KB without
// offset/limit; fettle serves reads of text files over FETTLE_READ_THRESHOLD (by default that limit) from disk,
// one page at a time, through the deny channel (the model reads it as the tool's result). Images, PDFs,
// notebooks and binary files pass through untouched (an SVG is text), and so does a path a policy rule `ignore`s
// (fettle leaves it alone, as it does its writes); a file fettle staged is read as it is on disk, never the
// staged version.
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { readThresholdFrom } from '../config';
import { classifyContent } from '../core/content';
import { numberedLines } from '../core/read-view';
import type { ToolCall } from '../core/tool-call';
import { readUserFile } from '../protocol/read';
import { selfCommand, shellQuote } from '../io/self';
import { isFettleError, toFettleError } from '../errors';
import { policyFor } from '../protocol/decide/policy';
import { readTarget } from '../protocol/reread';
import { deny, pass, warn, type HookOutcome } from './outcome';
import type { HookEdge } from './edge';
import { isOutcome, writeContext } from './failure';

/** Hook output over 10,000 characters is moved to a file by Claude Code; stay under it. */
const PAGE_CHARS = 9000;
/** What the Read tool shows as an image, a document or cells, not as lines of text. */
export const PASS_THROUGH = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.pdf', '.ipynb']);

/** The threshold a served file is over: the tool's own limit, or the one the person set. */
const overWhat = (edge: HookEdge, threshold: number): string =>
  edge.env.FETTLE_READ_THRESHOLD?.trim() ? `FETTLE_READ_THRESHOLD (${threshold} bytes)` : "the Read tool's limit";

/** Whether a policy rule leaves the path to the tool; read only for a file that would be served. */
const ignored = async (path: string, cwd: string, edge: HookEdge): Promise<boolean> => {
  const ctx = writeContext(edge, cwd, false);
  if (isOutcome(ctx)) return false;
  // A path with no store (inside .git, a pseudo-filesystem) is under no rule: served as before.
  const target = await readTarget(ctx, path).catch(() => null);
  return target !== null && policyFor(ctx, target, { tool: 'Read' }).effect.kind === 'ignore';
};

export const serveRead = async (
  call: Extract<ToolCall, { tool: 'Read' }>,
  cwd: string,
  edge: HookEdge,
): Promise<HookOutcome> => {
  let threshold: number;
  try {
    threshold = readThresholdFrom(edge.env);
  } catch (error) {
    // A setting that cannot be read leaves every Read to the tool, said on each, never a blocked read.
    const e = toFettleError(error);
    return warn(`fettle: ${e.message}${e.hint ? ` ${e.hint}` : ''} This Read was not served by fettle.`);
  }
  const path = resolve(cwd, call.filePath);
  if (PASS_THROUGH.has(extname(path).toLowerCase())) return pass();
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size <= threshold) return pass();
    if (await ignored(path, cwd, edge)) return pass();
    const content = await readUserFile(path);
    if (!content) return pass();
    // Not UTF-8 text (or over 5 MB, which is still served): leave it to the tool.
    if (classifyContent(content) === 'binary') return pass();
    const view = numberedLines(content.toString('utf8'), call.offset ?? 1, call.limit ?? 2000, PAGE_CHARS);
    const invoke = selfCommand(edge.env, edge.script);
    const next =
      view.last < view.total
        ? `Lines ${view.last + 1}-${view.total} were not shown. Read on with: ${invoke} read ${shellQuote(path)} --offset ${view.last + 1} --limit 2000`
        : 'That is the end of the file.';
    return deny(
      `fettle served this read from disk (the file is ${Math.round(info.size / 1024)} KB, over ${overWhat(edge, threshold)}): lines ${view.first}-${view.last} of ${view.total} of ${path}.\n${view.text}\n${next}`,
    );
  } catch (error) {
    // A policy that cannot be read decides nothing: the tool reads it, and the person is told why.
    if (isFettleError(error) && error.code === 'E_POLICY')
      return warn(`fettle: ${error.message} This Read was not served by fettle.`);
    return pass(); // missing or unreadable: the tool reports it
  }
};
