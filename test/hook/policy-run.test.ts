// A policy `run` rule on the hook path (docs/POLICY.md, "run: a command on the tree a write would produce"): a
// command that passes lets the write go on; one that fails blocks it with its exit and output, or stages it with
// that output in the record; a timeout fails; the command runs in the session's test tree, never in the user's
// work tree, and only for a write a rule matches (a Bash command never runs it).
// Tier: slow, end-to-end scenarios through the built CLI, each checking out a test tree (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { bashHook } from '../helpers/bash';
import { lines, type Repo } from '../helpers/repo';
import { denied, editInput, fettleRefs, hook, hso, scenario, show, toolCall } from '../helpers/tools';

const writePolicy = (repo: Repo, rules: unknown[]) =>
  repo.write('.fettle/policy.json', JSON.stringify({ version: 2, rules }));
/** A file outside the repository a command writes to say it ran. */
const markerOf = (repo: Repo): string => join(repo.home, 'ran');
const FILES = { 'src/a.txt': lines(20), 'other.txt': lines(5) };
const FIX = editInput('', 'line 3\n', 'line three\n');
const edit = (repo: Repo, file: string, next = 'line three\n') => ({
  ...FIX,
  file_path: repo.path(file),
  new_string: next,
});
const status = (repo: Repo) =>
  repo.gitBytes('status', '--porcelain', '--untracked-files=all').toString('utf8').split('\n').filter(Boolean).sort();
/** `bad` in the file written: the command fails, naming it on stderr. */
const NO_BAD = 'if grep -q bad {file}; then echo "found bad in {file}" >&2; exit 3; fi; echo \'all good\'';

scenario('a command that passes lets a direct write go on; it ran in the test tree on the new bytes', FILES, (repo) => {
  const marker = markerOf(repo);
  // Passes only on the write's bytes ("line three" is not in the committed file) and says where it ran.
  const run = `grep -q 'line three' {file} && pwd > '${marker}' && touch made-by-the-check`;
  writePolicy(repo, [{ name: 'check', path: 'src/**', action: 'run', run }]);
  const before = status(repo);
  const call = toolCall(repo, 'Edit', edit(repo, 'src/a.txt'), () => {
    repo.write('src/a.txt', lines(20).replace('line 3\n', 'line three\n'));
  });
  assert.equal(call.ran, true, show(call.pre));
  assert.equal(call.post?.code, 0, show(call.post));
  assert.equal(fettleRefs(repo).length, 1, 'the write was recorded');
  const ranIn = readFileSync(marker, 'utf8').trim();
  assert.ok(ranIn.startsWith(join(realpathSync(repo.dir), '.git', 'fettle', 'worktrees', 'session-')), ranIn);
  assert.equal(existsSync(repo.path('made-by-the-check')), false, 'what the command writes stays in its tree');
  assert.deepEqual(status(repo), [...before, ' M src/a.txt'].sort(), 'only the write changed the work tree');
  // The only worktree besides the user's is fettle's hidden, locked test tree of the session (`fettle gc` removes it).
  const trees = repo
    .git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
  assert.deepEqual(trees.length, 2, trees.join('\n'));
});

scenario('a command that fails blocks the write: the agent reads its exit and output', FILES, (repo) => {
  writePolicy(repo, [{ name: 'no-bad', path: 'src/**', action: 'run', run: NO_BAD }]);
  const reason = denied(hook(repo, 'Edit', edit(repo, 'src/a.txt', 'a bad line\n')));
  assert.match(reason, /^fettle blocked this write: nothing was written to src\/a\.txt\. Policy rule no-bad /);
  assert.match(
    reason,
    /ran `if grep -q bad src\/a\.txt;.*` on the files as this write would leave them, and it failed \(exit 3\)\./,
  );
  assert.match(reason, /\nfound bad in src\/a\.txt\nFix what it reports, then write again\.$/);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  assert.deepEqual(fettleRefs(repo), [], 'nothing recorded');
  const good = toolCall(
    repo,
    'Edit',
    edit(repo, 'src/a.txt'),
    () => {
      repo.write('src/a.txt', lines(20).replace('line 3\n', 'line three\n'));
    },
    { toolUseId: 'toolu_02' },
  );
  assert.equal(good.ran, true, show(good.pre));
});

scenario('onFail stage: a failing command stages the write, its output in the staged record', FILES, (repo) => {
  writePolicy(repo, [{ name: 'no-bad', path: 'src/**', action: 'run', run: NO_BAD, onFail: 'stage' }]);
  const reason = denied(hook(repo, 'Edit', edit(repo, 'src/a.txt', 'a bad line\n')));
  const id =
    /^Staged change ([0-9a-z]{8}): \+1 -1 to a 20-line file; staged because the command of policy rule no-bad \("src\/\*\*" in \.fettle\/policy\.json\) failed\.$/m.exec(
      reason,
    )?.[1];
  assert.ok(id, reason);
  assert.match(reason, /\nfound bad in src\/a\.txt\n/);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  const message = repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`);
  assert.match(message, /Policy rule no-bad .* failed \(exit 3\)\. Its output:\nfound bad in src\/a\.txt\n/);
  assert.match(message, /^Fettle-Decided-By: policy:no-bad$/m);
});

scenario('a command past its timeout is stopped and fails; an argv runs as given', FILES, (repo) => {
  writePolicy(repo, [{ name: 'slow', path: 'src/**', action: 'run', run: ['sleep', '30'], timeoutSeconds: 1 }]);
  const reason = denied(hook(repo, 'Edit', edit(repo, 'src/a.txt')));
  assert.match(
    reason,
    /Policy rule slow .* ran `sleep 30` .* and it did not finish within 1 s \(the rule's timeoutSeconds\) and was stopped\. It printed nothing\./,
  );
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
});

scenario('a rule that does not match never runs its command, nor does a Bash command', FILES, (repo) => {
  const marker = markerOf(repo);
  writePolicy(repo, [
    { name: 'src-only', path: 'src/**', action: 'run', run: `touch '${marker}'` },
    { name: 'any', tool: 'Bash', action: 'run', run: `touch '${marker}'` },
  ]);
  const other = toolCall(repo, 'Edit', edit(repo, 'other.txt'), () => {
    repo.write('other.txt', lines(5).replace('line 3\n', 'line three\n'));
  });
  assert.equal(other.ran, true, show(other.pre));
  const bash = bashHook({ command: 'true', cwd: repo.dir }, repo.env);
  assert.notEqual(hso(bash)?.permissionDecision, 'deny', show(bash));
  assert.equal(existsSync(marker), false, 'no command ran');
  const src = toolCall(
    repo,
    'Edit',
    edit(repo, 'src/a.txt'),
    () => {
      repo.write('src/a.txt', lines(20).replace('line 3\n', 'line three\n'));
    },
    { toolUseId: 'toolu_02' },
  );
  assert.equal(src.ran, true, show(src.pre));
  assert.equal(existsSync(marker), true, 'the matching rule ran its command');
});

scenario('an edit fettle cannot predict is refused under a run rule: nothing to run the command on', FILES, (repo) => {
  writePolicy(repo, [{ name: 'check', path: 'src/**', action: 'run', run: 'true' }]);
  const reason = denied(hook(repo, 'Edit', editInput(repo.path('src/a.txt'), 'no such text\n', 'x\n')));
  assert.match(
    reason,
    /Policy rule check .* runs a command on the files as each write would leave them, and fettle cannot compute/,
  );
});
