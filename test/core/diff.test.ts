import assert from 'node:assert/strict';
import { test } from 'node:test';
import { structuredPatch } from 'diff';
import {
  changeCounts,
  diffLines,
  DIFF_TIMEOUT_MS,
  renderUnified,
  scanUnified,
  unifiedScanner,
} from '../../src/core/diff';

/** +/- counts of a patch given as text, through the byte scanner the git fallback uses. */
const countUnified = (patch: string) => {
  const { added, removed } = scanUnified(Buffer.from(patch), 0);
  return { added, removed };
};
const unifiedOf = (hunk: string[]) => Buffer.from(`--- a/f\n+++ b/f\n${hunk.join('\n')}\n`);
import { lines } from '../helpers/repo';

// [label, old, new, added, removed, modified in place]
const cases: [string, string, string, number, number, number][] = [
  ['identical', 'a\nb\n', 'a\nb\n', 0, 0, 0],
  ['one modified line', 'a\nb\nc\n', 'a\nB\nc\n', 1, 1, 1],
  ['one added line', 'a\nc\n', 'a\nb\nc\n', 1, 0, 0],
  ['one removed line', 'a\nb\nc\n', 'a\nc\n', 0, 1, 0],
  ['from empty', '', 'a\nb\n', 2, 0, 0],
  ['to empty', 'a\nb\n', '', 0, 2, 0],
  ['no final newline, modified', 'a', 'b', 1, 1, 1],
  ['final newline added', 'a', 'a\n', 1, 1, 1],
  ['LF to CRLF rewrites every line', 'a\nb\n', 'a\r\nb\r\n', 2, 2, 2],
  ['two separate hunks', lines(20), lines(20).replace('line 2\n', 'two\n').replace('line 19\n', 'nineteen\n'), 2, 2, 2],
  ['a line modified and one added in one run', 'a\nb\nc\n', 'a\nB\nX\nc\n', 2, 1, 1],
  ['two lines replaced by three', 'a\nb\nc\nd\n', 'a\nX\nY\nZ\nd\n', 3, 2, 2],
  [
    'an added and a removed line apart, in one hunk: none modified',
    lines(10),
    lines(10).replace('line 2\n', 'line 2\nnew\n').replace('line 5\n', ''),
    1,
    1,
    0,
  ],
];

for (const [label, oldText, newText, added, removed, modified] of cases) {
  test(`diffLines: ${label} -> +${added} -${removed} ~${modified}`, () => {
    const d = diffLines(oldText, newText);
    assert.ok(d);
    assert.deepEqual({ added: d.added, removed: d.removed, modified: d.modified }, { added, removed, modified });
  });
  test(`changeCounts: ${label} -> +${added} -${removed} ~${modified}`, () =>
    assert.deepEqual(changeCounts(Buffer.from(oldText), Buffer.from(newText)), { added, removed, modified }));
}

