// The session ref, driven through the built CLI against real repositories: one commit per change that landed in
// an agent session, its tree the session's view, moved in the change's own transaction and never losing a commit
// to a concurrent writer.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, agentWrite, runCli, writePayload, type HookRun } from '../../helpers/cli';
import { lines, makeRepo, tempDir, userState, type Repo } from '../../helpers/repo';

const write = (repo: Repo, session: string, file: string, content: string, toolUseId: string) => {
  const r = agentWrite({ file: repo.path(file), content, cwd: repo.dir, session, toolUseId }, repo.env, (p, c) =>
    writeFileSync(p, c),
  );
  assert.deepEqual([r.pre.code, r.post?.code], [0, 0], `${r.pre.stderr}${r.post?.stderr}`);
};

const firstParents = (repo: Repo, ref: string, base: string) =>
  repo.git('rev-list', '--first-parent', ref, `^${base}`).split('\n').filter(Boolean);
const trailer = (repo: Repo, commit: string, key: string) =>
  repo.git('log', '-1', `--format=%(trailers:key=${key},valueonly)`, commit);

test('two sessions interleaving on a shared file: each ref holds exactly its own files at its own last bytes', () => {
  const repo = makeRepo({ 'a.txt': lines(20), 'b.txt': lines(20), 'shared.txt': lines(20) });
  const base = repo.git('rev-parse', 'HEAD');
  const before = userState(repo);
  write(repo, 'A', 'a.txt', lines(20).replace('line 1\n', 'A one\n'), 't1');
  write(repo, 'B', 'b.txt', lines(20).replace('line 2\n', 'B two\n'), 't2');
  write(repo, 'A', 'shared.txt', lines(20).replace('line 3\n', 'A three\n'), 't3');
  write(repo, 'B', 'shared.txt', lines(20).replace('line 3\n', 'A three\n').replace('line 9\n', 'B nine\n'), 't4');
  write(repo, 'A', 'a.txt', lines(20).replace('line 1\n', 'A one\n').replace('line 5\n', 'A five\n'), 't5');

  assert.equal(repo.git('diff', '--name-only', base, 'fettle/sessions/A'), 'a.txt\nshared.txt');
  assert.equal(repo.git('diff', '--name-only', base, 'fettle/sessions/B'), 'b.txt\nshared.txt');
  assert.deepEqual(repo.gitBytes('show', 'fettle/sessions/A:a.txt'), repo.read('a.txt'), "A's last bytes of a.txt");
  assert.equal(
    repo.git('show', 'fettle/sessions/A:shared.txt'),
    lines(20).replace('line 3\n', 'A three\n').trim(),
    "A's bytes of the shared file, not B's later ones",
  );
  assert.deepEqual(repo.gitBytes('show', 'fettle/sessions/B:shared.txt'), repo.read('shared.txt'));
  // One commit per change that landed, newest first, on top of the user's commit.
  const a = firstParents(repo, 'fettle/sessions/A', base);
  assert.equal(a.length, 3);
  assert.equal(repo.git('rev-parse', `${a[2]}^`), base, "the session's first commit sits on the user's commit");
  assert.deepEqual(
    a.map((c) => trailer(repo, c, 'Fettle-Path')),
    ['a.txt', 'shared.txt', 'a.txt'],
  );
  for (const c of a) assert.match(trailer(repo, c, 'Fettle-Change'), /^[0-9a-z]{8}$/);
  assert.equal(trailer(repo, a[0] as string, 'Fettle-Session'), 'A');
  // B's change of the shared file replaced A's bytes, not the base's: a `found` commit keeps them first.
  const b = firstParents(repo, 'fettle/sessions/B', base);
  assert.deepEqual(
    b.map((c) => trailer(repo, c, 'Fettle-Event')),
    ['write', 'found', 'write'],
  );
  assert.equal(repo.git('show', `${b[1]}:shared.txt`), lines(20).replace('line 3\n', 'A three\n').trim());
  // The session ref's commits are not changes: log lists the five writes, nothing more.
  assert.equal(repo.git('for-each-ref', 'refs/fettle/').split('\n').length, 5 + 2);
  // One PR branch for the whole session: a commit on the user's commit whose diff is exactly A's changes.
  const remote = join(tempDir(), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', remote], { env: repo.env });
  const pushed = runCli(['review', '--session', 'A', '--push', remote], { cwd: repo.dir, env: repo.env });
  assert.equal(pushed.code, 0, pushed.stderr);
  assert.match(
    pushed.stdout,
    /^Pushed session A \(3 changes in 2 files\) \(commit [0-9a-f]{12}\) to .* as branch fettle\/sessions\/A, one commit on [0-9a-f]{12};/,
  );
  const inRemote = (...args: string[]) => execFileSync('git', args, { cwd: remote, env: repo.env }).toString().trim();
  assert.equal(inRemote('rev-parse', 'fettle/sessions/A^'), base, "the branch's parent is the user's commit");
  assert.equal(inRemote('rev-list', '--count', `${base}..fettle/sessions/A`), '1', 'one commit');
  assert.equal(inRemote('diff', '--name-only', base, 'fettle/sessions/A'), 'a.txt\nshared.txt');
  assert.equal(inRemote('rev-parse', 'fettle/sessions/A^{tree}'), repo.git('rev-parse', 'fettle/sessions/A^{tree}'));
  const review = runCli(['review', '--session', 'B'], { cwd: repo.dir, env: repo.env });
  assert.match(
    review.stdout,
    /^Files changed \(2\):\n {2}b\.txt {2}\+1 -1\n {2}shared\.txt {2}\+1 -1$/m,
    review.stdout,
  );
  assert.equal(userState(repo), before, 'no user ref, index or config changed');
  assert.equal(repo.git('for-each-ref', 'refs/remotes'), '', 'not even a remote-tracking ref');
});

test("a session id that is not a valid ref name is made one; the raw id stays in the commit's trailer", () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  write(repo, 'sub agent/../x.lock', 'a.txt', lines(5, 'x'), 't1');
  const refs = repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/sessions/');
  assert.match(refs, /^refs\/fettle\/sessions\/sub-agent-\.-x-[0-9a-f]{10}$/);
  assert.equal(trailer(repo, refs, 'Fettle-Session'), 'sub agent/../x.lock');
});

