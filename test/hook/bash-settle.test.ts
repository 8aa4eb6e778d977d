// The last Bash call of a headless run: `claude -p` exits after the model's last answer and cancels the background
// PostToolUse, so the snapshot stays open. The Stop and SessionEnd hooks record what the command changed from the
// disk, leaving out paths a later record of the session holds (a Write made after the command).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { bashHook, fettleIn, openSnapshotFiles, shell } from '../helpers/bash';
import { agentWrite, runHook } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

const endHook = (repo: Repo, event: 'Stop' | 'SessionEnd', session = 'session-1') =>
  runHook(
    {
      session_id: session,
      transcript_path: '/nonexistent/transcript.jsonl',
      cwd: repo.dir,
      permission_mode: 'acceptEdits',
      hook_event_name: event,
      ...(event === 'Stop' ? { stop_hook_active: false } : { reason: 'other' }),
    },
    { cwd: repo.dir, env: repo.env },
  );

interface Row {
  path: string;
  changeset: string | null;
  tool: string | null;
  id: string;
}
const logOf = (repo: Repo): Row[] => (JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: Row[] }).changes;

for (const event of ['Stop', 'SessionEnd'] as const) {
  test(`a Bash call whose PostToolUse never came is recorded at ${event}; a late PostToolUse then stays quiet`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    repo.write('b.txt', 'untracked, only on disk\n');
    const command = 'echo changed > a.txt && rm b.txt';
    assert.equal(bashHook({ command, cwd: repo.dir }, repo.env).code, 0);
    shell(command, repo.dir, repo.env);
    assert.equal(openSnapshotFiles(repo).length, 1);
    const end = endHook(repo, event);
    assert.deepEqual([end.code, end.stdout, end.stderr], [0, '', '']);
    const rows = logOf(repo);
    assert.deepEqual(rows.map((r) => r.path).sort(), ['a.txt', 'b.txt']);
    assert.match(fettleIn(repo, 'show', rows[0]?.id as string).stdout, /Recorded from the disk at the end of the turn/);
    assert.deepEqual(openSnapshotFiles(repo), []);
    const late = bashHook({ command, cwd: repo.dir, event: 'PostToolUse' }, repo.env);
    assert.deepEqual([late.code, late.stdout], [0, '']);
    assert.equal(logOf(repo).length, 2, 'recorded once');
    assert.equal(fettleIn(repo, 'rollback', rows[0]?.changeset as string).code, 0);
    assert.equal(readFileSync(repo.path('b.txt'), 'utf8'), 'untracked, only on disk\n');
  });
}

test("at the end of the turn, a path a later Write of the session recorded is that Write's, not the command's", () => {
  const repo = makeRepo({ 'a.txt': 'a\n', 'w.txt': 'w\n' });
  assert.equal(bashHook({ command: 'echo by-bash > a.txt', cwd: repo.dir }, repo.env).code, 0);
  shell('echo by-bash > a.txt', repo.dir, repo.env);
  const write = agentWrite(
    { file: repo.path('w.txt'), content: 'by the Write tool\n', cwd: repo.dir, toolUseId: 'toolu_write' },
    repo.env,
    (path, content) => writeFileSync(path, content),
  );
  assert.equal(write.post?.code, 0);
  assert.equal(endHook(repo, 'Stop').code, 0);
  const rows = logOf(repo);
  assert.deepEqual(rows.map((r) => `${r.path} ${r.tool}`).sort(), ['a.txt Bash', 'w.txt Write']);
});

test("another session's end of turn leaves this session's open command alone", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.equal(bashHook({ command: 'echo x > a.txt', cwd: repo.dir }, repo.env).code, 0);
  shell('echo x > a.txt', repo.dir, repo.env);
  assert.equal(endHook(repo, 'Stop', 'another-session').code, 0);
  assert.deepEqual(logOf(repo), []);
  assert.equal(openSnapshotFiles(repo).length, 1);
});

/** A command that changed two files, whose PostToolUse is killed at `point`; the repository and its paths logged. */
const killedPost = (point: string) => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const command = 'echo changed > a.txt && echo new > n.txt';
  assert.equal(bashHook({ command, cwd: repo.dir }, repo.env).code, 0);
  shell(command, repo.dir, repo.env);
  const killed = bashHook(
    { command, cwd: repo.dir, event: 'PostToolUse' },
    { ...repo.env, FETTLE_FAILPOINTS: `${point}=kill` },
  );
  assert.notEqual(killed.code, 0);
  return repo;
};
const loggedPaths = (repo: Repo) =>
  logOf(repo)
    .map((r) => r.path)
    .sort();

for (const event of ['Stop', 'SessionEnd'] as const) {
  test(`a PostToolUse killed after its record, before it let go of the snapshot: ${event} does not record it again`, () => {
    const repo = killedPost('bash.recorded');
    assert.deepEqual(loggedPaths(repo), ['a.txt', 'n.txt']);
    assert.equal(openSnapshotFiles(repo).length, 1, 'the dead process still holds the snapshot');
    assert.equal(endHook(repo, event).code, 0);
    assert.deepEqual(loggedPaths(repo), ['a.txt', 'n.txt'], 'recorded once');
    assert.deepEqual(openSnapshotFiles(repo), []);
  });
}

for (const event of ['Stop', 'SessionEnd'] as const) {
  test(`a PostToolUse killed between its record's two steps: ${event} completes that record, and it rolls back`, () => {
    const repo = killedPost('bash.befores-recorded');
    assert.equal(endHook(repo, event).code, 0);
    assert.deepEqual(loggedPaths(repo), ['a.txt', 'n.txt'], 'recorded once');
    assert.deepEqual(openSnapshotFiles(repo), []);
    const undo = fettleIn(repo, 'rollback', logOf(repo)[0]?.changeset as string);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'a\n');
    assert.equal(existsSync(repo.path('n.txt')), false);
  });
}
