// `fettle write <file>` end to end: content on stdin as bytes; direct writes land (exit 0), large ones are
// staged (exit 3) and the file is left alone.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, statSync, symlinkSync } from 'node:fs';
import { test } from 'node:test';
import { CLI } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fails, fettle, T0, keepsUserState, kinds, ok, refOid, stageWrite } from '../helpers/stage';

const fettleRefs = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle', 'refs/fettle-discarded')
    .split('\n')
    .filter((r) => r && !r.startsWith('refs/fettle/sessions/'));
const blob = (repo: Repo, spec: string): Buffer => repo.gitBytes('cat-file', 'blob', spec);
const ALL_BYTES = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

test('a new file is created with its parent directories and recorded', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = keepsUserState(repo, () => ok(fettle(repo, ['write', 'sub/deep/new.txt'], { input: 'hello\n' })));
  const id = /as ([0-9a-z]{8});/.exec(r.stdout)?.[1] ?? '';
  assert.match(
    r.stdout,
    new RegExp(
      `^fettle recorded sub/deep/new\\.txt \\(6 B, 1 line, new file\\) as ${id}; undo with: .+ rollback ${id}\\n$`,
    ),
  );
  assert.ok(repo.read('sub/deep/new.txt').equals(Buffer.from('hello\n')));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['after', 'before']);
  assert.ok(blob(repo, `refs/fettle/${id}:sub/deep/new.txt`).equals(Buffer.from('hello\n')));
  assert.deepEqual(
    repo.git('ls-tree', '-r', '--name-only', `refs/fettle/${id}^`).split('\n'),
    ['a.txt'],
    'the before commit has no such file',
  );
});

test('a small change is written and its previous bytes recorded first', () => {
  const old = lines(30);
  const next = old.replace('line 9\n', 'edited 9\n');
  const repo = makeRepo({ 'a.txt': old });
  const head = repo.git('rev-parse', 'HEAD');
  const r = keepsUserState(repo, () => ok(fettle(repo, ['write', 'a.txt'], { input: next })));
  const id = /as ([0-9a-z]{8});/.exec(r.stdout)?.[1] ?? '';
  assert.match(
    r.stdout,
    new RegExp(
      `^fettle recorded a\\.txt \\(${next.length} B, 30 lines, \\+1 -1 ~1\\) as ${id}; undo with: .+ rollback ${id}\\n$`,
    ),
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(next)));
  assert.ok(blob(repo, `refs/fettle/${id}^:a.txt`).equals(Buffer.from(old)));
  assert.ok(blob(repo, `refs/fettle/${id}:a.txt`).equals(Buffer.from(next)));
  assert.equal(repo.git('rev-parse', `refs/fettle/${id}~2`), head, 'the before commit sits on HEAD');
});

test('a large change is staged: exit 3, the file untouched, the proposal on the ref', () => {
  const old = lines(30);
  const next = lines(30, 'rewritten');
  const repo = makeRepo({ 'a.txt': old });
  const mtime = statSync(repo.path('a.txt')).mtimeMs;
  const r = keepsUserState(repo, () => fettle(repo, ['write', 'a.txt'], { input: next }));
  assert.equal(r.code, 3, r.stderr);
  const id = /Staged change ([0-9a-z]{8})/.exec(r.stdout)?.[1] ?? '';
  const out = r.stdout.split('\n');
  assert.equal(out[0], 'fettle held this write for review: nothing was written to a.txt.');
  assert.match(out[1] ?? '', new RegExp(`^Staged change ${id}: \\+30 -30 to a 30-line file; staged because`));
  assert.match(r.stdout, new RegExp(`^To apply it, run: .+ confirm ${id}$`, 'm'));
  assert.match(r.stdout, new RegExp(`^To drop it, run: .+ discard ${id}$`, 'm'));
  assert.match(r.stdout, /^--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,30 \+1,30 @@\n-line 1\n/m);
  assert.ok(repo.read('a.txt').equals(Buffer.from(old)));
  assert.equal(statSync(repo.path('a.txt')).mtimeMs, mtime);
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
  assert.ok(blob(repo, `refs/fettle/${id}:a.txt`).equals(Buffer.from(next)));
  assert.equal(
    repo.git('diff', '--numstat', 'HEAD', `refs/fettle/${id}`),
    '30\t30\ta.txt',
    'git diff HEAD fettle/<id> is the change',
  );
  assert.equal(
    existsSync(repo.path('.git/fettle/worktrees')),
    false,
    'a test tree is made on first use, not when staging',
  );
});

test('identical content is a no-op: one line, nothing recorded', () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  const r = keepsUserState(repo, () => ok(fettle(repo, ['write', 'a.txt'], { input: lines(5) })));
  assert.equal(r.stdout, 'fettle: a.txt already has this exact content; nothing to record.\n');
  assert.deepEqual(fettleRefs(repo), []);
});

