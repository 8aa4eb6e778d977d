import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cacheDirOf, cacheFile, payloadOf } from '../src/code-cache';
import { runCli, runHook, writePayload } from './helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from './helpers/repo';

const small = (repo: Repo, n: number) =>
  writePayload({ file: repo.path('a.txt'), content: lines(30).replace('line 2\n', `two ${n}\n`), cwd: repo.dir });
const hook = (repo: Repo, cache: string, n: number) =>
  runHook(small(repo, n), { cwd: repo.dir, env: { ...repo.env, FETTLE_CACHE_DIR: cache } });
const files = (dir: string) => readdirSync(dir).sort();
const HOOK_JS = join(__dirname, '..', 'dist', 'hook.js');

/** A repository whose first hook call wrote the cache: the file's name, and the bundle it was compiled from. */
const cachedOnce = () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const cache = join(tempDir(), 'cache');
  hook(repo, cache, 1);
  const [name = ''] = files(cache);
  return { repo, cache, name, source: readFileSync(HOOK_JS) };
};

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
  for (const args of [['status'], ['log'], ['--version']])
    assert.equal(runCli(args, { cwd: repo.dir, env: { ...repo.env, FETTLE_CACHE_DIR: cache } }).code, 0);
  assert.deepEqual(
    files(cache).map((f) => f.split('-')[0]),
    ['commands', 'glance.log', 'glance.status', 'hook'],
    'each bundle has its own, and status and log each their own of the glance',
  );
});

test('payloadOf: only a file made from these very source bytes, whose two payload copies agree', () => {
  const source = Buffer.from('module.exports = 1;');
  const payload = Buffer.from('compiled');
  const file = cacheFile(source, payload);
  const flipped = (at: number) => Buffer.from(file).fill(file[at] === 0x41 ? 0x42 : 0x41, at, at + 1);
  const sameLength = Buffer.from('module.exports = 2;');
  assert.deepEqual(payloadOf(file, source), payload);
  assert.equal(payloadOf(file, sameLength), undefined, 'another source of the same length: V8 alone would take it');
  assert.equal(payloadOf(file, Buffer.from('module.exports = 10;')), undefined);
  assert.equal(payloadOf(flipped(12 + source.length + 1), source), undefined, 'a byte of the first copy');
  assert.equal(payloadOf(flipped(file.length - 1), source), undefined, 'a byte of the second copy');
  assert.equal(payloadOf(file.subarray(0, file.length - 1), source), undefined, 'cut short');
  assert.equal(payloadOf(cacheFile(source, Buffer.alloc(0)), source), undefined, 'no payload');
  assert.equal(payloadOf(Buffer.from('old format'), source), undefined);
});

test('a corrupt cache is rejected by V8, the run is unaffected, and the cache is written anew', () => {
  const { repo, cache, name, source } = cachedOnce();
  // The bundle's own source and agreeing copies of bytes that are not code: only V8's own check can refuse them.
  writeFileSync(join(cache, name), cacheFile(source, Buffer.alloc(4064, 0x5a)));
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.ok(payloadOf(readFileSync(join(cache, name)), source)?.[0] !== 0x5a, 'replaced by a real cache');
});

test('a cache damaged on disk (one flipped bit) is never handed to V8, and is written anew', () => {
  const { repo, cache, name, source } = cachedOnce();
  const bytes = readFileSync(join(cache, name));
  // the last byte: in the payload's second copy, which nothing but the comparison reads
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x10, bytes.length - 1);
  writeFileSync(join(cache, name), bytes);
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  const again = readFileSync(join(cache, name));
  assert.ok(!again.equals(bytes), 'the damaged file was replaced');
  assert.ok(payloadOf(again, source) !== undefined, 'by one whose copies agree');
});

test('a cache compiled from another bundle of the same length, in the same place, is never run', () => {
  const { repo, cache, name, source } = cachedOnce();
  const other = Buffer.from(source).fill(0x20, source.length - 8);
  writeFileSync(
    join(cache, name),
    cacheFile(other, payloadOf(readFileSync(join(cache, name)), source) ?? Buffer.alloc(0)),
  );
  const r = hook(repo, cache, 2);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.ok(payloadOf(readFileSync(join(cache, name)), source) !== undefined, 'rewritten from the bundle on disk');
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
  const { repo, cache, name } = cachedOnce();
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