test('a write without a session (no session id) moves no session ref', () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  const payload = writePayload({ file: repo.path('a.txt'), content: lines(5, 'x'), cwd: repo.dir });
  delete payload.session_id;
  const run = (event: string) =>
    new Promise<HookRun>((resolve) => {
      const child = execFile(process.execPath, [CLI, 'hook'], { cwd: repo.dir, env: repo.env }, (e, stdout, stderr) =>
        resolve({ code: e ? Number(e.code) : 0, stdout, stderr }),
      );
      child.stdin?.end(JSON.stringify({ ...payload, hook_event_name: event }));
    });
  return (async () => {
    assert.equal((await run('PreToolUse')).code, 0);
    writeFileSync(repo.path('a.txt'), lines(5, 'x'));
    assert.equal((await run('PostToolUse')).code, 0);
    assert.equal(repo.git('for-each-ref', 'refs/fettle/sessions/'), '');
    assert.equal(repo.git('for-each-ref', 'refs/fettle/').split('\n').length, 1);
  })();
});

const hookAsync = (repo: Repo, payload: unknown): Promise<HookRun> =>
  new Promise((resolve) => {
    // Retention would trim the changes to its default 100 while they are written.
    const env = { ...repo.env, FETTLE_HISTORY_MAX_COUNT: '1000' };
    const child = execFile(process.execPath, [CLI, 'hook'], { cwd: repo.dir, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end(JSON.stringify(payload));
  });

test('8 concurrent writers of one session x 25 writes: the session ref holds all 200 changes', async () => {
  const repo = makeRepo({ 'README.md': 'hello\n' });
  const base = repo.git('rev-parse', 'HEAD');
  const worker = async (w: number) => {
    for (let k = 0; k < 25; k++) {
      const call = { file: repo.path(`w${w}/f${k}.txt`), content: `${w}-${k}\n`, cwd: repo.dir, session: 'S' };
      const toolUseId = `toolu_${w}_${k}`;
      const pre = await hookAsync(repo, writePayload({ ...call, toolUseId, event: 'PreToolUse' }));
      assert.deepEqual([pre.code, pre.stderr], [0, '']);
      writeFileSync(call.file, call.content, { flag: 'w' });
      const post = await hookAsync(repo, writePayload({ ...call, toolUseId, event: 'PostToolUse' }));
      assert.deepEqual([post.code, post.stderr], [0, '']);
    }
  };
  const { mkdirSync } = await import('node:fs');
  for (let w = 0; w < 8; w++) mkdirSync(repo.path(`w${w}`));
  await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
  const commits = firstParents(repo, 'fettle/sessions/S', base);
  assert.equal(commits.length, 200, 'one commit per change, none lost');
  const changes = repo
    .git('for-each-ref', '--format=%(refname:lstrip=2)', 'refs/fettle/')
    .split('\n')
    .filter((r) => !r.startsWith('sessions/'));
  assert.equal(changes.length, 200);
  const onRef = repo.git(
    'log',
    '--first-parent',
    '--format=%(trailers:key=Fettle-Change,valueonly)',
    `${base}..fettle/sessions/S`,
  );
  assert.deepEqual(onRef.split('\n').filter(Boolean).sort(), changes.sort());
  const tree = repo.git('ls-tree', '-r', '--name-only', 'fettle/sessions/S').split('\n');
  assert.equal(tree.length, 201, 'every file the session wrote, and the base');
  for (let w = 0; w < 8; w++) assert.equal(repo.git('show', `fettle/sessions/S:w${w}/f24.txt`), `${w}-24`);
});
