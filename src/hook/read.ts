// The opt-in Read hook (`fettle install --read`): Claude Code's Read refuses text files over 256 KB without
// offset/limit; fettle serves such reads from disk, one page at a time, through the deny channel (the model
// reads it as the tool's result). Images, PDFs, notebooks and binary files pass through untouched; a file
// fettle staged is read as it is on disk, never the staged version.
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { classifyContent } from '../core/content';
import { numberedLines } from '../core/read-view';
import type { ToolCall } from '../core/tool-call';
import { readUserFile } from '../protocol/read';
import { selfCommand, shellQuote } from '../io/self';
import { deny, pass, type HookOutcome } from './outcome';
import type { HookEdge } from './edge';

/** Claude Code's Read byte cap; below it the tool reads the file itself. */
export const READ_SERVE_BYTES = 256 * 1024;
/** Hook output over 10,000 characters is moved to a file by Claude Code; stay under it. */
const PAGE_CHARS = 9000;
const PASS_THROUGH = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.pdf', '.ipynb', '.svg']);

export const serveRead = async (
  call: Extract<ToolCall, { tool: 'Read' }>,
  cwd: string,
  edge: HookEdge,
): Promise<HookOutcome> => {
  const path = resolve(cwd, call.filePath);
  if (PASS_THROUGH.has(extname(path).toLowerCase())) return pass();
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size <= READ_SERVE_BYTES) return pass();
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
      `fettle served this read from disk (the file is ${Math.round(info.size / 1024)} KB, over the Read tool's limit): lines ${view.first}-${view.last} of ${view.total} of ${path}.\n${view.text}\n${next}`,
    );
  } catch {
    return pass(); // missing or unreadable: the tool reports it
  }
};
