// Cursor runs no hook before its agent edits a file; afterFileEdit reports the edit once it is on disk, as the
// replacements made (`edits: [{old_string, new_string}]`). The previous bytes are recovered by undoing those
// replacements, last first, on the bytes now on disk, and only when that is unambiguous: each new_string must be
// in the text exactly once when it is turned back into its old_string. Anything else (a new_string found twice
// or not at all, an empty one) means fettle cannot know what was there, and says so instead of guessing.
import { isUtf8 } from 'node:buffer';

export interface CursorEdit {
  oldString: string;
  newString: string;
}

export type Reversed = { ok: true; previous: Buffer | null } | { ok: false; why: string };

const count = (text: string, part: string): number => text.split(part).length - 1;

export const reverseEdits = (current: Buffer, edits: CursorEdit[]): Reversed => {
  if (edits.length === 0) return { ok: false, why: 'the edit lists no replacements' };
  if (!isUtf8(current)) return { ok: false, why: 'the file is not UTF-8 text' };
  let text = current.toString('utf8');
  // A file the edit created: one replacement of nothing by the whole content.
  const [only] = edits;
  if (edits.length === 1 && only && only.oldString === '' && only.newString === text)
    return { ok: true, previous: null };
  for (const edit of [...edits].reverse()) {
    if (edit.newString === '') return { ok: false, why: 'a replacement removed text, so where it was is unknown' };
    const found = count(text, edit.newString);
    if (found !== 1)
      return {
        ok: false,
        why:
          found === 0
            ? 'the file no longer holds what the edit wrote (edited again since?)'
            : 'what the edit wrote occurs more than once in the file',
      };
    const at = text.indexOf(edit.newString);
    text = text.slice(0, at) + edit.oldString + text.slice(at + edit.newString.length);
  }
  return { ok: true, previous: Buffer.from(text, 'utf8') };
};
