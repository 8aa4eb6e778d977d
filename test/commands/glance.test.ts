// `fettle status` and `fettle log` as a person runs them all day: their own bundle, and the tips of fettle's refs
// kept by commit id (protocol/tip-cache.ts), so a listing asks git for the refs' names and ids only.
import assert from 'node:assert/strict';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { loggingGit, subcommand } from '../helpers/git-log';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok, stageWrite, statusJson } from '../helpers/stage';

/** The git commands a run starts, each a line without the options fettle pins (`-c name=value`). */
const gitLogged = (repo: Repo): { env: Record<string, string>; calls: () => string[]; clear: () => void } => {
  const git = loggingGit();
  const bin = git.path.slice(0, git.path.indexOf(delimiter));
  const unpinned = (args: string[]) => args.slice(args.indexOf(subcommand(args))).join(' ');
  return {
    env: { PATH: `${bin}${delimiter}${repo.env.PATH}` },
    calls: () => git.calls().map(unpinned),
    clear: () => rmSync(git.log, { force: true }),
  };
};

const tipsFile = (repo: Repo) => join(repo.dir, '.git', 'fettle', 'tips.json');

test('a second status or log starts no git: the repository and the refs are read from their files, the commits kept by id', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  directWrite(repo, 'b.txt', lines(30).replace('line 4\n', 'edit 4\n'));
  stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  const git = gitLogged(repo);
  rmSync(tipsFile(repo), { force: true });
  const first = ok(fettle(repo, ['status'], { env: git.env })).stdout;
  assert.ok(
    git.calls().some((c) => c.startsWith('cat-file --batch')),
    'the first listing reads the commits',
  );
  for (const command of ['status', 'log']) {
    git.clear();
    const again = ok(fettle(repo, [command], { env: git.env })).stdout;
    if (command === 'status') assert.equal(again, first);
    assert.deepEqual(git.calls(), [], command);
  }
  // git is asked where the files are not plain: a repository it must locate, refs it must list
  repo.git('config', 'extensions.worktreeConfig', 'true');
  git.clear();
  assert.equal(ok(fettle(repo, ['status'], { env: git.env })).stdout, first);
  assert.deepEqual(
    git.calls().map((c) => c.split(' ')[0]),
    ['rev-parse', 'for-each-ref'],
  );
  repo.git('config', '--unset', 'extensions.worktreeConfig');
  writeFileSync(join(repo.dir, '.git', 'refs', 'fettle', 'half'), '0123');
  git.clear();
  assert.equal(ok(fettle(repo, ['status'], { env: git.env })).stdout, first);
  assert.deepEqual(git.calls(), [`for-each-ref --format=%(objectname) %(refname) refs/fettle/ refs/fettle-discarded/`]);
});

test('a status or log that starts no git loads no Node module for processes, hashes or compression', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  ok(fettle(repo, ['status']));
  // Each module Node loads after the preload, as the process exits (process.moduleLoadList).
  const dir = tempDir();
  const preload = join(dir, 'modules.cjs');
  writeFileSync(
    preload,
    `const before = new Set(process.moduleLoadList);
process.on('exit', () => require('node:fs').appendFileSync(process.env.MODULES_LOG,
  process.moduleLoadList.filter((m) => !before.has(m)).join('\\n') + '\\n'));`,
  );
  const log = join(dir, 'modules.log');
  for (const command of ['status', 'log']) {
    rmSync(log, { force: true });
    ok(fettle(repo, [command], { env: { NODE_OPTIONS: `--require ${preload}`, MODULES_LOG: log } }));
    const loaded = readFileSync(log, 'utf8').split('\n');
    for (const name of ['child_process', 'crypto', 'zlib', 'tty'])
      assert.ok(!loaded.includes(`NativeModule ${name}`), `${command} loaded node:${name}`);
  }
});

test('status lists the same changes from a linked worktree and from a work tree whose .git is a gitfile', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  const expected = statusJson(repo).pending.map((c) => c.id);
  repo.git('worktree', 'add', '-q', '-b', 'side', join(repo.dir, '..', 'wt'));
  const git = gitLogged(repo);
  const inWorktree = JSON.parse(
    ok(fettle(repo, ['status', '--json'], { cwd: join(repo.dir, '..', 'wt'), env: git.env })).stdout,
  );
  assert.deepEqual(
    inWorktree.pending.map((c: { id: string }) => c.id),
    expected,
  );
  assert.deepEqual(git.calls(), []);
  const moved = join(repo.dir, '..', 'repo.git');
  renameSync(join(repo.dir, '.git'), moved);
  writeFileSync(join(repo.dir, '.git'), `gitdir: ${moved}\n`);
  git.clear();
  assert.deepEqual(
    statusJson(repo, { env: git.env }).pending.map((c) => c.id),
    expected,
  );
  assert.deepEqual(git.calls(), []);
});

test('the kept tips follow the refs: a moved ref is read again, a damaged file is ignored, gone ids are dropped', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const staged = stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  assert.deepEqual(
    statusJson(repo).pending.map((c) => [c.id, c.state]),
    [[staged, 'pending']],
  );
  ok(fettle(repo, ['confirm', staged]));
  assert.deepEqual(statusJson(repo).pending, [], 'the confirmed change is no longer pending');
  assert.deepEqual(
    statusJson(repo).recent.map((c) => [c.id, c.state]),
    [[staged, 'applied']],
  );
  const named = new Set(repo.git('for-each-ref', '--format=%(objectname)', 'refs/fettle/').split('\n'));
  const kept = Object.keys(JSON.parse(readFileSync(tipsFile(repo), 'utf8')).tips as object);
  assert.deepEqual(
    kept.filter((oid) => !named.has(oid)),
    [],
    'only commits a ref names are kept',
  );
  const damages = ['{"v":1,"tips":{', '[]', '{"v":999,"tips":{}}', `{"v":1,"tips":{"${kept[0]}":[1,2,3]}}`];
  for (const [n, damaged] of damages.entries()) {
    writeFileSync(tipsFile(repo), damaged);
    const direct = directWrite(repo, 'b.txt', lines(30).replace('line 9\n', `edit ${n}\n`));
    const recent = statusJson(repo).recent;
    assert.equal(recent.find((c) => c.id === direct)?.state, 'applied', damaged);
    assert.equal(recent.find((c) => c.id === staged)?.state, 'applied', damaged);
  }
});

test('status and log read only what they know: help, an unknown option and -C <dir> are the full program', () => {
  const repo = makeRepo({ 'a.txt': lines(3) });
  assert.match(ok(fettle(repo, ['status', '--help'])).stdout, /^Usage: fettle status \[options\]/);
  assert.match(ok(fettle(repo, ['log', '--help'])).stdout, /^Usage: fettle log \[options\] \[path\]/);
  const unknown = fettle(repo, ['log', '--since', 'x']);
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /unknown option '--since'/);
  const elsewhere = fettle(repo, ['-C', repo.dir, 'status'], { cwd: tempDir() });
  assert.equal(ok(elsewhere).stdout, 'No staged changes waiting.\n');
  const missing = fettle(repo, ['-C', join(repo.dir, 'nope'), 'log', '--json']);
  assert.equal(missing.code, 2, missing.stderr);
  assert.equal(JSON.parse(missing.stdout).error.code, 'E_USAGE');
});
