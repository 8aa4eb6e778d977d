// The repository found from its files (store/discover-files.ts) is the one git finds, field for field, in every
// layout it answers; in every other it answers null, and git is asked.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { repoFromFiles, storeFromFiles } from '../../src/store/discover-files';
import { openStoreAt } from '../../src/store/locate';
import { makeRepo, tempDir, type Repo } from '../helpers/repo';

/** What fettle's git says from `dir` (store/locate.ts asks the same). */
const gitSays = (repo: Repo, dir: string) => {
  const run = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: repo.env, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  const [top = '', common = '', format] = run(
    'rev-parse',
    '--show-toplevel',
    '--git-common-dir',
    '--show-object-format',
  ).split('\n');
  let head: string | null;
  try {
    head = run('rev-parse', '--verify', '-q', 'HEAD^{commit}');
  } catch {
    head = null;
  }
  return { workTree: realpathSync(top), commonDir: realpathSync(resolve(dir, common)), objectFormat: format, head };
};

const found = (repo: Repo, dir: string) => repoFromFiles(dir, repo.env);

/** Layouts the files answer: [name, how to make it, the directory to look from]. */
const plain: [string, (r: Repo) => string][] = [
  ['the top of a work tree', (r) => r.dir],
  ['a directory deep in it', (r) => (mkdirSync(r.path('a/b'), { recursive: true }), r.path('a/b'))],
  ['a detached HEAD', (r) => (r.git('checkout', '-q', '--detach'), r.dir)],
  ['a branch only in packed-refs', (r) => (r.git('pack-refs', '--all'), r.dir)],
  [
    'a loose branch beside a packed one of the same name',
    (r) => (r.git('pack-refs', '--all'), r.write('b.txt', 'b'), r.commit('two'), r.dir),
  ],
  ['an unborn branch', (r) => (r.git('checkout', '-q', '--orphan', 'fresh'), r.dir)],
  ['a linked worktree', (r) => (r.git('worktree', 'add', '-q', '-b', 'side', r.path('../wt')), r.path('../wt'))],
  ['a symlinked path to the work tree', (r) => (symlinkSync(r.dir, r.path('../alias')), r.path('../alias/src'))],
];

for (const [name, make] of plain)
  test(`found from the files as git finds it: ${name}`, () => {
    const repo = makeRepo({ 'src/a.txt': 'a\n' });
    const dir = make(repo);
    assert.deepEqual(found(repo, dir), gitSays(repo, dir));
  });

test('found from the files as git finds it: a gitfile to a separate git dir, and a SHA-256 repository', () => {
  const root = tempDir();
  const repo = makeRepo({ 'a.txt': 'a\n' });
  execFileSync('git', ['init', '-q', `--separate-git-dir=${join(root, 'elsewhere.git')}`, join(root, 'wt')], {
    env: repo.env,
  });
  assert.deepEqual(found(repo, join(root, 'wt')), gitSays(repo, join(root, 'wt')));
  assert.equal(found(repo, join(root, 'wt'))?.commonDir, join(root, 'elsewhere.git'));
  const sha256 = makeRepo({ 'a.txt': 'a\n' }, { objectFormat: 'sha256' });
  assert.deepEqual(found(sha256, sha256.dir), gitSays(sha256, sha256.dir));
  assert.equal(found(sha256, sha256.dir)?.head?.length, 64);
});

/** Layouts git must judge: [name, how to make it, the directory to look from]. */
const unusual: [string, (r: Repo) => string][] = [
  ['inside .git', (r) => r.path('.git/refs')],
  ['core.worktree set', (r) => (r.git('config', 'core.worktree', r.dir), r.dir)],
  ['core.bare true', (r) => (r.git('config', 'core.bare', 'true'), r.dir)],
  ['per-worktree config', (r) => (r.git('config', 'extensions.worktreeConfig', 'true'), r.dir)],
  ['an extension that may store refs elsewhere', (r) => (r.git('config', 'extensions.refStorage', 'files'), r.dir)],
  ['a config line it does not read plainly', (r) => (r.write('.git/config', '[core] bare = false\n'), r.dir)],
  ['a bare-looking directory on the way', (r) => (r.write('sub/HEAD', 'x'), r.path('sub'))],
  ['a .git that is a symlink', (r) => (symlinkSync(r.path('.git'), r.path('../link/.git')), r.path('../link'))],
  ['a gitfile it cannot read', (r) => (r.write('sub/.git', 'gitdir:\n'), r.path('sub'))],
  ['HEAD naming a ref outside refs/heads', (r) => (r.write('.git/HEAD', 'ref: refs/tags/x\n'), r.dir)],
  ['a loose branch that is not one id', (r) => (r.write('.git/refs/heads/main', 'nonsense\n'), r.dir)],
  ['no repository at all', () => tempDir()],
];

for (const [name, make] of unusual)
  test(`git is asked: ${name}`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    if (name.includes('symlink')) mkdirSync(repo.path('../link'));
    assert.equal(found(repo, make(repo)), null);
  });

test('a store opened from the files is the store git locates, and reads its refs from their files', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.git('update-ref', 'refs/fettle/aaaa0001', 'HEAD');
  repo.git('worktree', 'add', '-q', '-b', 'side', repo.path('../wt'));
  for (const dir of [repo.dir, repo.path('../wt')]) {
    const { git: _g, refTips, ...byFiles } = storeFromFiles(dir, repo.env) ?? assert.fail(dir);
    const { git: _h, ...byGit } = await openStoreAt(dir, repo.env, join(repo.home, 'data'));
    assert.deepEqual(byFiles, byGit);
    assert.deepEqual(refTips?.(['refs/fettle/']), [
      { ref: 'refs/fettle/aaaa0001', oid: repo.git('rev-parse', 'HEAD') },
    ]);
  }
  repo.git('config', 'extensions.worktreeConfig', 'true');
  assert.equal(storeFromFiles(repo.path('../wt'), repo.env), null, 'git locates it');
});
