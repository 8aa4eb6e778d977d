// The Bash hook's failure classes, each with its deliberate exit code: a snapshot that cannot be taken blocks the
// command (2), or lets it through and says so with FETTLE_ON_ERROR=allow (1), keeping nothing either way; a
// PostToolUse that cannot record exits 1, and its snapshot stays for the end of the turn to record.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bashHook, fettleIn, openSnapshotFiles, shell } from '../helpers/bash';
import { runHook } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

const SNAPSHOT_FAILS = { FETTLE_FAILPOINTS: 'bash.snapshot-read=throw' };
const RECORD_FAILS = { FETTLE_FAILPOINTS: 'bash.changes-found=throw' };

const settledChanges = (repo: Repo): { id: string; path: string }[] =>
  (JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: { id: string; path: string }[] }).changes;

test('a snapshot that cannot be taken blocks the command (exit 2), keeping nothing; FETTLE_ON_ERROR=allow lets it through, said so (exit 1)', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('a.txt', 'dirty, only on disk\n');
  const refs = repo.git('for-each-ref', 'refs/fettle');
  const blocked = bashHook({ command: 'rm a.txt', cwd: repo.dir }, { ...repo.env, ...SNAPSHOT_FAILS });
  assert.equal(blocked.code, 2, blocked.stderr);
  assert.equal(blocked.stdout, '');
  assert.match(
    blocked.stderr,
    /^fettle blocked this command because it could not save the state of your changed files/,
  );
  assert.match(blocked.stderr, /FETTLE_ON_ERROR=allow .*FETTLE_BASH=off/);
  assert.deepEqual(openSnapshotFiles(repo), [], 'the claimed snapshot is dropped');

  const allowed = bashHook(
    { command: 'rm a.txt', cwd: repo.dir, toolUseId: 'toolu_allowed' },
    { ...repo.env, ...SNAPSHOT_FAILS, FETTLE_ON_ERROR: 'allow' },
  );
  assert.equal(allowed.code, 1, allowed.stderr);
  assert.equal(allowed.stdout, '');
  assert.match(allowed.stderr, /what it changes is NOT protected \(FETTLE_ON_ERROR=allow\)/);
  assert.deepEqual(openSnapshotFiles(repo), []);
  const post = bashHook(
    { command: 'rm a.txt', cwd: repo.dir, toolUseId: 'toolu_allowed', event: 'PostToolUse' },
    repo.env,
  );
  assert.deepEqual([post.code, post.stdout], [0, ''], 'nothing to record without a snapshot');
  assert.equal(repo.git('for-each-ref', 'refs/fettle'), refs, 'no ref written');
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'dirty, only on disk\n');
});

test('a PostToolUse that cannot record exits 1 and says why; the snapshot stays, and the end of the turn records it', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('a.txt', 'dirty, only on disk\n');
  const command = 'echo changed > a.txt';
  assert.equal(bashHook({ command, cwd: repo.dir }, repo.env).code, 0);
  shell(command, repo.dir, repo.env);
  const post = bashHook({ command, cwd: repo.dir, event: 'PostToolUse' }, { ...repo.env, ...RECORD_FAILS });
  assert.equal(post.code, 1, post.stderr);
  assert.equal(post.stdout, '');
  assert.match(post.stderr, /^fettle: the command ran, but recording what it changed failed: /);
  assert.deepEqual(settledChanges(repo), []);
  assert.equal(openSnapshotFiles(repo).length, 1, 'the snapshot is put back');

  const stop = runHook(
    { session_id: 'session-1', cwd: repo.dir, hook_event_name: 'Stop', stop_hook_active: false },
    { cwd: repo.dir, env: repo.env },
  );
  assert.deepEqual([stop.code, stop.stdout, stop.stderr], [0, '', '']);
  const rows = settledChanges(repo);
  assert.deepEqual(
    rows.map((r) => r.path),
    ['a.txt'],
  );
  assert.equal(fettleIn(repo, 'rollback', rows[0]?.id as string).code, 0);
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'dirty, only on disk\n');
});
