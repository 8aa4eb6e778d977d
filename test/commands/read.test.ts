// `fettle read <file> [--offset N] [--limit N]` end to end: a text file with line numbers, past the agent's
// Read limits; bad arguments are usage errors (exit 2); files it cannot print are refused (exit 1).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, SELF } from '../helpers/cli';
import { baseEnv, lines, makeRepo, tempDir } from '../helpers/repo';
import { fails, fettle, keepsUserState, ok, stageWrite } from '../helpers/stage';

const num = (k: number, line: string): string => `${String(k).padStart(6)}\t${line}`;
const numbered = (from: number, to: number, word = 'line'): string =>
  Array.from({ length: to - from + 1 }, (_, i) => num(from + i, `${word} ${from + i}`)).join('\n') + '\n';

// [label, arguments after `read`, stdout, stderr]
const pages: [string, string[], string, string][] = [
  ['the whole file', ['a.txt'], numbered(1, 10), ''],
  ['--offset', ['a.txt', '--offset', '8'], numbered(8, 10), ''],
  [
    '--limit',
    ['a.txt', '--limit', '3'],
    numbered(1, 3),
    `(lines 1-3 of 10; next: ${SELF} read a.txt --offset 4 --limit 3)\n`,
  ],
  [
    '--offset and --limit',
    ['a.txt', '--offset', '4', '--limit', '2'],
    numbered(4, 5),
    `(lines 4-5 of 10; next: ${SELF} read a.txt --offset 6 --limit 2)\n`,
  ],
  [
    '--offset=N --limit=N spelling',
    ['a.txt', '--offset=9', '--limit=1'],
    numbered(9, 9),
    `(lines 9-9 of 10; next: ${SELF} read a.txt --offset 10 --limit 1)\n`,
  ],
  ['a limit past the end', ['a.txt', '--offset', '10', '--limit', '50'], numbered(10, 10), ''],
  [
    'an offset past the end: says so',
    ['a.txt', '--offset', '11'],
    '',
    '(a.txt has 10 lines; line 11 is past the end)\n',
  ],
  ['an empty file: says so', ['empty.txt'], '', '(empty.txt is empty)\n'],
  ['a path in a subdirectory', ['sub/b.txt'], numbered(1, 2, 'b'), ''],
  ['no final newline', ['c.txt'], `${num(1, 'x')}\n${num(2, 'y')}\n`, ''],
];
for (const [label, args, stdout, stderr] of pages) {
  test(`read ${label}`, () => {
    const repo = makeRepo({ 'a.txt': lines(10), 'sub/b.txt': lines(2, 'b'), 'c.txt': 'x\ny', 'empty.txt': '' });
    const r = keepsUserState(repo, () => ok(fettle(repo, ['read', ...args])));
    assert.deepEqual([r.stdout, r.stderr], [stdout, stderr]);
  });
}

// [label, arguments after `read`, the message after `fettle: `]
const usage: [string, string[], string][] = [
  ['--offset 0', ['--offset', '0'], "--offset must be a whole number of at least 1, got '0'."],
  ['--offset -1', ['--offset', '-1'], "--offset must be a whole number of at least 1, got '-1'."],
  ['--offset abc', ['--offset', 'abc'], "--offset must be a whole number of at least 1, got 'abc'."],
  ['--offset 1.5', ['--offset', '1.5'], "--offset must be a whole number of at least 1, got '1.5'."],
  ['--offset empty', ['--offset='], "--offset must be a whole number of at least 1, got ''."],
  ['--limit 0', ['--limit', '0'], "--limit must be a whole number of at least 1, got '0'."],
  ['--limit 1e3', ['--limit', '1e3'], "--limit must be a whole number of at least 1, got '1e3'."],
  ['--limit " 5"', ['--limit', ' 5'], "--limit must be a whole number of at least 1, got ' 5'."],
];
for (const [label, args, message] of usage) {
  test(`read with ${label}: exit 2 naming the option`, () => {
    const repo = makeRepo({ 'a.txt': lines(10) });
    const r = fettle(repo, ['read', 'a.txt', ...args]);
    fails(r, message, 2);
    assert.equal(r.stdout, '');
  });
}

test('read with no file: exit 2', () => {
  const repo = makeRepo({ 'a.txt': lines(10) });
  fails(fettle(repo, ['read']), /missing required argument 'file'/, 2);
});

