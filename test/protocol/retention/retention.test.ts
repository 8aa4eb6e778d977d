// The retention policy as a pure function: which changes go, why, and in which order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Change, ChangeState } from '../../../src/protocol/changes';
import { planRetention } from '../../../src/protocol/retention/retention';

const NOW = new Date('2025-06-15T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000);

const change = (id: string, state: ChangeState, at: Date): Change => ({
  id,
  ref: `refs/fettle/${id}`,
  tip: '0'.repeat(40),
  parents: [],
  fields: {
    id,
    kind: 'after',
    tier: state === 'pending' || state === 'expired' ? 'staged' : 'direct',
    path: 'f',
    file: '/r/f',
  },
  state,
  at,
});

const policy = { historyMaxAgeSeconds: 24 * 3600, historyMaxCount: 3 };
const plan = (changes: Change[]) => planRetention(changes, policy, NOW).map((r) => `${r.change.id}:${r.why}`);

test('nothing to remove within age and count', () => {
  assert.deepEqual(plan([change('a', 'applied', hoursAgo(1)), change('b', 'discarded', hoursAgo(2))]), []);
});

test('older than the maximum age goes, whatever its state but pending', () => {
  const changes = [
    change('p', 'pending', hoursAgo(30)),
    change('e', 'expired', hoursAgo(25)),
    change('d', 'discarded', hoursAgo(26)),
    change('i', 'incomplete', hoursAgo(27)),
  ];
  assert.deepEqual(plan(changes), ['i:age', 'd:age', 'e:age']);
});

test('beyond the maximum count goes, oldest first; pending changes are neither counted nor removed', () => {
  const changes = [
    change('p1', 'pending', hoursAgo(0)),
    change('a', 'applied', hoursAgo(1)),
    change('b', 'applied', hoursAgo(2)),
    change('p2', 'pending', hoursAgo(3)),
    change('c', 'applied', hoursAgo(4)),
    change('d', 'applied', hoursAgo(5)),
    change('e', 'applied', hoursAgo(6)),
  ];
  assert.deepEqual(plan(changes), ['e:count', 'd:count']);
});

test('a change rebuilt from a commit (no ref) is never a candidate', () => {
  assert.deepEqual(plan([{ ...change('x', 'applied', hoursAgo(48)), ref: '' }]), []);
});

/** Two changes whose tool call is open: one within the count's reach, one past the maximum age. */
const waiting = [
  change('a', 'applied', hoursAgo(1)),
  change('b', 'applied', hoursAgo(2)),
  change('c', 'applied', hoursAgo(3)),
  change('w', 'incomplete', hoursAgo(3.5)),
  change('d', 'applied', hoursAgo(4)),
  change('old', 'incomplete', hoursAgo(30)),
];

test('a change whose tool call is still open (waiting at a prompt) goes neither by count nor by age', () => {
  const open = new Set(['w', 'old']);
  assert.deepEqual(
    planRetention(waiting, policy, NOW, { open }).map((r) => `${r.change.id}:${r.why}`),
    ['d:count'],
  );
});

test('`fettle gc` takes an open call past the maximum age as abandoned: it goes by age, never by count', () => {
  const open = new Set(['w', 'old']);
  assert.deepEqual(
    planRetention(waiting, policy, NOW, { open, abandonOpen: true }).map((r) => `${r.change.id}:${r.why}`),
    ['old:age', 'd:count'],
  );
});
