// The bounds of what a Bash command's record holds: a file over the size cap is recorded as changed but not
// restorable, a command past FETTLE_BASH_MAX_FILES has the rest listed by name; checkouts and resets that move
// HEAD are seen through the paths the two HEADs differ at.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { agentBash, changesetOf, fettleIn } from '../helpers/bash';
import { makeRepo, type Repo } from '../helpers/repo';

interface Row {
  id: string;
  path: string;
  reason: string | null;
  changeset: string | null;
}
const logOf = (repo: Repo): Row[] => (JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: Row[] }).changes;

test('a file over FETTLE_BASH_MAX_FILE_BYTES is recorded as changed, not kept; the line and rollback say so, and the rest is restored', () => {
  const repo = makeRepo({ 'big.dat': 'b'.repeat(300), 'small.txt': 'small\n' });
  const env = { FETTLE_BASH_MAX_FILE_BYTES: '200' };
  const call = agentBash(repo, `printf 'c%.0s' $(seq 1 400) > big.dat && echo changed > small.txt`, { env });
  assert.match(
    call.line ?? '',
    /2 files changed by this command: 2 modified; big\.dat was not kept \(too large or not a regular file\), so it cannot be restored; undo with: /,
  );
  const rows = logOf(repo);
  assert.deepEqual(rows.map((r) => [r.path, r.reason]).sort(), [
    ['big.dat', 'not-kept'],
    ['small.txt', 'modified'],
  ]);
  const big = rows.find((r) => r.path === 'big.dat') as Row;
  assert.match(
    fettleIn(repo, 'show', big.id).stdout,
    /fettle did not keep this file's bytes \(over the size cap \(FETTLE_BASH_MAX_FILE_BYTES\)\): it cannot be restored\./,
  );
  const alone = fettleIn(repo, 'rollback', big.id);
  assert.equal(alone.code, 1, alone.stderr); // E_NOTHING_TO_ROLL_BACK, not a usage error
  assert.match(alone.stderr, new RegExp(`Change ${big.id} only records that a command changed big\\.dat`));
  const back = fettleIn(repo, 'rollback', changesetOf(call.line));
  assert.equal(back.code, 0, back.stderr);
  assert.equal(readFileSync(repo.path('small.txt'), 'utf8'), 'small\n');
  assert.equal(readFileSync(repo.path('big.dat'), 'utf8'), 'c'.repeat(400), 'left as it is');
  assert.match(back.stdout, new RegExp(`${big.id} {2}big\\.dat: not kept when it was recorded .*; left as it is`));
});

test('a dirty file over the cap before the command: its previous bytes were never kept, and a change to it says so', () => {
  const repo = makeRepo({ 'log.txt': 'x\n' });
  repo.write('log.txt', 'y'.repeat(500));
  const call = agentBash(repo, 'echo short > log.txt', { env: { FETTLE_BASH_MAX_FILE_BYTES: '100' } });
  assert.match(
    call.line ?? '',
    /^fettle recorded 1 file changed by this command: modified log\.txt; log\.txt was not kept/,
  );
  assert.doesNotMatch(call.line ?? '', /undo with/, 'nothing it could restore');
});

test('past FETTLE_BASH_MAX_FILES the first files are recorded, the rest listed by name in the first record, not restorable', () => {
  const repo = makeRepo({ 'keep.txt': 'k\n' });
  const call = agentBash(repo, 'for n in 1 2 3 4 5; do echo $n > f$n.txt; done', {
    env: { FETTLE_BASH_MAX_FILES: '3' },
  });
  assert.match(
    call.line ?? '',
    /^fettle recorded 3 of the 5 files this command changed \(FETTLE_BASH_MAX_FILES=3\): 5 created; the other 2 are only listed by name in the record and cannot be restored; undo with: /,
  );
  const rows = logOf(repo);
  assert.deepEqual(rows.map((r) => r.path).sort(), ['f1.txt', 'f2.txt', 'f3.txt']);
  const first = rows.find((r) => r.path === 'f1.txt') as Row;
  const shown = fettleIn(repo, 'show', first.id).stdout;
  assert.match(
    shown,
    /The command changed 5 files; fettle recorded the first 3 \(FETTLE_BASH_MAX_FILES\)\. These 2 were not recorded/,
  );
  assert.match(shown, /^ {4}created f4\.txt$/m);
  assert.match(shown, /^ {4}created f5\.txt$/m);
  const back = fettleIn(repo, 'rollback', changesetOf(call.line));
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(
    ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt'].map((f) => existsSync(repo.path(f))),
    [false, false, false, true, true],
  );
});

test('a checkout of another branch (HEAD moves, the tree stays clean) is recorded; rollback puts the files back', () => {
  const repo = makeRepo({ 'a.txt': 'main a\n', 'b.txt': 'main b\n' });
  repo.git('checkout', '-q', '-b', 'other');
  repo.write('a.txt', 'other a\n');
  repo.write('c.txt', 'only on other\n');
  repo.git('rm', '-q', 'b.txt');
  repo.commit('other');
  repo.git('checkout', '-q', 'main');
  const call = agentBash(repo, 'git checkout -q other');
  assert.match(call.line ?? '', /3 files changed by this command: 1 modified, 1 created, 1 deleted/);
  const back = fettleIn(repo, 'rollback', changesetOf(call.line));
  assert.equal(back.code, 0, back.stderr);
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'main a\n');
  assert.equal(readFileSync(repo.path('b.txt'), 'utf8'), 'main b\n');
  assert.equal(existsSync(repo.path('c.txt')), false);
  assert.equal(
    repo.git('rev-parse', '--abbrev-ref', 'HEAD'),
    'other',
    'HEAD is the user’s: rollback restores files only',
  );
});

test('git checkout -- file and git stash (a dirty file back to HEAD) are recorded with the bytes only the disk had', () => {
  const repo = makeRepo({ 'a.txt': 'committed\n', 'b.txt': 'committed b\n' });
  repo.write('a.txt', 'work in progress\n');
  repo.write('b.txt', 'more work\n');
  const call = agentBash(repo, 'git checkout -- a.txt && git stash -q');
  assert.match(call.line ?? '', /2 files changed by this command: 2 modified/);
  assert.equal(fettleIn(repo, 'rollback', changesetOf(call.line)).code, 0);
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'work in progress\n');
  assert.equal(readFileSync(repo.path('b.txt'), 'utf8'), 'more work\n');
});

test('a commit by the command changes no file: nothing recorded', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('a.txt', 'edited\n');
  const call = agentBash(repo, 'git commit -qam "by the agent"');
  assert.equal(call.code, 0);
  assert.deepEqual([call.post.code, call.post.stdout], [0, '']);
});
