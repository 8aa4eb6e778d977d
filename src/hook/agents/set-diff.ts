// The diff a model is shown for a set of files staged together: each file's own diff (plan.ts), a new file as
// all its lines added.
import type { SetFile } from '../../protocol/write-set';

const NEW_FILE_LINES = 200;

export const diffOfSet = (files: SetFile[]): string =>
  files
    .map((f) => {
      if (f.plan?.diff) return f.plan.diff.text;
      if (f.old === null && f.next) {
        const lines = f.next.toString('utf8').split('\n');
        if (lines[lines.length - 1] === '') lines.pop();
        const shown = lines.slice(0, NEW_FILE_LINES).map((l) => `+${l}`);
        const more = lines.length - shown.length;
        return [
          `--- /dev/null`,
          `+++ b/${f.target.treePath}`,
          ...shown,
          ...(more > 0 ? [`[${more} more lines]`] : []),
        ].join('\n');
      }
      return '';
    })
    .filter(Boolean)
    .join('\n');
