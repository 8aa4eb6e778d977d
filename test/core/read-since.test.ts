// sinceNote: what the first read of a file in a session is told of another session's read of it (unchanged, or
// what changed, with a diff capped at 200 lines), compared byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sinceNote } from '../../src/core/read-since';

const lines = (n: number, f = (i: number) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');
const B = (s: string) => Buffer.from(s);
const note = (before: string | Buffer, now: string | Buffer, agoMs = 3 * 3_600_000) =>
  sinceNote({ path: 'f.ts', before: B(before.toString()), now: B(now.toString()), session: 's1', agoMs });

// [label, before, now, the note, or a fragment of it]
const cases: [string, string, string, string][] = [
  ['same bytes', lines(10), lines(10), 'fettle: f.ts unchanged since session s1 read it, 3 h ago.'],
  ['CRLF for LF is a change', 'a\n', 'a\r\n', 'fettle: f.ts changed since session s1 read it, 3 h ago: +1 -1.'],
  ['one line changed', lines(10), lines(10).replace('line 5\n', 'five\n'), '-line 5\n+five\n'],
  ['lines added', lines(10), lines(12), ': +2 -0. The diff against what it read:\n--- a/f.ts\n+++ b/f.ts\n@@'],
  ['not text', lines(3), `${lines(3)}\u0000`, 'fettle: f.ts changed since session s1 read it, 3 h ago (not text).'],
  ['over 100 KB', lines(3), 'x'.repeat(101 * 1024), '(not diffed: over 100 KB).'],
];
for (const [label, before, now, expected] of cases)
  test(`sinceNote: ${label}`, () => assert.ok(note(before, now).includes(expected), note(before, now)));

test('sinceNote: a diff over 200 lines is cut, and says how many more', () => {
  const before = lines(400);
  const now = lines(400, (i) => `new ${i}`);
  const text = note(before, now);
  const body = text.split('\n').slice(3, -1);
  assert.ok(body.length <= 200 && body.length > 150, `${body.length} lines of diff`);
  assert.match(text, /\n… \d+ more lines$/);
  assert.match(text, /: \+400 -400\./);
});
