import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import { withLock } from '../../src/io/lock';
import { tempDir } from '../helpers/repo';

const lockIn = () => join(tempDir(), 'locks', 'f.lock');

const deadPid = async (): Promise<number> => {
  const child = spawn('true');
  await new Promise((r) => child.on('exit', r));
  assert.ok(child.pid);
  return child.pid;
};

test('withLock runs fn, holds the lock file with our pid meanwhile, and removes it after', async () => {
  const lock = lockIn();
  const result = await withLock(lock, async () => {
    assert.equal(readFileSync(lock, 'utf8'), `${process.pid}\n`);
    return 42;
  });
  assert.equal(result, 42);
  assert.equal(existsSync(lock), false);
});

test('the lock file is removed after fn throws, and the error propagates', async () => {
  const lock = lockIn();
  await assert.rejects(
    withLock(lock, async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(existsSync(lock), false);
});

test('a lock left by a dead process is taken over', async () => {
  const lock = lockIn();
  await withLock(lock, async () => undefined); // creates the directory
  const pid = await deadPid();
  writeFileSync(lock, `${pid}\n`);
  const started = Date.now();
  const ran = await withLock(lock, async () => readFileSync(lock, 'utf8'), { timeoutMs: 5000 });
  assert.equal(ran, `${process.pid}\n`);
  assert.ok(Date.now() - started < 2000);
  assert.equal(existsSync(lock), false);
});

test('a lock held by a live process fails with E_LOCKED within the timeout, and is left alone', async (t) => {
  const lock = lockIn();
  await withLock(lock, async () => undefined);
  const holder = spawn('sleep', ['5']);
  t.after(() => holder.kill('SIGKILL'));
  writeFileSync(lock, `${holder.pid}\n`);
  let ran = false;
  const started = Date.now();
  await assert.rejects(
    withLock(
      lock,
      async () => {
        ran = true;
      },
      { timeoutMs: 200 },
    ),
    (e: unknown) =>
      e instanceof FettleError && e.code === 'E_LOCKED' && e.message.includes(String(holder.pid)) && Boolean(e.hint),
  );
  const took = Date.now() - started;
  assert.ok(took >= 150 && took < 1500, `took ${took} ms`);
  assert.equal(ran, false);
  assert.equal(readFileSync(lock, 'utf8'), `${holder.pid}\n`);
});

test('a waiter gets the lock once a live holder releases it', async () => {
  const lock = lockIn();
  await withLock(lock, async () => undefined);
  writeFileSync(lock, `${process.pid}\n`); // a live holder: this very process
  setTimeout(() => unlinkSync(lock), 150);
  assert.equal(await withLock(lock, async () => 'got it', { timeoutMs: 3000 }), 'got it');
});

test('two holders in one process never overlap', async () => {
  const lock = lockIn();
  let inside = 0;
  let overlap = false;
  const critical = async () => {
    inside++;
    if (inside > 1) overlap = true;
    await new Promise((r) => setTimeout(r, 30));
    inside--;
  };
  await Promise.all([1, 2, 3, 4].map(() => withLock(lock, critical, { timeoutMs: 5000 })));
  assert.equal(overlap, false);
  assert.equal(existsSync(lock), false);
});

test('waiters racing to take over a stale lock never end up inside together', async () => {
  const pid = await deadPid();
  for (let round = 0; round < 15; round++) {
    const lock = lockIn();
    await withLock(lock, async () => undefined);
    writeFileSync(lock, `${pid}\n`);
    let inside = 0;
    let overlap = false;
    const critical = async () => {
      if (++inside > 1) overlap = true;
      await new Promise((r) => setTimeout(r, 20));
      inside--;
    };
    await Promise.all(Array.from({ length: 8 }, () => withLock(lock, critical, { timeoutMs: 5000 })));
    assert.equal(overlap, false, `round ${round}`);
  }
});
