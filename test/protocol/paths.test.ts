// Where a recorded file lives: derived from the store and the tree path, never from the record's path alone.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RecordFields } from '../../src/core/record-message';
import { FettleError } from '../../src/errors';
import { diskPathOf, fileLockPath } from '../../src/protocol/paths';
import { openStoreAt } from '../../src/store/locate';
import type { Store } from '../../src/store/store';
import { makeRepo } from '../helpers/repo';

const fields = (path: string, file: string): RecordFields => ({
  id: 'abcd1234',
  kind: 'after',
  tier: 'direct',
  path,
  file,
});
const untrusted = (e: unknown) =>
  e instanceof FettleError && e.code === 'E_UNTRUSTED' && /does not act on it/.test(e.message);

const repoStore = async () => {
  const repo = makeRepo({ 'a.txt': 'a' });
  const store = await openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
  return { repo, store, root: realpathSync(repo.dir) };
};

test('a record naming its tree path inside the work tree is where the file lives', async () => {
  const { store, root } = await repoStore();
  assert.equal(await diskPathOf(store, fields('src/a.ts', join(root, 'src', 'a.ts'))), join(root, 'src', 'a.ts'));
});

test('a record naming a linked worktree of the same repository is trusted too', async () => {
  const { repo, store } = await repoStore();
  const linked = join(repo.home, 'linked');
  repo.git('worktree', 'add', '-q', '--detach', linked);
  const file = join(realpathSync(linked), 'a.txt');
  assert.equal(await diskPathOf(store, fields('a.txt', file)), file);
});

// [label, tree path, recorded file relative to the work tree (absolute when it starts with '/')]
const refused: [string, string, string][] = [
  ['a file outside every work tree', 'a.txt', '/etc/passwd'],
  ['a file that disagrees with the tree path', 'a.txt', 'b.txt'],
  ['a tree path with ..', '../a.txt', '../a.txt'],
  ['a tree path into .git', '.git/config', '.git/config'],
  ['an absolute tree path', '/a.txt', 'a.txt'],
  ['an empty tree path', '', 'a.txt'],
];
for (const [label, path, file] of refused) {
  test(`refused: ${label}`, async () => {
    const { store, root } = await repoStore();
    await assert.rejects(diskPathOf(store, fields(path, file.startsWith('/') ? file : join(root, file))), untrusted);
  });
}

test('in the private store the tree path is the absolute path, and nothing else is trusted', async () => {
  const store = { kind: 'private', workTree: '/' } as Store;
  assert.equal(await diskPathOf(store, fields('home/u/a.txt', '/home/u/a.txt')), '/home/u/a.txt');
  await assert.rejects(diskPathOf(store, fields('home/u/a.txt', '/home/u/b.txt')), untrusted);
});

test('one lock file per tree path, inside fettle directory of the store', async () => {
  const { store } = await repoStore();
  const a = fileLockPath(store, 'a.txt');
  assert.equal(a, fileLockPath(store, 'a.txt'));
  assert.notEqual(a, fileLockPath(store, 'b.txt'));
  assert.ok(a.startsWith(join(store.commonDir, 'fettle', 'locks')), a);
});
