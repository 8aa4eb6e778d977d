// `fettle test <id> -- <cmd>`: the command runs in the change's hidden worktree holding the whole staged tree,
// its output streams through, its exit code is fettle's, and the user's working tree is left alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { T0, fettle, keepsUserState, ok, openWorktree, stageWrite, worktreeDir } from '../helpers/stage';

const BASE = lines(30);
const PROPOSED = lines(30, 'new');
/** Prints what the staged tree holds and exits with the code given. */
const probe = (code: number) => [
  '--',
  'sh',
  '-c',
  `cat a.txt | head -1; cat lib/util.txt; echo "in $(basename "$PWD")"; git status --porcelain; exit ${code}`,
];

const scene = (): { repo: Repo; id: string; status: string } => {
  const repo = makeRepo({ 'a.txt': BASE, 'lib/util.txt': 'util\n' });
  repo.write('untracked.txt', 'mine\n');
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  return { repo, id, status: repo.git('status', '--porcelain') };
};

test('a passing command: output streamed from the full staged tree, exit 0, PASS, working tree untouched', () => {
  const { repo, id, status } = scene();
  const r = keepsUserState(repo, () => fettle(repo, ['test', id, ...probe(0)]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `new 1\nutil\nin ${id}\n`,
    'the staged file and the rest of the tree, nothing reported modified',
  );
  const [start, verdict] = r.stderr.trimEnd().split('\n');
  assert.equal(
    start,
    `fettle: running \`sh -c 'cat a.txt | head -1; cat lib/util.txt; echo "in $(basename "$PWD")"; git status --porcelain; exit 0'\` in the staged tree of ${id} (checked out now, first use): ${worktreeDir(repo, id)}`,
  );
  assert.match(
    verdict ?? '',
    new RegExp(
      `^fettle: PASS: \`.*\` exited with code 0 in the staged tree of ${id}; your working tree was not touched\\.$`,
    ),
  );
  assert.equal(repo.git('status', '--porcelain'), status);
  assert.equal(repo.read('a.txt').toString(), BASE);
});

test('a failing command: its exit code is returned and FAIL reported; the tree is filled only once', () => {
  const { repo, id, status } = scene();
  ok(fettle(repo, ['test', id, '--', 'true']));
  const r = keepsUserState(repo, () => fettle(repo, ['test', id, ...probe(3)]));
  assert.equal(r.code, 3);
  assert.ok(!r.stderr.includes('first use'), 'already filled');
  assert.match(
    r.stderr,
    new RegExp(
      `\nfettle: FAIL: \`.*\` exited with code 3 in the staged tree of ${id}; your working tree was not touched\\.\n$`,
    ),
  );
  assert.equal(repo.git('status', '--porcelain'), status);
});

test('a command that does not exist fails with 127; a change that is not staged is refused', () => {
  const { repo, id } = scene();
  const r = fettle(repo, ['test', id, '--', 'no-such-command-xyz']);
  assert.equal(r.code, 127);
  assert.match(r.stderr, /FAIL: `no-such-command-xyz` exited with code 127 \(command not found\)/);
  ok(fettle(repo, ['confirm', id], { now: T0 + 1 }));
  const applied = fettle(repo, ['test', id, '--', 'true'], { now: T0 + 1 });
  assert.equal(applied.code, 2);
  assert.match(
    applied.stderr,
    /is applied; only a staged change not yet confirmed or discarded has a staged tree to test/,
  );
});

test('an expired change can still be tested; its hidden worktree is recreated if it went missing', () => {
  const { repo, id } = scene();
  openWorktree(repo, id);
  repo.git('worktree', 'remove', '--force', '--force', worktreeDir(repo, id));
  const r = fettle(repo, ['test', id, '--', 'sh', '-c', 'head -1 a.txt'], { now: T0 + 3600 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'new 1\n');
});
