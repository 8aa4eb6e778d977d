// parseWorkStatus: what `git status --porcelain=v2 -z` lines mean for a copy of the work tree. Table cases are
// git's documented formats; the last test reads a real repository's status with every kind of entry.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, symlinkSync } from 'node:fs';
import { test } from 'node:test';
import { oldEntries, parseWorkStatus, statusPaths, type WorkEntry } from '../../src/core/porcelain';
import { makeRepo } from '../helpers/repo';

const H = 'a'.repeat(40);
const I = 'b'.repeat(40);
const Z = '0'.repeat(40);
const z = (...entries: string[]): Buffer => Buffer.from(entries.map((e) => `${e}\0`).join(''));

// [label, output, entries, kept]
const cases: [string, Buffer, WorkEntry[], string[]][] = [
  [
    'modified in the work tree',
    z(`1 .M N... 100644 100644 100644 ${H} ${H} a b.txt`),
    [{ path: 'a b.txt', from: 'disk', mode: '100644' }],
    [],
  ],
  [
    'staged and unchanged since: the index blob',
    z(`1 M. N... 100644 100755 100755 ${H} ${I} s.sh`),
    [{ path: 's.sh', from: 'index', mode: '100755', oid: I }],
    [],
  ],
  [
    'deleted in the work tree',
    z(`1 .D N... 100644 100644 000000 ${H} ${H} gone`),
    [{ path: 'gone', from: 'gone' }],
    [],
  ],
  [
    'git rm --cached, still on disk',
    z(`1 D. N... 100644 000000 000000 ${H} ${Z} kept`, '? kept'),
    [{ path: 'kept', from: 'disk' }],
    [],
  ],
  [
    'added, then deleted from disk',
    z(`1 AD N... 000000 100644 000000 ${Z} ${I} tmp`),
    [{ path: 'tmp', from: 'gone' }],
    [],
  ],
  [
    'renamed in the index: the old path is gone',
    z(`2 R. N... 100644 100644 100644 ${H} ${H} R100 new`, 'old'),
    [
      { path: 'old', from: 'gone' },
      { path: 'new', from: 'index', mode: '100644', oid: H },
    ],
    [],
  ],
  [
    'unmerged: what is on disk',
    z(`u UU N... 100644 100644 100644 100644 ${H} ${I} ${Z} c.txt`),
    [{ path: 'c.txt', from: 'disk', mode: '100644' }],
    [],
  ],
  ['untracked', z('? dir/new.js'), [{ path: 'dir/new.js', from: 'disk' }], []],
  ['ignored lines are skipped', z('! build/out'), [], []],
  ['a nested repository is kept', z('? vendor/lib/'), [], ['vendor/lib']],
  ['a submodule is kept', z(`1 .M S.M. 160000 160000 160000 ${H} ${H} sub`), [], ['sub']],
  ['headers: HEAD', z(`# branch.oid ${H}`, '# branch.head main', '? x'), [{ path: 'x', from: 'disk' }], []],
];

for (const [label, output, entries, kept] of cases) {
  test(`parseWorkStatus: ${label}`, () => {
    const status = parseWorkStatus(output);
    assert.deepEqual(status.entries, entries);
    assert.deepEqual(
      status.kept.map((k) => k.path),
      kept,
    );
  });
}

