// What Claude Code's Read shows of a text file: the lines a call asks for (offset and limit, a page of 2,000 lines
// by default), and whether the text its result carries shows given bytes. Pure: the hook reads the disk.
import { isUtf8 } from 'node:buffer';
import { countLinesIn } from './content';
import type { LineWindow } from './reread';

/** Lines a Read without `limit` shows. */
export const READ_PAGE_LINES = 2000;

/**
 * The lines a Read asks for of a file of `total` lines: `whole` when it shows every line, a window when it shows
 * some, `past` when it starts after the last line. `offset` 0 and 1 both start at line 1, as the tool reads them.
 */
export const readWindow = (
  call: { offset?: number | undefined; limit?: number | undefined },
  bytes: Buffer,
): { kind: 'whole' } | { kind: 'window'; window: LineWindow } | { kind: 'past' } => {
  const total = countLinesIn(bytes);
  const offset = Math.max(1, call.offset ?? 1);
  const limit = call.limit ?? READ_PAGE_LINES;
  if (offset === 1 && limit >= total) return { kind: 'whole' };
  if (offset > total) return { kind: 'past' };
  return { kind: 'window', window: { offset, limit: Math.min(limit, total - offset + 1) } };
};

/** What a Read returned of a file, as its PostToolUse carries it (`tool_response.file`). */
export interface ShownFile {
  content: string;
  startLine: number;
  numLines: number;
  totalLines: number;
}

/** The text file a Read's response shows, or null when it is not one (an image, a notebook, a cut page). */
export const shownFile = (response: unknown): ShownFile | null => {
  if (typeof response !== 'object' || response === null) return null;
  const r = response as { type?: unknown; file?: Record<string, unknown> };
  const f = r.file;
  if (r.type !== 'text' || typeof f !== 'object' || f === null || f.truncatedByTokenCap === true) return null;
  const { content, startLine, numLines, totalLines } = f;
  if (typeof content !== 'string') return null;
  if (typeof startLine !== 'number' || typeof numLines !== 'number' || typeof totalLines !== 'number') return null;
  return { content, startLine, numLines, totalLines };
};

/** Whether the response shows every line of its file. */
export const showsWhole = (shown: ShownFile): boolean => shown.startLine <= 1 && shown.numLines >= shown.totalLines;

/**
 * Whether `content`, what a Read returned of a whole file, is exactly these bytes as the tool shows them: UTF-8
 * text, a byte-order mark dropped, CRLF shown as LF, the last line's newline not shown. Anything else (a file
 * replaced after the tool read it) is not what the session was given.
 */
export const showsBytes = (content: string, bytes: Buffer): boolean => {
  if (!isUtf8(bytes)) return false;
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  return [text, text.replaceAll('\r\n', '\n')].some((t) => t === content || t === `${content}\n`);
};

/**
 * The size of what the Read tool returns for `content` shown from line `startLine`: each line after its number and
 * a tab, as Claude Code 2.1 prints them (the meter's "plain" bytes; an estimate of the tool's own result).
 */
export const resultBytes = (content: string, startLine = 1): number =>
  content
    .split('\n')
    .reduce((n, line, i) => n + String(startLine + i).length + 1 + Buffer.byteLength(line) + (i > 0 ? 1 : 0), 0);

/** The text of lines `offset` to `offset + limit - 1` (all of them without a window), as the tool reads them. */
export const windowText = (text: string, window?: LineWindow): string =>
  window
    ? text
        .split('\n')
        .slice(window.offset - 1, window.offset - 1 + window.limit)
        .join('\n')
    : text;
