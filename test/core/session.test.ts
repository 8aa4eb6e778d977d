import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { parseSessionCommit, renderSessionCommit, sessionName } from '../../src/core/session';
import { parseRecord } from '../../src/core/record-message';

const validRef = (name: string): boolean => {
  try {
    execFileSync('git', ['check-ref-format', `refs/fettle/sessions/${name}`]);
    return true;
  } catch {
    return false;
  }
};

for (const raw of ['5d3c9a1e-1f0b-4c52-9a57-2a4f8c0d9e11', 'abc', 'plain_name-1.2'])
  test(`a valid id is its own name: ${raw}`, () => assert.equal(sessionName(raw), raw));

for (const raw of ['a b', 'x/../y', '.hidden', 'end.', 'x.lock', 'a..b', '~^:?*[\\', '', '-dash', 'ü', 'a'.repeat(300)])
  test(`made a valid ref name, distinct per raw id: ${JSON.stringify(raw.slice(0, 20))}`, () => {
    const name = sessionName(raw);
    assert.ok(validRef(name), name);
    assert.ok(name.length <= 80);
    assert.notEqual(name, sessionName(`${raw}!`));
  });

const fields = {
  session: 'sess "one"',
  change: 'a1b2c3d4',
  event: 'write' as const,
  path: 'src/app.ts',
  base: 'f'.repeat(40),
  turn: 3,
  added: 2,
  removed: 1,
  reverts: undefined,
  time: 1_700_000_000_123,
  seq: 4,
};

test('a session commit round-trips', () => assert.deepEqual(parseSessionCommit(renderSessionCommit(fields)), fields));
test('a session commit is not a change record', () => assert.equal(parseRecord(renderSessionCommit(fields)), null));
test('a change record is not a session commit', () =>
  assert.equal(
    parseSessionCommit('fettle: write a\n\nx\n\nFettle-Id: a1b2c3d4\nFettle-Kind: after\nFettle-Path: a\n'),
    null,
  ));
