import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capDiff, DIFF_CHAR_CAP, LINE_CHAR_CAP } from '../../src/core/messages';

test('capDiff keeps a short diff whole', () => {
  assert.deepEqual(capDiff('@@ -1 +1 @@\n-a\n+b'), { text: '@@ -1 +1 @@\n-a\n+b', cutLines: 0, shortened: 0 });
});

test('capDiff cuts a long line and never splits a surrogate pair', () => {
  const line = `+${'x'.repeat(LINE_CHAR_CAP - 2)}😀${'y'.repeat(100)}`;
  const { text, shortened } = capDiff(line);
  assert.equal(shortened, 1);
  assert.equal(text, `+${'x'.repeat(LINE_CHAR_CAP - 2)} [… ${line.length - LINE_CHAR_CAP + 1} more characters]`);
});

test('capDiff stops at the character cap and counts the lines it left out', () => {
  const rows = Array.from({ length: 100 }, (_, i) => `+${String(i).padEnd(99, '.')}`);
  const { text, cutLines } = capDiff(rows.join('\n'));
  assert.ok(text.length <= DIFF_CHAR_CAP, `${text.length}`);
  assert.equal(text.split('\n').length + cutLines, 100);
  assert.equal(
    text.split('\n').length,
    Math.floor((DIFF_CHAR_CAP + 1) / 101),
    'as many 100-character rows as fit, newlines counted',
  );
});
