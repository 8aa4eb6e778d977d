// One answer per tool call, in process against a real repository's git dir: claim, answer, replay, busy, a dead
// writer's marker taken over, and the clean-ups.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { WriteCall } from '../../../src/core/tool-call';
import {
  callName,
  callsDir,
  claimCall,
  forgetCall,
  forgetSessionCalls,
  staleCalls,
} from '../../../src/protocol/record/call-answers';
import { makeRepo } from '../../helpers/repo';

const commonOf = () => join(makeRepo({ 'a.txt': 'a' }).dir, '.git');
const write = (content: string): WriteCall => ({ tool: 'Write', filePath: '/r/a.txt', content });
/** A pid no process has (above the kernel's pid_max). */
const DEAD = 2 ** 22 + 12_345;

test('the name depends on the session, the tool_use_id and the input; the session is its prefix', () => {
  const name = callName('S', 'toolu_1', write('x'));
  assert.match(name, /^[0-9a-f]{12}-[0-9a-f]{24}\.json$/);
  assert.equal(callName('S', 'toolu_1', write('x')), name);
  for (const other of [
    callName('T', 'toolu_1', write('x')),
    callName('S', 'toolu_2', write('x')),
    callName('S', 'toolu_1', write('y')),
  ])
    assert.notEqual(other, name);
  assert.equal(callName('S', 'toolu_9', write('z')).slice(0, 13), name.slice(0, 13));
});

test('the first claim answers; the next one while it works is busy; once answered, the answer is replayed', async () => {
  const common = commonOf();
  const name = callName('S', 'toolu_1', write('x'));
  const first = await claimCall(common, name);
  assert.equal(first.kind, 'first');
  assert.deepEqual(await claimCall(common, name), { kind: 'busy' });
  if (first.kind === 'first') await first.answer('{"exitCode":0,"stdout":"deny"}');
  assert.deepEqual(await claimCall(common, name), { kind: 'answered', answer: '{"exitCode":0,"stdout":"deny"}' });
});

test('a released claim (the first one failed) lets the next one answer', async () => {
  const common = commonOf();
  const name = callName('S', 'toolu_1', write('x'));
  const first = await claimCall(common, name);
  if (first.kind === 'first') await first.release();
  assert.equal((await claimCall(common, name)).kind, 'first');
});

test('a marker a dead process left unanswered is taken over; one with no pid only once it is old', async () => {
  const common = commonOf();
  const name = callName('S', 'toolu_1', write('x'));
  await claimCall(common, name);
  writeFileSync(join(callsDir(common), name), JSON.stringify({ pid: DEAD }));
  assert.equal((await claimCall(common, name)).kind, 'first');
  const empty = callName('S', 'toolu_2', write('x'));
  writeFileSync(join(callsDir(common), empty), '');
  assert.deepEqual(await claimCall(common, empty), { kind: 'busy' }, 'being written right now');
  const old = new Date(Date.now() - 10_000);
  utimesSync(join(callsDir(common), empty), old, old);
  assert.equal((await claimCall(common, empty)).kind, 'first');
});

test('forgetCall removes one; forgetSessionCalls a session; staleCalls the old, orphaned and temp ones', async () => {
  const common = commonOf();
  const names = [
    callName('S', 'toolu_1', write('x')),
    callName('S', 'toolu_2', write('x')),
    callName('T', 'toolu_3', write('x')),
  ];
  for (const n of names) {
    const c = await claimCall(common, n);
    if (c.kind === 'first') await c.answer('{}');
  }
  await forgetCall(common, names[0] as string);
  assert.equal(existsSync(join(callsDir(common), names[0] as string)), false);
  await forgetSessionCalls(common, 'S');
  assert.deepEqual(readdirSync(callsDir(common)), [names[2]]);
  writeFileSync(join(callsDir(common), callName('U', 't', write('x'))), JSON.stringify({ pid: DEAD }));
  const now = Date.now();
  const orphans = await staleCalls(common, { maxAgeMs: 3_600_000, dryRun: true, nowMs: now });
  assert.deepEqual(orphans, [callName('U', 't', write('x'))], 'an unanswered marker of a dead process');
  const all = await staleCalls(common, { maxAgeMs: 3_600_000, dryRun: false, nowMs: now + 7_200_000 });
  assert.equal(all.length, 2);
  assert.deepEqual(readdirSync(callsDir(common)), []);
});