// [name, bytes on disk before (null: no file), bytes written]
const binaries: [string, Buffer | null, Buffer][] = [
  ['every byte value, new file', null, ALL_BYTES],
  ['binary over text', Buffer.from(lines(30)), ALL_BYTES],
  ['binary over binary', Buffer.from([0, 1, 2, 0xff]), Buffer.from([0, 0xfe, 0x0d, 0x0a, 0x0d])],
  ['invalid UTF-8 without NUL', Buffer.from(lines(3)), Buffer.from([0xc3, 0x28, 0x0a, 0xff])],
];
for (const [name, before, next] of binaries) {
  test(`binary stdin is stored and written byte-exact: ${name}`, () => {
    const repo = makeRepo(before ? { 'f.bin': before } : { 'other.txt': 'x\n' });
    const id = keepsUserState(repo, () => directWrite(repo, 'f.bin', next));
    assert.ok(repo.read('f.bin').equals(next));
    assert.ok(blob(repo, `refs/fettle/${id}:f.bin`).equals(next));
    if (before) assert.ok(blob(repo, `refs/fettle/${id}^:f.bin`).equals(before));
  });
}

test('stored bytes bypass git filters and eol attributes', () => {
  const repo = makeRepo({ '.gitattributes': '*.txt text eol=crlf filter=upper\n', 'a.txt': 'a\n' });
  repo.git('config', 'filter.upper.clean', 'tr a-z A-Z');
  repo.git('config', 'filter.upper.smudge', 'tr A-Z a-z');
  const next = Buffer.from('mixed\r\nlower\ncase\n');
  const id = keepsUserState(repo, () => directWrite(repo, 'a.txt', next));
  assert.ok(repo.read('a.txt').equals(next));
  assert.ok(blob(repo, `refs/fettle/${id}:a.txt`).equals(next));
  assert.ok(blob(repo, `refs/fettle/${id}^:a.txt`).equals(Buffer.from('a\n')));
});

test('a direct write keeps the file mode (0755)', () => {
  const repo = makeRepo();
  repo.write('run.sh', lines(30), 0o755);
  repo.commit();
  const id = keepsUserState(repo, () => directWrite(repo, 'run.sh', lines(30).replace('line 1\n', '#!/bin/sh\n')));
  assert.equal(statSync(repo.path('run.sh')).mode & 0o777, 0o755);
  assert.match(repo.git('ls-tree', `refs/fettle/${id}`, 'run.sh'), /^100755 /);
});

test('a write through a symlink changes the target; the link stays a link', () => {
  const repo = makeRepo({ 'target.txt': lines(30) });
  symlinkSync('target.txt', repo.path('link.txt'));
  const next = lines(30).replace('line 2\n', 'via link\n');
  const id = keepsUserState(repo, () => directWrite(repo, 'link.txt', next));
  assert.ok(lstatSync(repo.path('link.txt')).isSymbolicLink());
  assert.ok(repo.read('target.txt').equals(Buffer.from(next)));
  assert.ok(blob(repo, `refs/fettle/${id}^:target.txt`).equals(Buffer.from(lines(30))));
});

// [path given, cwd relative to the repo]: paths inside a .git directory are never written.
const forbidden: [string, string][] = [
  ['.git/config', '.'],
  ['.git/new-file', '.'],
  ['.git/fettle/worktrees/x/a.txt', '.'],
  ['sub/.git/x', '.'],
  ['config', '.git'],
  ['HEAD', '.git'],
];
for (const [path, cwd] of forbidden) {
  test(`write ${path} (from ${cwd}) is refused: inside .git`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    repo.write('sub/.git/keep', 'k');
    const target = repo.path(`${cwd}/${path}`);
    const existed = existsSync(target) ? repo.read(`${cwd}/${path}`) : null;
    const r = keepsUserState(repo, () => fettle(repo, ['write', path], { input: 'evil\n', cwd: repo.path(cwd) }));
    fails(r, /inside (a|the) \.git directory|inside a git directory/);
    if (existed) assert.ok(repo.read(`${cwd}/${path}`).equals(existed));
    else assert.equal(existsSync(target), false);
    assert.deepEqual(fettleRefs(repo), []);
  });
}

test('writing to a path that is a directory fails without recording anything', () => {
  const repo = makeRepo({ 'dir/f.txt': 'x\n' });
  const r = keepsUserState(repo, () => fettle(repo, ['write', 'dir'], { input: 'x\n' }));
  fails(r, /dir is not a regular file/);
  assert.deepEqual(fettleRefs(repo), []);
});