// [label, hunk lines of a git patch, lines modified in place]
const scannedModified: [string, string[], number][] = [
  ['a modified line', ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c'], 1],
  ['runs split by context', ['@@ -1,5 +1,5 @@', '-a', ' b', '+B', ' c', '-d', '+D'], 1],
  [
    '"no newline" lines inside a run',
    ['@@ -1 +1 @@', '-a', '\\ No newline at end of file', '+b', '\\ No newline at end of file'],
    1,
  ],
  ['runs of two hunks are not joined', ['@@ -1 +1,0 @@', '-a', '@@ -9,0 +9 @@', '+b'], 0],
  [
    'runs of two files are not joined',
    ['@@ -1 +1,0 @@', '-a', 'diff --git a/g b/g', '--- a/g', '+++ b/g', '@@ -1,0 +1 @@', '+b'],
    0,
  ],
];
for (const [label, hunk, modified] of scannedModified) {
  test(`unifiedScanner counts lines modified in place: ${label} -> ~${modified}`, () =>
    assert.equal(scanUnified(unifiedOf(hunk), 0).modified, modified));
}

// [label, from, to]: no line counts where either side is not text.
const uncounted: [string, Buffer | null, Buffer | null][] = [
  ['binary before', Buffer.from([0, 1, 2]), Buffer.from('a\n')],
  ['binary after', Buffer.from('a\n'), Buffer.from([0, 1, 2])],
];
for (const [label, from, to] of uncounted) {
  test(`changeCounts: ${label} -> none`, () => assert.equal(changeCounts(from, to), undefined));
}
test('changeCounts: no file on either side counts as empty', () =>
  assert.deepEqual(changeCounts(null, Buffer.from('a\nb\n')), { added: 2, removed: 0, modified: 0 }));

test('diffLines uses 3 lines of context and a separate hunk for distant changes', () => {
  const d = diffLines(lines(20), lines(20).replace('line 2\n', 'two\n').replace('line 19\n', 'nineteen\n'));
  assert.equal(d?.hunks.length, 2);
  assert.deepEqual(d?.hunks[0]?.lines, [' line 1', '-line 2', '+two', ' line 3', ' line 4', ' line 5']);
});

test('default timeout is bounded', () => assert.ok(DIFF_TIMEOUT_MS > 0 && DIFF_TIMEOUT_MS <= 2000));

// One shared line, so the rewrite is not the disjoint case answered without jsdiff; its edit distance (60,000)
// takes Myers' algorithm billions of steps, far past any timeout. Giving up (undefined) is the proof that the
// timeout was honoured: the time itself is the bench's to measure, never a test's on a loaded machine.
const HOPELESS: [string, string] = [`${lines(30000, 'old')}shared\n`, `shared\n${lines(30000, 'new')}`];

test('a large rewrite with a tiny timeout gives up (undefined)', () => {
  assert.equal(diffLines(...HOPELESS, 5), undefined);
});

test('a large rewrite with the default timeout gives up too, rather than running on', () => {
  assert.equal(diffLines(...HOPELESS), undefined);
});

// Versions with no line in common are answered without jsdiff; the hunks must be exactly jsdiff's.
const disjointCases: [string, string, string][] = [
  ['both end with a newline', 'x\ny\n', 'p\nq\nr\n'],
  ['neither ends with a newline', 'x\ny', 'p\nq'],
  ['only the old ends with a newline', 'x\ny\n', 'p\nq'],
  ['only the new ends with a newline', 'x', 'p\n'],
  ['the same text but for the final newline', 'x', 'x\n'],
  ['from empty', '', 'p\nq\n'],
  ['to empty', 'x\n', ''],
  ['CRLF', 'x\r\ny\r\n', 'p\r\n'],
  ['blank lines and repeats on one side', 'a\n\n\na\n', 'b\nb\n'],
  ['a 200-line rewrite', lines(200, 'old'), lines(200, 'new')],
];
for (const [label, oldText, newText] of disjointCases) {
  test(`diffLines with no shared line equals jsdiff: ${label}`, () => {
    const expected = structuredPatch('a', 'b', oldText, newText, '', '', { context: 3 }).hunks;
    assert.deepEqual(diffLines(oldText, newText)?.hunks, expected);
  });
}

const bigChange = () => {
  const d = diffLines(lines(100), lines(100, 'changed'));
  assert.ok(d);
  return d;
};

test('renderUnified prints git-style headers and hunks', () => {
  const d = diffLines('a\nb\nc\n', 'a\nB\nc\n');
  assert.ok(d);
  const r = renderUnified('dir/f.txt', d.hunks, 200);
  assert.equal(r.cutLines, 0);
  assert.equal(r.text, ['--- a/dir/f.txt', '+++ b/dir/f.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c'].join('\n'));
});

test('renderUnified for a new file uses /dev/null', () => {
  const d = diffLines('', 'x\n');
  assert.ok(d);
  assert.match(renderUnified('n.txt', d.hunks, 200, false).text, /^--- \/dev\/null\n\+\+\+ b\/n\.txt\n/);
});

const marker = /^\[(\d+) more (removed|added) lines\]$/;

test('renderUnified caps the body, shows both sides of a rewrite, and counts what it cut', () => {
  const d = bigChange(); // one hunk: header + 100 removed + 100 added
  const total = d.hunks.reduce((n, h) => n + h.lines.length + 1, 0);
  assert.equal(total, 201);
  const r = renderUnified('f', d.hunks, 50);
  const body = r.text.split('\n').slice(2);
  assert.ok(body.length <= 50, `${body.length}`);
  const real = body.filter((l) => !marker.test(l));
  assert.equal(real.length + r.cutLines, total, 'shown + cut = the whole hunk');
  const removed = real.filter((l) => l.startsWith('-')).length;
  const added = real.filter((l) => l.startsWith('+')).length;
  assert.ok(removed >= 20 && added >= 20, `both sides shown: -${removed} +${added}`);
  assert.deepEqual(
    body.filter((l) => marker.test(l)),
    [
      `[${100 - removed} more removed lines]`,
      ...(added < 100 && body.length < 50 ? [`[${100 - added} more added lines]`] : []),
    ],
  );
});

test('unifiedScanner keeps both sides of a large rewrite too (the git path)', () => {
  const side = (sign: string, word: string) => Array.from({ length: 3000 }, (_, i) => `${sign}${word} ${i}`);
  const patch = [
    'diff --git a/f b/f',
    '--- a/f',
    '+++ b/f',
    '@@ -1,3000 +1,3000 @@',
    ...side('-', 'old'),
    ...side('+', 'new'),
  ];
  const r = scanUnified(Buffer.from(`${patch.join('\n')}\n`), 200);
  assert.deepEqual([r.removed, r.added], [3000, 3000]);
  assert.ok(r.shown.length <= 200);
  assert.equal(r.shown.filter((l) => l.startsWith('-old')).length, 98);
  assert.equal(r.shown.filter((l) => l.startsWith('+new')).length, 98);
  assert.equal(r.shown[99], '[2902 more removed lines]');
  assert.equal(r.shown.filter((l) => !marker.test(l)).length + r.cutLines, 6001);
});

test('renderUnified: cut lines of later hunks include their headers', () => {
  const d = diffLines(lines(40), lines(40).replace('line 2\n', 'two\n').replace('line 39\n', 'x\n'));
  assert.ok(d && d.hunks.length === 2);
  const first = (d.hunks[0]?.lines.length ?? 0) + 1;
  const second = (d.hunks[1]?.lines.length ?? 0) + 1;
  const r = renderUnified('f', d.hunks, first);
  assert.equal(r.cutLines, second);
  assert.equal(r.text.split('\n').filter((l) => l.startsWith('@@')).length, 1);
});

test('renderUnified with a cap above the size cuts nothing', () => {
  const d = bigChange();
  const r = renderUnified('f', d.hunks, 1000);
  assert.equal(r.cutLines, 0);
  assert.equal(r.text.split('\n').length, 2 + 201);
});

const gitPatch = [
  'diff --git a/f b/f',
  'index 1..2 100644',
  '--- a/f',
  '+++ b/f',
  '@@ -1,3 +1,3 @@',
  ' a',
  '-b',
  '+B',
  '+C',
  ' c',
  '',
].join('\n');

test('patch counts: ignores the ---/+++ file headers', () =>
  assert.deepEqual(countUnified(gitPatch), { added: 2, removed: 1 }));
test('patch counts: of an empty patch is zero', () => assert.deepEqual(countUnified(''), { added: 0, removed: 0 }));
test('patch counts: ignores "\\ No newline at end of file"', () =>
  assert.deepEqual(
    countUnified('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n'),
    { added: 1, removed: 1 },
  ));
test('countUnified counts removed/added lines whose content starts with -- or ++', () =>
  assert.deepEqual(countUnified('--- a/f\n+++ b/f\n@@ -1 +1 @@\n--- sql comment\n+++ counter\n'), {
    added: 1,
    removed: 1,
  }));

test('unifiedScanner fed in chunks of any size gives what scanUnified gives for the whole patch', () => {
  const patch = Buffer.from(`${gitPatch}${gitPatch.replace('a/f', 'a/g')}@@ -9 +9 @@\n-é\n+ü without a newline`);
  const whole = scanUnified(patch, 7);
  for (const size of [1, 2, 3, 5, 8, 13, 64, patch.length]) {
    const scanner = unifiedScanner(7);
    for (let at = 0; at < patch.length; at += size) scanner.push(patch.subarray(at, at + size));
    assert.deepEqual(scanner.end(), whole, `chunks of ${size} bytes`);
  }
  assert.deepEqual([whole.added, whole.removed], [5, 3]);
});
