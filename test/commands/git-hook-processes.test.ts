// What `fettle git-hook` costs each commit in git processes. Inside the person's `git commit`, post-commit starts
// none: it marks the commit and leaves its note to a detached process (protocol/notes-pending.ts), which reads the
// repository and fettle's refs from their files, every object through one `cat-file`, and writes the note: no
// process per read, none to ask what the commit changed (the trees say it).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { agentWrite, runCli } from '../helpers/cli';
import { loggingGit, subcommand } from '../helpers/git-log';
import { notesSettled, pendingNotes } from '../helpers/notes';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';

/** An environment whose git logs each call, and the subcommands taken since the last look, sorted. */
const countingGit = (repo: Repo): { env: Record<string, string>; taken: () => string[] } => {
  const git = loggingGit();
  let seen = 0;
  const taken = () => {
    const calls = git.calls();
    const fresh = calls.slice(seen);
    seen = calls.length;
    return fresh.map((args) => `${subcommand(args)} ${args[args.indexOf(subcommand(args)) + 1] ?? ''}`.trim()).sort();
  };
  return { env: { ...repo.env, PATH: git.path }, taken };
};

test('post-commit after an agent Write: the commit waits for no git process; the detached half takes two, and writes the note', () => {
  const repo = makeRepo({ 'src/app.ts': lines(3), 'other.txt': 'o\n' });
  const file = repo.path('src/app.ts');
  const write = agentWrite({ file, content: `${lines(3)}agent line\n`, cwd: repo.dir }, repo.env, writeFileSync);
  assert.equal(write.written, true);
  repo.commit('person commits the agent line');
  const { env, taken } = countingGit(repo);
  const r = runCli(['git-hook', 'post-commit'], { cwd: repo.dir, env });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  const head = repo.git('rev-parse', 'HEAD');
  const marked = pendingNotes(repo);
  // the mark is there until the note is: one or the other, never neither
  assert.ok(marked.includes(head) || repo.git('notes', '--ref=fettle', 'list').includes(head), String(marked));
  notesSettled(repo);
  // the repository and fettle's refs are read from their files (store/discover-files.ts, store/ref-files.ts)
  assert.deepEqual(taken(), ['cat-file --batch-command', 'notes --ref=refs/notes/fettle']);
  const note = repo.git('notes', '--ref=fettle', 'show', 'HEAD');
  assert.match(note, /^fettle-attribution v1\nfile src\/app\.ts\n4 claude session=session-1 tool=Write change=\w+$/);
});

test("post-commit from a person's own hook, under GIT_COMMON_DIR: the store opens as for any command, the note lands later", () => {
  const repo = makeRepo({ 'a.txt': lines(3) });
  agentWrite({ file: repo.path('a.txt'), content: `${lines(3)}agent\n`, cwd: repo.dir }, repo.env, writeFileSync);
  repo.commit('agent line');
  const env = { ...repo.env, GIT_COMMON_DIR: repo.path('.git') };
  const r = runCli(['git-hook', 'post-commit'], { cwd: repo.dir, env });
  assert.deepEqual([r.code, r.stderr], [0, '']);
  notesSettled(repo);
  assert.match(repo.git('notes', '--ref=fettle', 'show', 'HEAD'), /^file a\.txt\n4 claude /m);
});

test('a mark whose detached half never ran (killed, a reboot) is noted by the next reader: blame, then the notes', () => {
  const repo = makeRepo({ 'a.txt': lines(3) });
  agentWrite({ file: repo.path('a.txt'), content: `${lines(3)}agent\n`, cwd: repo.dir }, repo.env, writeFileSync);
  repo.commit('agent line');
  const head = repo.git('rev-parse', 'HEAD');
  mkdirSync(repo.path('.git/fettle/notes-pending'), { recursive: true });
  writeFileSync(repo.path(`.git/fettle/notes-pending/${head}`), '');
  assert.equal(repo.git('notes', '--ref=fettle', 'list'), '');
  const blamed = runCli(['blame', 'a.txt', '--json'], { cwd: repo.dir, env: repo.env });
  assert.equal(blamed.code, 0, blamed.stderr);
  assert.deepEqual(pendingNotes(repo), []);
  assert.match(repo.git('notes', '--ref=fettle', 'show', head), /^file a\.txt\n4 claude /m);
});

test('post-commit returns before the note: a detached half that cannot run git leaves the mark and says why in the log', () => {
  const repo = makeRepo({ 'a.txt': lines(3) });
  agentWrite({ file: repo.path('a.txt'), content: `${lines(3)}agent\n`, cwd: repo.dir }, repo.env, writeFileSync);
  repo.commit('agent line');
  const head = repo.git('rev-parse', 'HEAD');
  const r = runCli(['git-hook', 'post-commit'], { cwd: repo.dir, env: { ...repo.env, PATH: tempDir() } });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  assert.deepEqual(pendingNotes(repo), [head]);
  const log = repo.path('.git/fettle/git-hook.log');
  const deadline = Date.now() + 60_000;
  while (!existsSync(log) || readFileSync(log, 'utf8') === '') {
    assert.ok(Date.now() < deadline, 'the detached half wrote nothing to its log');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  assert.match(readFileSync(log, 'utf8'), /git/);
  assert.deepEqual(pendingNotes(repo), [head], 'a failed note keeps its mark');
  assert.equal(runCli(['blame', 'a.txt'], { cwd: repo.dir, env: repo.env }).code, 0);
  assert.deepEqual(pendingNotes(repo), []);
  assert.match(repo.git('notes', '--ref=fettle', 'show', head), /^file a\.txt\n4 claude /m);
});
