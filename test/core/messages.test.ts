import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capDiff, DIFF_CHAR_CAP, LINE_CHAR_CAP, sizeText } from '../../src/core/messages';

test('capDiff keeps a short diff whole', () => {
  assert.deepEqual(capDiff('@@ -1 +1 @@\n-a\n+b'), { text: '@@ -1 +1 @@\n-a\n+b', cutLines: 0, shortened: 0 });
});

test('capDiff cuts a long line and never splits a surrogate pair', () => {
  const line = `+${'x'.repeat(LINE_CHAR_CAP - 2)}😀${'y'.repeat(100)}`;
  const { text, shortened } = capDiff(line);
  assert.equal(shortened, 1);
  assert.equal(text, `+${'x'.repeat(LINE_CHAR_CAP - 2)} [… ${line.length - LINE_CHAR_CAP + 1} more characters]`);
});

test('capDiff gives one run of added lines at most half the character cap, then says what it left out', () => {
  const rows = Array.from({ length: 100 }, (_, i) => `+${String(i).padEnd(99, '.')}`);
  const { text, cutLines } = capDiff(rows.join('\n'));
  const shown = text.split('\n');
  const fit = Math.floor(DIFF_CHAR_CAP / 2 / 101);
  assert.equal(shown.length, fit + 1);
  assert.equal(shown[fit], `[${100 - fit} more added lines]`);
  assert.equal(cutLines, 100 - fit);
});

test('capDiff of a rewrite shows both sides within the character cap, and the context after them', () => {
  const side = (sign: string) => Array.from({ length: 100 }, (_, i) => `${sign}${String(i).padEnd(99, '.')}`);
  const { text, cutLines } = capDiff([...side('-'), ...side('+'), ' tail'].join('\n'));
  assert.ok(text.length <= DIFF_CHAR_CAP, `${text.length}`);
  const shown = text.split('\n');
  assert.ok(shown.filter((l) => l.startsWith('-')).length >= 25);
  assert.ok(shown.filter((l) => l.startsWith('+')).length >= 25);
  assert.equal(shown.filter((l) => !l.startsWith('[')).length + cutLines, 201);
  assert.ok(text.endsWith('[71 more added lines]\n tail'), text.slice(-60));
});

const T = { floor: 10, ceil: 80, ratio: 0.4 };
const staged = (added: number, removed: number, oldLines: number, reason: 'ceil' | 'ratio') =>
  ({ tier: 'staged', reason, added, removed, oldLines }) as const;
// [decision, what it counts, why it was staged]: never a "% of file" that counts a modified line twice
const sizes: [ReturnType<typeof staged>, string, string][] = [
  [
    staged(15, 14, 53, 'ratio'),
    '+15 -14 to a 53-line file',
    "its 29 changed lines (added + removed) are more than 40% of the file's 53",
  ],
  [
    staged(40, 40, 1000, 'ceil'),
    '+40 -40 to a 1000-line file',
    'its 80 changed lines (added + removed) reach the limit of 80',
  ],
  [staged(20, 0, 0, 'ratio'), '+20 -0 to an empty file', 'it puts more than 10 lines into an empty file'],
];
for (const [decision, counts, why] of sizes)
  test(`sizeText: ${counts}`, () => assert.deepEqual(sizeText(decision, T), { counts, why }));
