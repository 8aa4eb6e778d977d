// core/cursor-edits.ts: the bytes a file held before Cursor's edit, recovered by undoing its replacements, or why not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reverseEdits } from '../../src/core/cursor-edits';

const e = (oldString: string, newString: string) => ({ oldString, newString });

// [label, now, edits, before (null: no file; a string starting "why:" is the reason it cannot)]
const CASES: [string, string, ReturnType<typeof e>[], string | null][] = [
  ['one replacement', 'a\nB\n', [e('b', 'B')], 'a\nb\n'],
  ['two, undone last first', 'X Y\n', [e('x', 'X'), e('y', 'Y')], 'x y\n'],
  ['a later edit of an earlier one', 'a2\n', [e('a', 'a1'), e('a1', 'a2')], 'a\n'],
  ['a created file', 'new\n', [e('', 'new\n')], null],
  ['written twice', 'B B\n', [e('b', 'B')], 'why:'],
  ['no longer there', 'c\n', [e('b', 'B')], 'why:'],
  ['text removed', 'a\n', [e('b', '')], 'why:'],
  ['no edits', 'a\n', [], 'why:'],
];
for (const [label, now, edits, before] of CASES)
  test(`reverseEdits: ${label}`, () => {
    const r = reverseEdits(Buffer.from(now), edits);
    if (before?.startsWith('why:')) assert.equal(r.ok, false);
    else assert.deepEqual(r, { ok: true, previous: before === null ? null : Buffer.from(before) });
  });
