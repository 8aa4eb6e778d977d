// The diff of one file between two versions, as `git diff` prints it, computed in process for what a contract
// would change (`fettle apply --dry-run`): nothing is written to show it. For display only: a UTF-16 file is
// shown decoded, binary content as a line saying it differs.
import { classifyContent } from './content';
import { diffLines, renderUnified } from './diff';

/** How long the in-process diff of one file may take before the file is shown by its size instead. */
const DISPLAY_DIFF_MS = 2000;

const textOf = (bytes: Buffer | null): string | null => {
  if (bytes === null) return '';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.toString('utf16le');
  return classifyContent(bytes) === 'text' ? bytes.toString('utf8') : null;
};

export const fileDiff = (path: string, before: Buffer | null, after: Buffer | null): string => {
  const head = [`diff --git a/${path} b/${path}`];
  if (before === null) head.push('new file mode 100644');
  if (after === null) head.push('deleted file mode 100644');
  const [a, b] = [textOf(before), textOf(after)];
  const from = before === null ? '/dev/null' : `a/${path}`;
  const to = after === null ? '/dev/null' : `b/${path}`;
  if (a === null || b === null) return [...head, `Binary files ${from} and ${to} differ`].join('\n');
  const d = diffLines(a, b, DISPLAY_DIFF_MS);
  if (!d)
    return [...head, `(too large a change to show here: ${before?.length ?? 0} bytes to ${after?.length ?? 0})`].join(
      '\n',
    );
  const body = renderUnified(path, d.hunks, Number.MAX_SAFE_INTEGER, before !== null)
    .text.split('\n')
    .slice(2);
  return [...head, `--- ${from}`, `+++ ${to}`, ...body].join('\n');
};
