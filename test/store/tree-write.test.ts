// writeEditedTree against git's own answer: the same edits made in a temporary index (`update-index`), then
// `write-tree`. The user's index is never used: GIT_INDEX_FILE points at a scratch file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStoreAt } from '../../src/store/locate';
import { writeEditedTree, type Leaf } from '../../src/store/tree-write';
import { writeBlob } from '../helpers/objects';
import { makeRepo, type Repo } from '../helpers/repo';

const gitTree = (repo: Repo, base: string | null, edits: [string, Leaf][]): string => {
  const env = { ...repo.env, GIT_INDEX_FILE: join(repo.home, 'scratch-index') };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, env }).toString().trim();
  git('read-tree', ...(base ? [base] : ['--empty']));
  for (const [path, leaf] of edits)
    if (leaf) git('update-index', '--add', '--cacheinfo', `${leaf.mode},${leaf.oid},${path}`);
    else git('update-index', '--force-remove', path);
  return git('write-tree');
};

// [label, edits as path -> content (null: removed; a leading 'x:' makes it executable, 'l:' a symlink)]
const cases: [string, [string, string | null][]][] = [
  ['nothing', []],
  ['one file replaced', [['a.txt', 'A\n']]],
  [
    'new files in new nested directories',
    [
      ['x/y/z.txt', 'z\n'],
      ['x/w.txt', 'w\n'],
      ['top.txt', 't\n'],
    ],
  ],
  ['a file removed, its directory left empty and dropped', [['lib/only.txt', null]]],
  [
    'a file replaced by a directory',
    [
      ['a.txt', null],
      ['a.txt/inner', 'i\n'],
    ],
  ],
  [
    'modes: executable and symlink',
    [
      ['run.sh', 'x:#!/bin/sh\n'],
      ['link', 'l:a.txt'],
    ],
  ],
  [
    'names that sort around a directory (a.b, a/, a0)',
    [
      ['dir.b', '1\n'],
      ['dir0', '2\n'],
      ['dir/c', '3\n'],
    ],
  ],
  [
    'the same directory edited many times',
    Array.from({ length: 40 }, (_, n): [string, string] => [`many/f${n}`, `${n}\n`]),
  ],
  [
    'everything removed',
    [
      ['a.txt', null],
      ['lib/only.txt', null],
      ['dir/x', null],
    ],
  ],
];

for (const [label, edits] of cases) {
  test(`writeEditedTree equals git's write-tree: ${label}`, async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'lib/only.txt': 'o\n', 'dir/x': 'x\n' });
    const store = await openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
    const leaves: [string, Leaf][] = [];
    for (const [path, content] of edits) {
      if (content === null) leaves.push([path, null]);
      else {
        const mode = content.startsWith('x:') ? '100755' : content.startsWith('l:') ? '120000' : '100644';
        const bytes = Buffer.from(mode === '100644' ? content : content.slice(2));
        leaves.push([path, { mode, oid: await writeBlob(store, bytes) }]);
      }
    }
    const head = repo.git('rev-parse', 'HEAD');
    const ours = await writeEditedTree(store, head, new Map(leaves));
    assert.equal(ours, gitTree(repo, head, leaves));
    assert.equal(repo.git('cat-file', '-t', ours), 'tree', 'written');
    repo.git('ls-tree', '-r', ours); // every tree it names is there
  });
}

test('writeEditedTree on no base (an unborn HEAD) builds from the empty tree', async () => {
  const repo = makeRepo();
  const store = await openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
  const leaf = { mode: '100644', oid: await writeBlob(store, Buffer.from('n\n')) };
  const edits: [string, Leaf][] = [['new/n.txt', leaf]];
  assert.equal(await writeEditedTree(store, null, new Map(edits)), gitTree(repo, null, edits));
  assert.equal(await writeEditedTree(store, null, new Map()), '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
});
