// decideReread: what a re-read sends, against the bytes this session was last given (first, unchanged, diff, or
// the whole file with a reason when the gate trips).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideReread, type LineWindow } from '../../src/core/reread';

const lines = (n: number, f = (i: number) => `line ${i}`): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');
const edit = (n: number, at: number[]): string => lines(n, (i) => (at.includes(i) ? `changed ${i}` : `line ${i}`));
const every = (n: number, step: number): number[] =>
  Array.from({ length: Math.floor(n / step) }, (_, i) => (i + 1) * step);
const B = (s: string) => Buffer.from(s);
const big = 'x'.repeat(100 * 1024);

// [label, baseline, now, window, kind, a fragment of the answer]
const cases: [string, string | Buffer | null, string | Buffer, LineWindow | undefined, string, string][] = [
  ['no baseline: first', null, lines(10), undefined, 'first', ''],
  ['same bytes: unchanged', lines(10), lines(10), undefined, 'unchanged', 'f.ts unchanged since your read at turn 3.'],
  [
    'same bytes, window: scoped line',
    lines(10),
    lines(10),
    { offset: 2, limit: 3 },
    'unchanged',
    'lines 2-4 of f.ts unchanged',
  ],
  [
    'changed outside the window: unchanged window',
    lines(10),
    edit(10, [9]),
    { offset: 1, limit: 3 },
    'unchanged',
    'lines 1-3',
  ],
  [
    'changed inside the window: full page',
    lines(10),
    edit(10, [2]),
    { offset: 1, limit: 3 },
    'full',
    'changed since your read',
  ],
  [
    'one line changed: diff',
    lines(100),
    edit(100, [50]),
    undefined,
    'diff',
    '@@ -47,7 +47,7 @@\n line 47\n line 48\n line 49\n-line 50\n+changed 50',
  ],
  ['the diff says its hunks', lines(100), edit(100, [50]), undefined, 'diff', '1 hunk, +1 -1: line 50 (line 49)'],
  [
    'a CRLF-only change is a change',
    lines(100),
    lines(100).replace(/\n/g, '\r\n'),
    undefined,
    'full',
    '% of its lines changed',
  ],
  ['six hunks: diff', lines(300), edit(300, [20, 40, 60, 80, 100, 120]), undefined, 'diff', '6 hunks'],
  [
    'seven hunks: full',
    lines(300),
    edit(300, [20, 40, 60, 80, 100, 120, 140]),
    undefined,
    'full',
    '7 hunks (more than 6)',
  ],
  ['over 40 % changed: full', lines(20), edit(20, every(20, 2)), undefined, 'full', '50 % of its lines changed'],
  [
    'four hunks over 200 lines: full',
    lines(400),
    edit(400, [10, 100, 200, 300]),
    undefined,
    'full',
    '4 hunks spread over',
  ],
  ['three hunks over 200 lines: diff', lines(400), edit(400, [10, 200, 300]), undefined, 'diff', '3 hunks'],
  ['a diff dearer than the file: full', 'a\nb\n', 'a\nc\n', undefined, 'full', '50 %'],
  ['over 100 KB: full', big, `${big}y`, undefined, 'full', 'over 100 KB'],
  ['binary: full', B('a\0b'), B('a\0c'), undefined, 'full', 'not text'],
  ['binary unchanged: still full', B('a\0b'), B('a\0b'), undefined, 'full', 'not text'],
  ['emptied: full', lines(10), '', undefined, 'full', '100 %'],
];

for (const [label, baseline, now, window, kind, fragment] of cases) {
  test(`decideReread: ${label}`, () => {
    const base = baseline === null ? null : Buffer.isBuffer(baseline) ? baseline : B(baseline);
    const nowBytes = Buffer.isBuffer(now) ? now : B(now);
    const r = decideReread({ path: 'f.ts', baseline: base, now: nowBytes, window, seenAt: 'turn 3' });
    assert.equal(r.kind, kind);
    const said = r.kind === 'full' ? r.reason : r.kind === 'first' ? '' : r.text;
    assert.ok(said.includes(fragment), `${said} lacks ${fragment}`);
  });
}
