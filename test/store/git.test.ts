// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import { BACKGROUND_NICE, createGit, GitError, inBackground } from '../../src/store/git';
import { agentWrite, runCli, runHook, writePayload } from '../helpers/cli';
import { loggingGit, subcommand } from '../helpers/git-log';
import { baseEnv, lines, makeRepo, tempDir, userState, type Repo } from '../helpers/repo';

const stagedId = (text: string) =>
  /Staged change ([0-9a-z]{8})/.exec(text)?.[1] ?? assert.fail(`no staged id in: ${text}`);
const fettleRefs = (repo: Repo) =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle', 'refs/fettle-discarded')
    .split('\n')
    .filter((l) => !l.startsWith('refs/fettle/sessions/'))
    .join('\n');
const countObjects = (repo: Repo) => repo.git('count-objects', '-v');

test('createGit returns stdout as bytes, takes binary stdin, and rejects with GitError', async () => {
  const repo = makeRepo();
  const git = createGit(repo.dir, repo.env);
  const bytes = Buffer.from([0, 1, 2, 0xff, 0x0a, 0x0d]);
  const oid = await git.text({ args: ['hash-object', '-w', '--stdin'], input: bytes });
  assert.ok((await git.run({ args: ['cat-file', 'blob', oid] })).stdout.equals(bytes));
  await assert.rejects(git.run({ args: ['cat-file', 'blob', 'nope'] }), (e: unknown) => {
    assert.ok(e instanceof GitError && e instanceof FettleError);
    assert.equal(e.code, 'E_GIT');
    assert.equal(e.exitCode, 128);
    assert.match(e.message, /^git cat-file failed: /);
    assert.doesNotMatch(e.message, /fatal:/);
    return true;
  });
  assert.equal((await git.run({ args: ['rev-parse', '-q', '--verify', 'nope'], okCodes: [1] })).code, 1);
});