test('parseWorkStatus: HEAD from --branch, null when unborn; a name that is not UTF-8 is kept', () => {
  assert.equal(parseWorkStatus(z(`# branch.oid ${H}`)).head, H);
  assert.equal(parseWorkStatus(z('# branch.oid (initial)')).head, null);
  const raw = Buffer.concat([Buffer.from('? bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('\0')]);
  assert.deepEqual(
    parseWorkStatus(raw).kept.map((k) => k.why),
    ['name not UTF-8'],
  );
  assert.throws(() => parseWorkStatus(z('X nonsense')), /unexpected git status line/);
});

test('parseWorkStatus reads a real status: every kind of change, from the one git command fettle runs', () => {
  const repo = makeRepo({
    'mod.txt': 'm\n',
    'del.txt': 'd\n',
    'staged.txt': 's\n',
    'old.txt': 'o\n',
    'link-me': 'l\n',
  });
  repo.write('mod.txt', 'changed\n');
  rmSync(repo.path('del.txt'));
  repo.write('staged.txt', 'staged\n');
  repo.git('add', 'staged.txt');
  renameSync(repo.path('old.txt'), repo.path('renamed.txt'));
  repo.write('new dir/untracked file.txt', 'u\n');
  repo.write('.gitignore', '*.log\n');
  repo.write('debug.log', 'ignored\n');
  symlinkSync('mod.txt', repo.path('a-link'));
  execFileSync('git', ['init', '-q', repo.path('nested')], { env: repo.env });
  const out = execFileSync(
    'git',
    ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=all', '--no-renames'],
    { cwd: repo.dir, env: repo.env },
  );
  const status = parseWorkStatus(out);
  assert.equal(status.head, repo.git('rev-parse', 'HEAD'));
  const byPath = Object.fromEntries(status.entries.map((e) => [e.path, e.from]));
  assert.deepEqual(byPath, {
    'mod.txt': 'disk',
    'del.txt': 'gone',
    'staged.txt': 'index',
    'old.txt': 'gone',
    'renamed.txt': 'disk',
    'new dir/untracked file.txt': 'disk',
    '.gitignore': 'disk',
    'a-link': 'disk',
  });
  assert.deepEqual(status.kept, [{ path: 'nested', why: 'nested repository' }]);
});

test('statusPaths: HEAD and index entries per path, one record for `git rm --cached` (listed twice)', () => {
  const out = z(
    `# branch.oid ${H}`,
    `1 .M N... 100644 100644 100644 ${H} ${H} mod.txt`,
    `1 M. N... 100644 100755 100755 ${H} ${I} staged.sh`,
    `1 D. N... 100644 000000 000000 ${H} ${Z} kept`,
    '? kept',
    '? new.txt',
    '! ignored.log',
    `1 .M S.M. 160000 160000 160000 ${H} ${H} sub`,
    `u UU N... 100644 100644 100644 100644 ${H} ${I} ${H} both.txt`,
  );
  const { head, paths, kept } = statusPaths(out);
  assert.equal(head, H);
  assert.deepEqual(paths.get('mod.txt'), {
    path: 'mod.txt',
    head: { mode: '100644', oid: H },
    index: { mode: '100644', oid: H },
    matchesIndex: false,
    untracked: false,
  });
  assert.equal(paths.get('staged.sh')?.matchesIndex, true);
  assert.deepEqual(paths.get('staged.sh')?.index, { mode: '100755', oid: I });
  assert.deepEqual(
    [paths.get('kept')?.untracked, paths.get('kept')?.index, paths.get('kept')?.head],
    [true, undefined, { mode: '100644', oid: H }],
  );
  assert.equal(paths.get('new.txt')?.untracked, true);
  assert.equal(paths.has('ignored.log'), false);
  assert.deepEqual(paths.get('both.txt'), { path: 'both.txt', matchesIndex: false, untracked: false });
  assert.deepEqual(
    kept.map((k) => k.path),
    ['sub'],
  );
});

test('oldEntries: each path of a raw diff-tree with its entry on the old side (null: added)', () => {
  const out = Buffer.from(
    [
      `:100644 100755 ${H} ${I} M`,
      'a b.txt',
      `:000000 100644 ${Z} ${I} A`,
      'new.txt',
      `:100644 000000 ${H} ${Z} D`,
      'gone',
      '',
    ].join('\0'),
  );
  assert.deepEqual(
    [...oldEntries(out)],
    [
      ['a b.txt', { mode: '100644', oid: H }],
      ['new.txt', null],
      ['gone', { mode: '100644', oid: H }],
    ],
  );
});
