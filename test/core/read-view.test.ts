// numberedLines: a page of a text file as `cat -n` prints it (6-wide number, tab, line), for `fettle read`
// and the large-Read hook.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numberedLines, type ReadView } from '../../src/core/read-view';

const n = (k: number, line: string): string => `${String(k).padStart(6)}\t${line}`;
const ABC = 'a\nb\nc\n';

// [label, content, offset, limit, maxChars, expected view]
const cases: [string, string, number | undefined, number | undefined, number | undefined, ReadView][] = [
  [
    'whole file',
    ABC,
    undefined,
    undefined,
    undefined,
    { text: [n(1, 'a'), n(2, 'b'), n(3, 'c')].join('\n'), first: 1, last: 3, total: 3, cut: false },
  ],
  [
    'no final newline',
    'a\nb',
    undefined,
    undefined,
    undefined,
    { text: [n(1, 'a'), n(2, 'b')].join('\n'), first: 1, last: 2, total: 2, cut: false },
  ],
  [
    'one empty line',
    '\n',
    undefined,
    undefined,
    undefined,
    { text: n(1, ''), first: 1, last: 1, total: 1, cut: false },
  ],
  [
    'blank lines in between are numbered',
    'a\n\n\nb\n',
    undefined,
    undefined,
    undefined,
    { text: [n(1, 'a'), n(2, ''), n(3, ''), n(4, 'b')].join('\n'), first: 1, last: 4, total: 4, cut: false },
  ],
  [
    'offset',
    ABC,
    2,
    undefined,
    undefined,
    { text: [n(2, 'b'), n(3, 'c')].join('\n'), first: 2, last: 3, total: 3, cut: false },
  ],
  ['offset and limit', ABC, 2, 1, undefined, { text: n(2, 'b'), first: 2, last: 2, total: 3, cut: false }],
  ['limit past the end', ABC, 3, 100, undefined, { text: n(3, 'c'), first: 3, last: 3, total: 3, cut: false }],
  [
    'offset past the end: nothing',
    ABC,
    10,
    undefined,
    undefined,
    { text: '', first: 10, last: 9, total: 3, cut: false },
  ],
  ['offset 0 reads from line 1', ABC, 0, 1, undefined, { text: n(1, 'a'), first: 1, last: 1, total: 3, cut: false }],
  ['limit 0: nothing', ABC, 1, 0, undefined, { text: '', first: 1, last: 0, total: 3, cut: false }],
  [
    'maxChars cuts at a whole line',
    ABC,
    1,
    undefined,
    20,
    { text: [n(1, 'a'), n(2, 'b')].join('\n'), first: 1, last: 2, total: 3, cut: true },
  ],
  [
    'maxChars exactly fits',
    ABC,
    1,
    undefined,
    27,
    { text: [n(1, 'a'), n(2, 'b'), n(3, 'c')].join('\n'), first: 1, last: 3, total: 3, cut: false },
  ],
  [
    'maxChars below one line: that line is cut to the page, and marked',
    ABC,
    2,
    undefined,
    3,
    { text: `${n(2, 'b').slice(0, 3)} [line cut at 3 characters]`, first: 2, last: 2, total: 3, cut: true },
  ],
  [
    'limit reached before maxChars: not cut',
    ABC,
    1,
    2,
    1000,
    { text: [n(1, 'a'), n(2, 'b')].join('\n'), first: 1, last: 2, total: 3, cut: false },
  ],
  [
    'CR of CRLF kept as content',
    'a\r\nb\r\n',
    undefined,
    undefined,
    undefined,
    { text: [n(1, 'a\r'), n(2, 'b\r')].join('\n'), first: 1, last: 2, total: 2, cut: false },
  ],
  [
    'tabs and non-ASCII as they are',
    '\tx = "\u00e9"\n',
    undefined,
    undefined,
    undefined,
    { text: n(1, '\tx = "\u00e9"'), first: 1, last: 1, total: 1, cut: false },
  ],
];
for (const [label, content, offset, limit, maxChars, expected] of cases) {
  test(`numberedLines: ${label}`, () => assert.deepEqual(numberedLines(content, offset, limit, maxChars), expected));
}

test('numbers past six digits widen the column instead of being cut', () => {
  const content = 'x\n'.repeat(1_000_001);
  const view = numberedLines(content, 999_999, 3);
  assert.equal(view.text, [n(999_999, 'x'), n(1_000_000, 'x'), n(1_000_001, 'x')].join('\n'));
  assert.equal(view.text.split('\n')[2], '1000001\tx');
});

test('a page deep in a large file stays under maxChars and knows the total', () => {
  const content = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`).join('\n');
  const view = numberedLines(content, 150_000, 2000, 9000);
  assert.deepEqual([view.first, view.total, view.cut], [150_000, 200_000, true]);
  assert.ok(view.text.length <= 9000, `${view.text.length} characters`);
  assert.equal(view.text.split('\n').at(-1), n(view.last, `line ${view.last}`));
});

// An empty file has no lines (countLines('') is 0, `cat -n` prints nothing).
test('an empty file has no lines', () =>
  assert.deepEqual(numberedLines(''), { text: '', first: 1, last: 0, total: 0, cut: false }));
