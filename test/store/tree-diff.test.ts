// changedPaths reads what a commit changed from its trees, and must list exactly what `git diff-tree -r --root
// --no-renames --name-only` lists (the git hooks' attribution once asked git for it), for every kind of change.
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStoreAt } from '../../src/store/locate';
import type { Store } from '../../src/store/store';
import { changedPaths } from '../../src/store/tree-diff';
import { makeRepo, type Repo } from '../helpers/repo';

const gitSays = (repo: Repo, commit: string): string[] =>
  repo
    .git('diff-tree', '-r', '-z', '--root', '--no-commit-id', '--no-renames', '--name-only', commit)
    .split('\0')
    .filter(Boolean)
    .sort();

const agree = async (repo: Repo, what: string, store?: Store): Promise<void> => {
  store ??= await openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
  const head = repo.git('rev-parse', 'HEAD');
  assert.deepEqual(await changedPaths(store, head), gitSays(repo, head), what);
};

const steps: [string, (r: Repo) => void][] = [
  ['a root commit: every path', () => undefined],
  ['a file changed deep down', (r) => r.write('src/deep/a.ts', 'changed\n')],
  ['a file added and one removed', (r) => (r.write('src/new.ts', 'n\n'), rmSync(r.path('top.txt')))],
  ['a mode changed, bytes the same', (r) => r.write('run.sh', 'echo\n', 0o755)],
  ['a file became a directory', (r) => (rmSync(r.path('f')), r.write('f/inside.txt', 'x\n'))],
  ['a directory became a file', (r) => (rmSync(r.path('f'), { recursive: true }), r.write('f', 'y\n'))],
  ['a symlink added', (r) => symlinkSync('top.txt', r.path('link'))],
  ['a name that is not ASCII', (r) => r.write('src/ünï cödé.txt', 'u\n')],
  ['a whole directory removed', (r) => rmSync(r.path('src'), { recursive: true })],
];

test('changedPaths lists what git diff-tree lists, commit after commit', async () => {
  const repo = makeRepo({ 'top.txt': 't\n', 'src/deep/a.ts': 'a\n', 'src/b.ts': 'b\n', 'run.sh': 'echo\n', f: 'f\n' });
  const store = await openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
  for (const [what, step] of steps) {
    step(repo);
    if (what !== 'a root commit: every path') repo.commit(what);
    await agree(repo, what, store);
  }
});

test('changedPaths lists nothing for a merge commit, as diff-tree does without -m', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  repo.git('checkout', '-q', '-b', 'side');
  repo.write('b.txt', 'side\n');
  repo.commit('side');
  repo.git('checkout', '-q', 'main');
  repo.write('a.txt', 'main\n');
  repo.commit('main');
  repo.git('merge', '-q', '--no-edit', 'side');
  await agree(repo, 'a merge');
  assert.deepEqual(gitSays(repo, 'HEAD'), []);
});
