import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cacheDirOf } from '../src/code-cache';
import { runCli, runHook, writePayload } from './helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from './helpers/repo';

const small = (repo: Repo, n: number) =>
  writePayload({ file: repo.path('a.txt'), content: lines(30).replace('line 2\n', `two ${n}\n`), cwd: repo.dir });
const hook = (repo: Repo, cache: string, n: number) =>
  runHook(small(repo, n), { cwd: repo.dir, env: { ...repo.env, FETTLE_CACHE_DIR: cache } });
const files = (dir: string) => readdirSync(dir).sort();

test('cacheDirOf: FETTLE_CACHE_DIR, then $XDG_CACHE_HOME/fettle, then ~/.cache/fettle', () => {
  assert.equal(cacheDirOf({ FETTLE_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' }), '/c');
  assert.equal(cacheDirOf({ XDG_CACHE_HOME: '/x', HOME: '/h' }), '/x/fettle');
  assert.equal(cacheDirOf({ HOME: '/h' }), '/h/.cache/fettle');
});

test('the first run writes the compiled hook bundle to the cache; later runs use it as is', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'cache');
  assert.equal(hook(repo, cache, 1).code, 0);
  const [name] = files(cache);
  assert.match(name ?? '', /^hook-[0-9a-f]{16}\.v8$/);
  const written = statSync(join(cache, name ?? '')).mtimeMs;
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.deepEqual(files(cache), [name]);
  assert.equal(statSync(join(cache, name ?? '')).mtimeMs, written, 'accepted, so not written again');
  for (const args of [['status'], ['--version']])
    assert.equal(runCli(args, { cwd: repo.dir, env: { ...repo.env, FETTLE_CACHE_DIR: cache } }).code, 0);
  assert.deepEqual(
    files(cache).map((f) => f.split('-')[0]),
    ['commands', 'glance', 'hook'],
    'each bundle has its own',
  );
});

test('a corrupt cache is rejected by V8, the run is unaffected, and the cache is written anew', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'cache');
  hook(repo, cache, 1);
  const [name = ''] = files(cache);
  // A valid checksum over bytes that are not code: only V8's own check can refuse them.
  const junk = Buffer.alloc(4064, 0x5a);
  writeFileSync(join(cache, name), Buffer.concat([createHash('sha256').update(junk).digest(), junk]));
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.ok(statSync(join(cache, name)).size > 4096, 'replaced by a real cache');
});

test('a cache damaged on disk (one flipped bit) is never handed to V8, and is written anew', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'cache');
  hook(repo, cache, 1);
  const [name = ''] = files(cache);
  const bytes = readFileSync(join(cache, name));
  bytes.writeUInt8(bytes.readUInt8(bytes.length >> 1) ^ 0x10, bytes.length >> 1);
  writeFileSync(join(cache, name), bytes);
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  const again = readFileSync(join(cache, name));
  assert.ok(!again.equals(bytes), 'the damaged file was replaced');
  assert.ok(
    createHash('sha256').update(again.subarray(32)).digest().equals(again.subarray(0, 32)),
    'by one whose checksum holds',
  );
});

test('a cache directory others may write to is neither read nor written', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'shared');
  mkdirSync(cache, { mode: 0o777 });
  chmodSync(cache, 0o777);
  const r = hook(repo, cache, 1);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.deepEqual(files(cache), [], 'nothing written where another account could replace it');
  chmodSync(cache, 0o700);
  hook(repo, cache, 2);
  const [name = ''] = files(cache);
  chmodSync(join(cache, name), 0o666);
  hook(repo, cache, 3);
  assert.equal(
    statSync(join(cache, name)).mode & 0o777,
    0o600,
    'a cache file others may write was not used but replaced by a private one',
  );
});

test('an unusable cache directory changes nothing but speed', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const notADir = join(tempDir(), 'file');
  writeFileSync(notADir, 'x');
  const r = hook(repo, notADir, 1);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.equal(
    repo
      .git('for-each-ref', '--format=%(refname)', 'refs/fettle')
      .split('\n')
      .filter((r) => !r.startsWith('refs/fettle/sessions/')).length,
    1,
    'the write was recorded',
  );
});

test('a cache of another build, and a temp file a killed process left, are removed when the current one is written', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'cache');
  hook(repo, cache, 1);
  const [name = ''] = files(cache);
  const stale = 'hook-0123456789abcdef.v8';
  writeFileSync(join(cache, stale), 'old');
  const [killed, writing] = [`.${name}.4242.tmp`, `.${name}.4343.tmp`];
  writeFileSync(join(cache, killed), 'left by a process killed an hour ago');
  utimesSync(join(cache, killed), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  writeFileSync(join(cache, writing), 'another process writing right now');
  writeFileSync(join(cache, name), 'corrupt, so rewritten');
  hook(repo, cache, 2);
  assert.deepEqual(files(cache), [writing, name].sort(), 'the stale temp file went; a fresh one is left to its writer');
});
