// Change ids and the stamp that orders records written within one millisecond.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isId, newId, stamp } from '../../src/protocol/ids';

test('new ids are 8 lowercase alphanumerics, and distinct', () => {
  const ids = Array.from({ length: 1000 }, () => newId());
  for (const id of ids) assert.ok(isId(id), id);
  assert.equal(new Set(ids).size, ids.length);
});

const notIds: [string, string][] = [
  ['too short', 'abc1234'],
  ['too long', 'abc123456'],
  ['uppercase', 'ABCD1234'],
  ['a ref path', 'fettle/abcd1234'],
  ['a hyphen', 'abcd-234'],
];
for (const [label, value] of notIds) test(`not an id: ${label}`, () => assert.equal(isId(value), false));

test('stamps of one millisecond are ordered by this process`s count', () => {
  const when = new Date(1_700_000_000_000);
  const [a, b] = [stamp(when), stamp(when)];
  assert.equal(a.time, when.getTime());
  assert.equal(b.time, a.time);
  assert.ok(b.seq > a.seq);
});
