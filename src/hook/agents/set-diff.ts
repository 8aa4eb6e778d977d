// The diff a model is shown for a set of files staged together: each file's own diff (plan.ts), a new file as
// all its lines added, a removed one (a deletion, or a move's old path) as all its lines removed.
import { classifyContent } from '../../core/content';
import type { SetFile } from '../../protocol/write/write-set-record';

const NEW_FILE_LINES = 200;

/** A whole file as diff lines, each with `sign`, the first NEW_FILE_LINES of them. */
const wholeFile = (bytes: Buffer, sign: '+' | '-'): string[] => {
  const kind = classifyContent(bytes);
  if (kind !== 'text') return [`[${kind === 'binary' ? 'binary content' : 'over 5 MB'}, not shown]`];
  const lines = bytes.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const shown = lines.slice(0, NEW_FILE_LINES).map((l) => `${sign}${l}`);
  const more = lines.length - shown.length;
  return [...shown, ...(more > 0 ? [`[${more} more lines]`] : [])];
};

export const diffOfSet = (files: SetFile[]): string =>
  files
    .map((f) => {
      if (f.plan?.diff) return f.plan.diff.text;
      if (f.old === null && f.next)
        return [`--- /dev/null`, `+++ b/${f.target.treePath}`, ...wholeFile(f.next, '+')].join('\n');
      if (f.old && f.next === null)
        return [`--- a/${f.target.treePath}`, `+++ /dev/null`, ...wholeFile(f.old.bytes, '-')].join('\n');
      return '';
    })
    .filter(Boolean)
    .join('\n');