test("background git calls run niced; others at fettle's own priority", async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const dir = tempDir();
  const real = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  const log = join(dir, 'nice.log');
  mkdirSync(join(dir, 'bin'));
  // Each call logs its own nice value (the 19th field of /proc/<pid>/stat; `ps` may be absent), after a pause:
  // fettle sets it right after the spawn returns.
  writeFileSync(
    join(dir, 'bin', 'git'),
    `#!/bin/sh\nsleep 0.2\ncut -d' ' -f19 /proc/$$/stat >> '${log}'\nexec '${real}' "$@"\n`,
  );
  chmodSync(join(dir, 'bin', 'git'), 0o755);
  const git = createGit(repo.dir, { ...repo.env, PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` });
  await git.run({ args: ['version'] });
  await inBackground(git).run({ args: ['version'] });
  await inBackground(git).text({ args: ['version'] });
  const own = getPriority();
  const expected = [own, Math.min(19, own + BACKGROUND_NICE), Math.min(19, own + BACKGROUND_NICE)].map(String);
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), expected);
});

test('createGit ignores inherited GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE of another repository', async () => {
  const [a, b] = [makeRepo({ 'a.txt': 'a' }), makeRepo({ 'b.txt': 'b' })];
  const env = {
    ...a.env,
    GIT_DIR: join(b.dir, '.git'),
    GIT_WORK_TREE: b.dir,
    GIT_INDEX_FILE: join(b.dir, '.git', 'index'),
  };
  const top = await createGit(a.dir, env).text({ args: ['rev-parse', '--show-toplevel'] });
  assert.equal(top, a.dir);
});

const PINS = ['core.hooksPath=/dev/null', 'core.fsyncMethod=fsync', 'commit.gpgSign=false'];
const assertPinned = (calls: string[][]) => {
  assert.ok(calls.length > 0, 'git was run');
  for (const args of calls) {
    const configs = args.filter((_, i) => args[i - 1] === '-c');
    for (const pin of PINS) assert.ok(configs.includes(pin), `${pin} missing in: git ${args.join(' ')}`);
    const fsync =
      configs
        .find((c) => c.startsWith('core.fsync='))
        ?.slice('core.fsync='.length)
        .split(',') ?? [];
    assert.ok(
      fsync.includes('loose-object') || fsync.includes('committed') || fsync.includes('all'),
      `objects fsynced: ${args.join(' ')}`,
    );
    assert.ok(fsync.includes('reference') || fsync.includes('all'), `refs fsynced: ${args.join(' ')}`);
  }
};

test('every git call of a runner carries the pinned config (hooks off, fsync on, no signing)', async () => {
  const repo = makeRepo({ 'f.txt': 'f' });
  const wrapper = loggingGit();
  const git = createGit(repo.dir, { ...repo.env, PATH: wrapper.path });
  await git.run({ args: ['rev-parse', 'HEAD'] });
  await git.run({ args: ['hash-object', '-w', '--stdin'], input: 'x' });
  assertPinned(wrapper.calls());
  assert.deepEqual(
    wrapper.calls().map((c) => c.slice(-2)),
    [
      ['rev-parse', 'HEAD'],
      ['-w', '--stdin'],
    ],
  );
});

test('end to end: every git process the CLI starts for a hook write and a confirm carries the pins', () => {
  const repo = makeRepo({ 'f.txt': 'one\n', 'big.txt': lines(5) });
  const wrapper = loggingGit();
  const env = { ...repo.env, PATH: wrapper.path };
  agentWrite({ file: repo.path('f.txt'), content: 'two\n', cwd: repo.dir }, env, (p, c) => writeFileSync(p, c));
  const staged = runHook(
    writePayload({ file: repo.path('big.txt'), content: lines(200, 'new'), cwd: repo.dir, toolUseId: 'toolu_02' }),
    { cwd: repo.dir, env },
  );
  const id = stagedId(staged.json?.hookSpecificOutput?.permissionDecisionReason ?? '');
  assert.equal(runCli(['confirm', id], { cwd: repo.dir, env }).code, 0);
  assertPinned(wrapper.calls());
  assert.ok(
    wrapper.calls().some((c) => c.includes('cat-file')) && wrapper.calls().some((c) => c.includes('update-ref')),
  );
});

test('inherited GIT_DIR / GIT_INDEX_FILE / GIT_WORK_TREE for another repo are ignored by the hook and by `fettle write`', () => {
  const [a, b] = [makeRepo({ 'f.txt': 'a\n', 'big.txt': lines(3) }), makeRepo({ 'other.txt': 'b\n' })];
  const gitDir = join(b.dir, '.git');
  const hostile = {
    ...a.env,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: b.dir,
    GIT_INDEX_FILE: join(gitDir, 'index'),
    GIT_COMMON_DIR: gitDir,
    GIT_OBJECT_DIRECTORY: join(gitDir, 'objects'),
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.bare',
    GIT_CONFIG_VALUE_0: 'true',
  };
  const [objectsBefore, stateBefore] = [countObjects(b), userState(b)];
  const direct = agentWrite({ file: a.path('f.txt'), content: 'A\n', cwd: a.dir }, hostile, (p, c) =>
    writeFileSync(p, c),
  );
  assert.equal(direct.pre.code, 0, direct.pre.stderr);
  assert.equal(direct.post?.code, 0, direct.post?.stderr);
  const staged = runHook(
    writePayload({ file: a.path('big.txt'), content: lines(100, 'x'), cwd: a.dir, toolUseId: 't2' }),
    { cwd: a.dir, env: hostile },
  );
  const id = stagedId(staged.json?.hookSpecificOutput?.permissionDecisionReason ?? '');
  const cli = runCli(['write', 'f.txt'], { cwd: a.dir, env: hostile, input: 'AA\n' });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(runCli(['confirm', id], { cwd: a.dir, env: hostile }).code, 0);
  assert.equal(countObjects(b), objectsBefore);
  assert.equal(fettleRefs(b), '');
  assert.equal(userState(b), stateBefore);
  assert.equal(fettleRefs(a).split('\n').length, 3);
  assert.equal(a.read('big.txt').toString(), lines(100, 'x'));
});

test("the user's hooks, core.hooksPath, signing, filters, fsmonitor and diff.external never run for fettle", () => {
  const repo = makeRepo({ 'f.txt': 'one\n', 'big.txt': lines(4) });
  const marker = join(repo.home, 'MARKER');
  const hooks = join(repo.home, 'hooks');
  mkdirSync(hooks);
  const evil = join(repo.home, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`);
  chmodSync(evil, 0o755);
  const names = [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'post-checkout',
    'reference-transaction',
    'post-index-change',
    'post-rewrite',
    'pre-auto-gc',
  ];
  for (const dir of [hooks, join(repo.dir, '.git', 'hooks')]) {
    for (const name of names) {
      writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> '${marker}'\nexit 1\n`);
      chmodSync(join(dir, name), 0o755);
    }
  }
  repo.write('.gitattributes', '* filter=evil diff=evil\n');
  const config: [string, string][] = [
    ['core.hooksPath', hooks],
    ['commit.gpgSign', 'true'],
    ['gpg.program', evil],
    ['tag.gpgSign', 'true'],
    ['filter.evil.clean', evil],
    ['filter.evil.smudge', evil],
    ['filter.evil.process', evil],
    ['filter.evil.required', 'true'],
    ['diff.external', evil],
    ['diff.evil.command', evil],
    ['diff.evil.textconv', evil],
    ['core.fsmonitor', evil],
    ['gc.auto', '1'],
    ['core.pager', evil],
  ];
  for (const [k, v] of config) repo.git('config', k, v);
  const env = repo.env;
  const direct = agentWrite({ file: repo.path('f.txt'), content: 'two\n', cwd: repo.dir }, env, (p, c) =>
    writeFileSync(p, c),
  );
  assert.equal(direct.pre.code, 0, direct.pre.stderr);
  assert.equal(direct.post?.code, 0, direct.post?.stderr);
  const staged = runHook(
    writePayload({ file: repo.path('big.txt'), content: lines(300, 'new'), cwd: repo.dir, toolUseId: 't2' }),
    { cwd: repo.dir, env },
  );
  const id = stagedId(staged.json?.hookSpecificOutput?.permissionDecisionReason ?? '');
  const confirm = runCli(['confirm', id], { cwd: repo.dir, env });
  assert.equal(confirm.code, 0, confirm.stderr);
  const write = runCli(['write', 'f.txt'], { cwd: repo.dir, env, input: 'three\n' });
  assert.equal(write.code, 0, write.stderr);
  const writeId = /as ([0-9a-z]{8})/.exec(write.stdout)?.[1] ?? assert.fail(write.stdout);
  const rollback = runCli(['rollback', writeId], { cwd: repo.dir, env });
  assert.equal(rollback.code, 0, rollback.stderr);
  const staged2 = runHook(
    writePayload({ file: repo.path('big.txt'), content: lines(300, 'again'), cwd: repo.dir, toolUseId: 't3' }),
    { cwd: repo.dir, env },
  );
  assert.equal(
    runCli(['discard', stagedId(staged2.json?.hookSpecificOutput?.permissionDecisionReason ?? '')], {
      cwd: repo.dir,
      env,
    }).code,
    0,
  );
  assert.equal(existsSync(marker), false, existsSync(marker) ? readFileSync(marker, 'utf8') : '');
  assert.equal(repo.read('f.txt').toString(), 'two\n');
  assert.equal(repo.read('big.txt').toString(), lines(300, 'new'));
});

test('warm: a started process is used by the run with the same args, once; other calls spawn their own', async () => {
  const repo = makeRepo({ 'f.txt': 'one\n' });
  const wrapper = loggingGit();
  const git = createGit(repo.dir, { ...repo.env, PATH: wrapper.path });
  git.warm(['cat-file', '--batch']);
  const spec = 'HEAD:f.txt\n';
  const first = await git.run({ args: ['cat-file', '--batch'], input: spec });
  const second = await git.run({ args: ['cat-file', '--batch'], input: spec });
  assert.deepEqual(first.stdout, second.stdout, 'the warm process answers as a fresh one does');
  assert.match(first.stdout.toString(), /^[0-9a-f]{40} blob 4\none\n\n$/);
  assert.equal(wrapper.calls().length, 2, 'the first run used the warm process, the second started its own');
  git.warm(['cat-file', '--batch']);
  const withEnv = await git.run({ args: ['cat-file', '--batch'], input: spec, env: { GIT_AUTHOR_DATE: '@0 +0000' } });
  assert.deepEqual(withEnv.stdout, first.stdout);
  // The idle warm process logs when it starts, which may be just after the run above ends.
  for (let i = 0; i < 100 && wrapper.calls().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(wrapper.calls().length, 4, 'a call with its own env spawned, leaving the warm one idle');
});

test("warm: a failing warm process rejects its run with git's error", async () => {
  const dir = tempDir();
  const git = createGit(dir, baseEnv(dir));
  git.warm(['cat-file', '--batch']);
  await assert.rejects(
    git.run({ args: ['cat-file', '--batch'], input: 'HEAD\n' }),
    (e: unknown) => e instanceof GitError && /not a git repository/i.test(e.stderr),
  );
});

test('warm: an update-ref never used changes nothing and does not keep the process alive', () => {
  const repo = makeRepo({ 'f.txt': 'one\n' });
  const script = `const { createGit } = require(${JSON.stringify(join(process.cwd(), 'src/store/git.ts'))});
    createGit(process.argv[1], process.env).warm(['update-ref', '-m', 'x', '--stdin']);`;
  const started = Date.now();
  execFileSync(process.execPath, ['--import', 'tsx', '-e', script, repo.dir], {
    env: { ...process.env, ...repo.env },
    timeout: 20_000,
  });
  assert.ok(Date.now() - started < 15_000);
  assert.equal(repo.git('for-each-ref'), repo.git('for-each-ref', 'refs/heads'), 'no ref but the branch');
});

test('a hook write starts two git processes, direct or staged (rev-parse, cat-file): its new ref is made in process', () => {
  const repo = makeRepo({ 'f.txt': lines(30), 'big.txt': lines(30), 'deep/er/x.txt': 'x\n' });
  const direct = loggingGit();
  const d = runHook(
    writePayload({ file: repo.path('deep/er/x.txt'), content: 'y\n', cwd: repo.dir, toolUseId: 'toolu_d' }),
    { cwd: repo.dir, env: { ...repo.env, PATH: direct.path } },
  );
  assert.deepEqual([d.code, d.stdout], [0, ''], d.stderr);
  assert.deepEqual(direct.calls().map(subcommand).sort(), ['cat-file', 'rev-parse'], 'direct PreToolUse');
  const staged = loggingGit();
  const s = runHook(
    writePayload({ file: repo.path('big.txt'), content: lines(30, 'new'), cwd: repo.dir, toolUseId: 'toolu_s' }),
    { cwd: repo.dir, env: { ...repo.env, PATH: staged.path } },
  );
  assert.match(s.stdout, /"permissionDecision":"deny"/);
  assert.deepEqual(
    staged.calls().map(subcommand).sort(),
    ['cat-file', 'rev-parse'],
    'staged PreToolUse: no worktree, no object-writing git',
  );
  // PostToolUse commits what landed on the change and on the session's ref in one cat-file and one update-ref
  // (retention adds its for-each-ref): the session ref costs no process, created or moved.
  for (const [n, file] of ['deep/er/x.txt', 'f.txt'].entries()) {
    const post = loggingGit();
    const content = n === 0 ? 'y\n' : lines(30).replace('line 1\n', 'one\n');
    const call = { file: repo.path(file), content, cwd: repo.dir, toolUseId: n === 0 ? 'toolu_d' : `toolu_p${n}` };
    const env = { ...repo.env, PATH: post.path };
    if (n > 0)
      assert.equal(runHook(writePayload({ ...call, event: 'PreToolUse' }), { cwd: repo.dir, env: repo.env }).code, 0);
    writeFileSync(call.file, call.content);
    const p = runHook(writePayload({ ...call, event: 'PostToolUse' }), { cwd: repo.dir, env });
    assert.equal(p.code, 0, p.stderr);
    assert.deepEqual(
      post.calls().map(subcommand).sort(),
      ['cat-file', 'for-each-ref', 'rev-parse', 'update-ref'],
      `direct PostToolUse ${n === 0 ? 'creating' : 'moving'} the session ref`,
    );
  }
  assert.equal(repo.git('rev-list', '--count', 'fettle/sessions/session-1', '^HEAD'), '2');
});

test("a ref's lock held for a moment (background maintenance packing fettle's refs) is waited for, not failed on", async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const git = createGit(repo.dir, repo.env);
  const head = repo.git('rev-parse', 'HEAD');
  await git.run({ args: ['update-ref', 'refs/fettle/held', head] });
  const lock = join(repo.dir, '.git', 'refs', 'fettle', 'held.lock');
  writeFileSync(lock, '');
  // git's own default gives up after 100 ms
  const released = new Promise<void>((resolve) =>
    setTimeout(() => {
      rmSync(lock);
      resolve();
    }, 400),
  );
  await git.run({ args: ['update-ref', '-d', 'refs/fettle/held', head] });
  await released;
  assert.equal(repo.git('for-each-ref', 'refs/fettle/held'), '');
});
