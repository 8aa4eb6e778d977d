// The session ladder (core/session-ladder.ts): the first rung whose signal is certain, each id saying its rung.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { branchOfHead, gitdirOfFile, ladderSession, type LadderSignals } from '../../src/core/session-ladder';

const NONE: LadderSignals = { session: undefined, checkout: null, parent: null, cwd: '/projects/app' };
const MAIN = { branch: 'main', workTree: '/projects/app' };
const PARENT = { pid: 4242, start: '123456' };

const RUNGS: [string, Partial<LadderSignals>, RegExp, string][] = [
  ['FETTLE_SESSION first', { session: 's-1', checkout: MAIN, parent: PARENT }, /^s-1$/, 'env'],
  ['then the branch and work tree', { checkout: MAIN, parent: PARENT }, /^branch-main-[0-9a-f]{8}$/, 'branch'],
  [
    'a branch with slashes, readable',
    { checkout: { branch: 'feat/x y', workTree: '/w' } },
    /^branch-feat-x-y-[0-9a-f]{8}$/,
    'branch',
  ],
  ['then the parent process', { parent: PARENT }, /^process-4242-[0-9a-f]{8}$/, 'process'],
  ['then the directory', {}, /^dir-[0-9a-f]{8}$/, 'directory'],
  ['an empty FETTLE_SESSION is not set', { session: '' }, /^dir-/, 'directory'],
];
for (const [name, signals, id, source] of RUNGS)
  test(`ladder: ${name}`, () => {
    const got = ladderSession({ ...NONE, ...signals });
    assert.match(got.id, id);
    assert.equal(got.source, source);
  });

test('ladder: the same signals give the same id (stable across a crash); any difference gives another', () => {
  const id = (s: Partial<LadderSignals>) => ladderSession({ ...NONE, ...s }).id;
  assert.equal(id({ checkout: MAIN }), id({ checkout: { ...MAIN } }));
  assert.notEqual(id({ checkout: MAIN }), id({ checkout: { ...MAIN, workTree: '/projects/app-2' } }));
  assert.notEqual(
    id({ checkout: { branch: 'a/b', workTree: '/w' } }),
    id({ checkout: { branch: 'a-b', workTree: '/w' } }),
  );
  assert.notEqual(
    id({ parent: PARENT }),
    id({ parent: { ...PARENT, start: '999' } }),
    'a reused pid is another process',
  );
  assert.notEqual(id({ cwd: '/a' }), id({ cwd: '/b' }));
});

const HEADS: [string, string | null][] = [
  ['ref: refs/heads/main\n', 'main'],
  ['ref: refs/heads/feature/x\n', 'feature/x'],
  ['0123456789abcdef0123456789abcdef01234567\n', null],
  ['ref: refs/heads/.invalid\n', null],
  ['ref: refs/remotes/origin/main\n', null],
  ['', null],
];
for (const [head, branch] of HEADS)
  test(`branchOfHead(${JSON.stringify(head)}) is ${branch}`, () => assert.equal(branchOfHead(head), branch));

test('gitdirOfFile reads a linked work tree’s .git file, and nothing else', () => {
  assert.equal(gitdirOfFile('gitdir: /repo/.git/worktrees/x\n'), '/repo/.git/worktrees/x');
  assert.equal(gitdirOfFile('something else\n'), null);
});
