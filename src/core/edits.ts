// Reproducing what Claude Code's Edit and MultiEdit tools will write, from the bytes on disk. Only exact
// string matching is reproduced; anything the tool would refuse or normalise (no match, an ambiguous match,
// quote normalisation) is "unsure", and fettle then lets the tool run and report for itself.

export interface EditOp {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

export type EditResult = { ok: true; text: string } | { ok: false; why: string };

const occurrences = (text: string, needle: string): number => {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
};

/** One edit, as the tool applies it: exact match, unique unless replace_all. */
export const applyEdit = (text: string, op: EditOp): EditResult => {
  if (op.oldString === '') return { ok: false, why: 'old_string is empty' };
  if (op.oldString === op.newString) return { ok: false, why: 'old_string and new_string are the same' };
  const found = occurrences(text, op.oldString);
  if (found === 0) return { ok: false, why: 'old_string was not found exactly' };
  if (found > 1 && !op.replaceAll)
    return { ok: false, why: `old_string matches ${found} places and replace_all is not set` };
  // Deleting a line's text (empty new_string, old_string without its newline) deletes the line: the tool
  // removes the newline that follows when old_string + "\n" is in the file.
  const needle =
    op.newString === '' && !op.oldString.endsWith('\n') && text.includes(`${op.oldString}\n`)
      ? `${op.oldString}\n`
      : op.oldString;
  // split/join replaces every occurrence without interpreting `$` patterns the way String.replace would.
  return {
    ok: true,
    text: op.replaceAll ? text.split(needle).join(op.newString) : replaceOnce(text, needle, op.newString),
  };
};

const replaceOnce = (text: string, needle: string, replacement: string): string => {
  const at = text.indexOf(needle);
  return text.slice(0, at) + replacement + text.slice(at + needle.length);
};

/** Edits in order, all or nothing, each applied to the result of the previous one (MultiEdit). */
export const applyEdits = (text: string, ops: EditOp[]): EditResult => {
  let current = text;
  for (const [n, op] of ops.entries()) {
    const result = applyEdit(current, op);
    if (!result.ok) return ops.length > 1 ? { ok: false, why: `edit ${n + 1}: ${result.why}` } : result;
    current = result.text;
  }
  return { ok: true, text: current };
};