// [lines modified of 30 (2 changed lines each), env, expected exit]
const thresholds: [number, Record<string, string>, number][] = [
  [6, {}, 0], // 12/30 = 0.40, not above the ratio
  [7, {}, 3], // 14/30 > 0.40
  [7, { FETTLE_WRITE_RATIO: '0.5' }, 0],
  [7, { FETTLE_WRITE_FLOOR: '14' }, 0],
  [6, { FETTLE_WRITE_CEIL: '12' }, 3],
  [5, { FETTLE_WRITE_FLOOR: '0', FETTLE_WRITE_RATIO: '0.3' }, 3],
];
for (const [modified, env, code] of thresholds) {
  test(`${modified} of 30 lines modified with ${JSON.stringify(env)}: exit ${code}`, () => {
    const repo = makeRepo({ 'a.txt': lines(30) });
    const next = lines(modified, 'changed') + lines(30 - modified, 'line', modified + 1);
    const r = fettle(repo, ['write', 'a.txt'], { input: next, env });
    assert.equal(r.code, code, r.stdout + r.stderr);
    assert.ok(repo.read('a.txt').equals(Buffer.from(code === 0 ? next : lines(30))));
  });
}

test('an invalid threshold variable stops the write: exit 2, nothing written', () => {
  const repo = makeRepo({ 'a.txt': lines(3) });
  fails(
    fettle(repo, ['write', 'a.txt'], { input: 'x\n', env: { FETTLE_WRITE_CEIL: 'lots' } }),
    /^fettle: FETTLE_WRITE_CEIL must be/,
    2,
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(lines(3))));
  assert.deepEqual(fettleRefs(repo), []);
});

test('-C <dir> writes into that repository from another working directory', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const next = lines(30).replace('line 2\n', 'y\n');
  const id = directWrite(repo, 'a.txt', next, { cwd: repo.home });
  assert.equal(
    refOid(repo, `refs/fettle/${id}`),
    null,
    'without -C the path resolves against the cwd, outside the repository',
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(lines(30))));
  const id2 =
    /as ([0-9a-z]{8});/.exec(
      ok(fettle(repo, ['-C', 'repo', 'write', 'a.txt'], { input: next, cwd: repo.home })).stdout,
    )?.[1] ?? '';
  assert.ok(refOid(repo, `refs/fettle/${id2}`));
  assert.ok(repo.read('a.txt').equals(Buffer.from(next)));
});

test("the confirm command printed by `fettle -C <repo> write` runs as printed from the caller's directory", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const r = fettle(repo, ['-C', repo.dir, 'write', 'a.txt'], { input: lines(30, 'new'), cwd: repo.home });
  assert.equal(r.code, 3, r.stderr);
  const command = /^To apply it, run: (.+)$/m.exec(r.stdout)?.[1] ?? '';
  const run = spawnSync('sh', ['-c', command], {
    cwd: repo.home,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `${command}\n${run.stdout}${run.stderr}`);
  assert.ok(repo.read('a.txt').equals(Buffer.from(lines(30, 'new'))));
});

test('a staged write to an empty file shows a valid hunk header (@@ -0,0 +1,N @@)', () => {
  const repo = makeRepo({ 'empty.txt': '' });
  const id = stageWrite(repo, 'empty.txt', lines(20));
  const r = fettle(repo, ['write', 'empty.txt'], { input: lines(20, 'other') });
  assert.match(r.stdout, /^@@ -0,0 \+1,20 @@$/m);
  assert.match(repo.git('show', '--format=', `refs/fettle/${id}`), /^@@ -0,0 \+1,20 @@$/m);
});

test('GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE inherited for another repository are ignored', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const other = makeRepo({ 'a.txt': lines(30) });
  other.write('staged.txt', 'in the index\n');
  other.git('add', 'staged.txt');
  const env = { GIT_DIR: `${other.dir}/.git`, GIT_WORK_TREE: other.dir, GIT_INDEX_FILE: `${other.dir}/.git/index` };
  keepsUserState(other, () =>
    keepsUserState(repo, () => {
      directWrite(repo, 'a.txt', lines(30).replace('line 1\n', 'x\n'), { env });
      ok(fettle(repo, ['confirm', stageWrite(repo, 'a.txt', lines(30, 'new'), { env })], { env }));
    }),
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(lines(30, 'new'))));
  assert.equal(fettleRefs(repo).length, 2);
  assert.deepEqual(fettleRefs(other), []);
  assert.ok(other.read('a.txt').equals(Buffer.from(lines(30))));
});

// Regression: content that arrived in two parts, a pause between them, was written as its second part alone: the
// first was read, then dropped when the pipe had nothing more yet (io/stdin.ts).
test('content piped in parts with pauses between them is written whole', async () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const parts = [lines(20), '\nand the rest\n', lines(19)];
  const child = spawn(process.execPath, [CLI, 'write', 'a.txt'], { cwd: repo.dir, env: repo.env });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  for (const part of parts) {
    child.stdin.write(part);
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  child.stdin.end();
  assert.ok([0, 3].includes((await exited) ?? -1));
  const staged = repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle')
    .split('\n')
    .filter((r) => !r.includes('/sessions/'));
  const written = existsSync(repo.path('a.txt')) && repo.read('a.txt').toString() === parts.join('');
  assert.ok(
    written || staged.some((ref) => blob(repo, `${ref}:a.txt`).toString() === parts.join('')),
    'the whole content',
  );
});
