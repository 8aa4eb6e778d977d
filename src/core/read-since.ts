// What the first read of a file in a session is told of the last other session's read of it (its bytes, kept as
// that session's baseline): one line when the bytes are the same, else what changed, a unified diff capped at
// SINCE_DIFF_LINES. Bytes are compared, never times; the diff is only ever against bytes a session was given.
import { classifyContent } from './content';
import { diffLines, renderUnified } from './diff';
import { REREAD_MAX_BYTES } from './reread';
import { agoText } from './time';

export const SINCE_DIFF_LINES = 200;
const DIFF_MS = 300;

export interface SinceInput {
  path: string;
  /** what the other session was given of the file */
  before: Buffer;
  now: Buffer;
  /** the other session, as `fettle log --session` takes it */
  session: string;
  /** how long ago it was given */
  agoMs: number;
}

export const sinceNote = (input: SinceInput): string => {
  const { path, before, now } = input;
  const since = `since session ${input.session} read it, ${agoText(input.agoMs)} ago`;
  if (before.equals(now)) return `fettle: ${path} unchanged ${since}.`;
  const changed = `fettle: ${path} changed ${since}`;
  if (now.length > REREAD_MAX_BYTES || before.length > REREAD_MAX_BYTES)
    return `${changed} (not diffed: over ${REREAD_MAX_BYTES / 1024} KB).`;
  if (classifyContent(now) !== 'text' || classifyContent(before) !== 'text') return `${changed} (not text).`;
  const d = diffLines(before.toString('utf8'), now.toString('utf8'), DIFF_MS);
  if (!d) return `${changed} (too large to diff quickly).`;
  const { text, cutLines } = renderUnified(path, d.hunks, SINCE_DIFF_LINES);
  const more = cutLines > 0 ? `\n… ${cutLines} more lines` : '';
  return `${changed}: +${d.added} -${d.removed}. The diff against what it read:\n${text}${more}`;
};
