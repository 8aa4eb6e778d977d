import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decide, tierFor, type Decision } from '../../src/core/decide';

const T = { floor: 10, ceil: 80, ratio: 0.4 };

// [changed lines, old line count, expected]
const cases: [number, number, string][] = [
  [0, 100, 'direct'],
  [10, 10, 'direct'], // at the floor: direct even at 100%
  [11, 100, 'direct'], // just above the floor, 11% of the file
  [11, 27, 'ratio'], // 11/27 = 0.407 > 0.40
  [12, 30, 'direct'], // 12/30 = 0.40 exactly: not above the ratio
  [13, 30, 'ratio'], // 13/30 = 0.433
  [79, 1000, 'direct'], // just below the ceiling
  [80, 1000, 'ceil'], // at the ceiling
  [81, 100000, 'ceil'],
  [5, 0, 'direct'], // empty file, under the floor
  [11, 0, 'ratio'], // empty file, past the floor: all of it is new
];

for (const [changed, oldLines, expected] of cases) {
  test(`tierFor(${changed} changed, ${oldLines} old lines) = ${expected}`, () =>
    assert.equal(tierFor(changed, oldLines, T), expected));
}

const buf = (s: string) => Buffer.from(s);
const outcome = (d: Decision) => (d.tier === 'noop' ? 'noop' : `${d.tier}:${d.reason}`);
const text = { oldKind: 'text' as const };

test('a file that does not exist is a new file, written directly', () =>
  assert.deepEqual(decide({ old: null, next: buf('x'), ...text }, T), {
    tier: 'direct',
    reason: 'new-file',
    added: 0,
    removed: 0,
    oldLines: 0,
  }));
test('identical bytes are a no-op', () =>
  assert.deepEqual(decide({ old: buf('a\n'), next: buf('a\n'), ...text }, T), { tier: 'noop' }));
test('binary content is direct, without counts', () =>
  assert.equal(outcome(decide({ old: buf('\0'), next: buf('x'), oldKind: 'binary' }, T)), 'direct:binary'));
test('oversize content is direct, without counts', () =>
  assert.equal(outcome(decide({ old: buf('a'), next: buf('b'), oldKind: 'oversize' }, T)), 'direct:oversize'));
test('text changes are decided by their counts', () =>
  assert.equal(
    outcome(decide({ old: buf('a'), next: buf('b'), ...text, counts: { added: 40, removed: 40, oldLines: 100 } }, T)),
    'staged:ceil',
  ));
test('a small text change is direct', () =>
  assert.equal(
    outcome(decide({ old: buf('a'), next: buf('b'), ...text, counts: { added: 1, removed: 1, oldLines: 100 } }, T)),
    'direct:small',
  ));
