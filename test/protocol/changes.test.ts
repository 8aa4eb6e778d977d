// The order of changes: newest first, and never a tie, whatever the clock's resolution.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newestFirst, type Change } from '../../src/protocol/changes';

const change = (id: string, ms: number, seq?: number): Change => ({
  id,
  ref: `refs/fettle/${id}`,
  tip: '0'.repeat(40),
  parents: [],
  fields: { id, kind: 'after', tier: 'direct', path: 'f', file: '/r/f', time: ms, ...(seq ? { seq } : {}) },
  state: 'applied',
  at: new Date(ms),
});

const order = (changes: Change[]) => [...changes].sort(newestFirst).map((c) => c.id);

test('newer time first', () => assert.deepEqual(order([change('a', 1), change('b', 2)]), ['b', 'a']));
test('same millisecond: the later record of a process first', () =>
  assert.deepEqual(order([change('b', 5, 1), change('a', 5, 3), change('c', 5, 2)]), ['a', 'c', 'b']));
test('same millisecond and count: the id decides, so no two changes tie', () =>
  assert.deepEqual(order([change('a', 5, 1), change('c', 5, 1), change('b', 5, 1)]), ['c', 'b', 'a']));
test('the order does not depend on the input order', () => {
  const all = [change('x', 9, 2), change('y', 9, 2), change('z', 9, 1), change('w', 8, 9)];
  assert.deepEqual(order(all), order([...all].reverse()));
});