// [label, file name, bytes]
const unprintable: [string, string, Buffer][] = [
  ['a binary file', 'data.bin', Buffer.from([0x61, 0x00, 0x62, 0x0a])],
  ['non-UTF-8 text', 'latin1.txt', Buffer.from('caf\xe9\n', 'latin1')],
];
for (const [label, file, bytes] of unprintable) {
  test(`read of ${label}: refused, exit 1, nothing printed`, () => {
    const repo = makeRepo({ [file]: bytes });
    const r = fettle(repo, ['read', file]);
    assert.equal(r.stdout, '');
    fails(r, `${repo.path(file)} is not UTF-8 text; fettle read prints text files only.`, 1);
  });
}

test('read of a missing file: exit 1 naming the path', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = fettle(repo, ['read', 'missing.txt']);
  fails(r, /^fettle: no such file or directory .*missing\.txt/, 1);
  assert.equal(r.stdout, '');
});

test('read of a directory: exit 1 naming the path', () => {
  const repo = makeRepo({ 'sub/a.txt': 'a\n' });
  fails(fettle(repo, ['read', 'sub']), new RegExp(`${repo.path('sub')}`), 1);
});

test('-C: a relative path is read from that directory; an absolute one as given', () => {
  const repo = makeRepo({ 'sub/a.txt': lines(3, 'sub'), 'a.txt': lines(3, 'top') });
  assert.equal(ok(fettle(repo, ['-C', 'sub', 'read', 'a.txt'])).stdout, numbered(1, 3, 'sub'));
  assert.equal(
    ok(fettle(repo, ['-C', repo.path('sub'), 'read', 'a.txt', '--limit', '1'])).stdout,
    numbered(1, 1, 'sub'),
  );
  assert.equal(ok(fettle(repo, ['-C', 'sub', 'read', repo.path('a.txt')])).stdout, numbered(1, 3, 'top'));
  assert.equal(ok(fettle(repo, ['read', 'a.txt'], { cwd: repo.path('sub') })).stdout, numbered(1, 3, 'sub'));
});

test('read outside any repository works the same, and creates no store', () => {
  const home = tempDir();
  const dir = join(home, 'plain');
  mkdirSync(dir);
  writeFileSync(join(dir, 'notes.txt'), lines(4, 'note'));
  const r = runCli(['read', 'notes.txt', '--offset', '2', '--limit', '2'], { cwd: dir, env: baseEnv(home) });
  assert.deepEqual([r.code, r.stdout], [0, numbered(2, 3, 'note')], r.stderr);
  assert.equal(
    runCli(['read', join(dir, 'notes.txt')], { cwd: home, env: baseEnv(home) }).stdout,
    numbered(1, 4, 'note'),
  );
  assert.ok(!existsSync(join(home, '.data', 'fettle')), 'no private store created');
});

test('read prints text over 5 MB too, a page at a time', () => {
  const repo = makeRepo({ 'big.log': lines(600_000) });
  const r = ok(fettle(repo, ['read', 'big.log', '--offset', '599999', '--limit', '5']));
  assert.equal(r.stdout, numbered(599_999, 600_000));
});

test('read of a file with a staged change prints the disk, not the proposal', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  stageWrite(repo, 'a.txt', lines(30, 'STAGED'));
  assert.equal(ok(fettle(repo, ['read', 'a.txt', '--limit', '2'])).stdout, numbered(1, 2));
});

test('read --json: the lines as they are, their numbers, and the next offset', () => {
  const repo = makeRepo({ 'a.txt': 'one\ntwo\r\nthree\n' });
  const page = JSON.parse(ok(fettle(repo, ['read', 'a.txt', '--limit', '2', '--json'])).stdout);
  assert.deepEqual(page, { file: repo.path('a.txt'), total: 3, first: 1, last: 2, next: 3, lines: ['one', 'two\r'] });
  const rest = JSON.parse(ok(fettle(repo, ['read', 'a.txt', '--offset', '3', '--json'])).stdout);
  assert.deepEqual(rest, { file: repo.path('a.txt'), total: 3, first: 3, last: 3, next: null, lines: ['three'] });
  const past = JSON.parse(ok(fettle(repo, ['read', 'a.txt', '--offset', '9', '--json'])).stdout);
  assert.deepEqual(past, { file: repo.path('a.txt'), total: 3, first: 9, last: 8, next: null, lines: [] });
});

test("read's next-page command runs as printed and prints the next page", () => {
  const repo = makeRepo({ 'a b.txt': lines(5) });
  const r = ok(fettle(repo, ['read', 'a b.txt', '--limit', '2']));
  const next = /next: (.+)\)$/m.exec(r.stderr)?.[1] ?? assert.fail(r.stderr);
  const page = execFileSync('sh', ['-c', next], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  assert.equal(page, numbered(3, 4));
});
