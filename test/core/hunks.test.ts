// Hunks are read from git's own diff and applied by line ranges only: any subset of a change's hunks gives exact
// bytes (CRLF, no final newline, a new or emptied file), checked here against git itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyHunks, hunkListText, parseHunkList, parseHunks, splitLines } from '../../src/core/hunks';

/** git's diff of two byte strings, as fettle asks for it. */
const gitDiff = (a: Buffer, b: Buffer): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fettle-hunks-'));
  try {
    writeFileSync(join(dir, 'a'), a);
    writeFileSync(join(dir, 'b'), b);
    try {
      return execFileSync('git', ['diff', '--no-index', '--no-color', '-U3', 'a', 'b'], { cwd: dir }).toString();
    } catch (error) {
      return (error as { stdout: Buffer }).stdout.toString(); // exit 1: they differ
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const numbered = (n: number, eol = '\n') => Array.from({ length: n }, (_, k) => `line ${k + 1}${eol}`);
const edit = (lines: string[], at: number[], eol = '\n') =>
  lines.map((l, k) => (at.includes(k + 1) ? `changed ${k + 1}${eol}` : l));

/** Every subset of the hunks of base -> proposal: kept hunks' lines from the proposal, the rest from the base. */
const everySubset = (base: Buffer, proposal: Buffer) => {
  const hunks = parseHunks(gitDiff(base, proposal));
  for (let mask = 0; mask < 1 << hunks.length; mask++) {
    const chosen = new Set(hunks.filter((h) => mask & (1 << (h.index - 1))).map((h) => h.index));
    const out = applyHunks(base, proposal, hunks, chosen);
    if (chosen.size === 0) assert.deepEqual(out, base);
    if (chosen.size === hunks.length) assert.deepEqual(out, proposal);
    // What is left between the result and the proposal is exactly the hunks not chosen.
    const left = parseHunks(gitDiff(out, proposal));
    const unchosen = hunks.filter((h) => !chosen.has(h.index));
    assert.equal(
      left.reduce((s, h) => s + h.added, 0),
      unchosen.reduce((s, h) => s + h.added, 0),
    );
  }
  return hunks;
};

const cases: [string, Buffer, Buffer, number][] = [
  [
    'three separate edits',
    Buffer.from(numbered(40).join('')),
    Buffer.from(edit(numbered(40), [2, 20, 38]).join('')),
    3,
  ],
  [
    'CRLF endings',
    Buffer.from(numbered(30, '\r\n').join('')),
    Buffer.from(edit(numbered(30, '\r\n'), [1, 29], '\r\n').join('')),
    2,
  ],
  [
    'no final newline, last line changed',
    Buffer.from(`${numbered(20).join('')}end`),
    Buffer.from(`${edit(numbered(20), [3]).join('')}END`),
    2,
  ],
  ['a new file', Buffer.alloc(0), Buffer.from(numbered(5).join('')), 1],
  ['a file emptied', Buffer.from(numbered(5).join('')), Buffer.alloc(0), 1],
  [
    'lines added at the top and the end',
    Buffer.from(numbered(20).join('')),
    Buffer.from(['top\n', ...numbered(20), 'bottom\n'].join('')),
    2,
  ],
  [
    'lines removed',
    Buffer.from(numbered(30).join('')),
    Buffer.from(
      numbered(30)
        .filter((_, k) => k !== 4 && k !== 24)
        .join(''),
    ),
    2,
  ],
];
for (const [name, base, proposal, count] of cases)
  test(`every subset of the hunks gives exact bytes: ${name}`, () =>
    assert.equal(everySubset(base, proposal).length, count));

test('hunks carry git’s numbers, header and counts', () => {
  const body = numbered(10).map((l) => `  ${l}`);
  const base = Buffer.from(['function a() {\n', ...body, '}\n'].join(''));
  const proposal = Buffer.from(['function a() {\n', ...edit(body, [8]), '}\n'].join(''));
  const [h] = parseHunks(gitDiff(base, proposal));
  assert.deepEqual(h, {
    index: 1,
    oldStart: 6,
    oldLines: 7,
    newStart: 6,
    newLines: 7,
    header: 'function a() {',
    added: 1,
    removed: 1,
  });
});

test('hunks that do not describe the two files are refused, never applied', () => {
  const base = Buffer.from(numbered(10).join(''));
  const hunks = parseHunks(gitDiff(base, Buffer.from(edit(numbered(10), [5]).join(''))));
  const other = Buffer.from(['new first line\n', ...numbered(10)].join(''));
  assert.throws(() => applyHunks(base, other, hunks, new Set([1])), /do not describe/);
});

test('splitLines keeps every byte', () => {
  for (const text of ['', 'a', 'a\n', 'a\r\nb', '\n\n', 'x\ny\n'])
    assert.equal(Buffer.concat(splitLines(Buffer.from(text))).toString(), text);
});

const lists: [string, number, number[] | RegExp][] = [
  ['1,3', 3, [1, 3]],
  ['1-3,5', 5, [1, 2, 3, 5]],
  [' 2 , 2 ', 3, [2]],
  ['4', 3, /has 3 hunks, so there is no hunk 4/],
  ['0', 3, /not a range from low to high/],
  ['3-1', 3, /not a range from low to high/],
  ['a', 3, /'a' is not a hunk number/],
  ['', 3, /'' is not a hunk number/],
];
for (const [text, count, want] of lists)
  test(`--hunks ${JSON.stringify(text)} of ${count}`, () =>
    want instanceof RegExp
      ? assert.throws(() => parseHunkList(text, count), want)
      : assert.deepEqual(parseHunkList(text, count), want));

test('hunk lists read back as a person types them', () => {
  assert.equal(hunkListText([1, 2, 3, 5]), '1-3, 5');
  assert.equal(hunkListText([2, 3]), '2, 3');
  assert.equal(hunkListText([4]), '4');
});
