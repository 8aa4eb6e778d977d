// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import { isInsideDotGit, locateTarget, openStoreAt } from '../../src/store/locate';
import { agentWrite, runCli, runHook, writePayload, type HookRun } from '../helpers/cli';
import { baseEnv, lines, makeRepo, repoAt, tempDir, type Repo } from '../helpers/repo';

const data = (repo: Repo) => join(repo.home, 'data');
const refsIn = (gitDir: string, env: Record<string, string>) =>
  execFileSync('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)', 'refs/fettle'], { env })
    .toString()
    .split('\n')
    .filter((r) => !r.startsWith('refs/fettle/sessions/'))
    .join('\n')
    .trim();
const idOf = (r: HookRun) =>
  /Staged change ([0-9a-z]{8})/.exec(r.json?.hookSpecificOutput?.permissionDecisionReason ?? r.stdout)?.[1] ??
  assert.fail(`not staged: ${r.stdout}${r.stderr}`);
const stageBig = (file: string, cwd: string, env: Record<string, string>) =>
  idOf(runHook(writePayload({ file, content: lines(150, 'new'), cwd, toolUseId: `t-${Math.random()}` }), { cwd, env }));
const forbidden = (e: unknown) => e instanceof FettleError && e.code === 'E_FORBIDDEN_PATH';
const writeFile = (p: string, c: string) => writeFileSync(p, c);

// [path, inside .git?]
const dotGit: [string, boolean][] = [
  ['.git', true],
  ['.GIT', true],
  ['.Git/config', true],
  ['a/.git/b', true],
  ['/r/sub/.git/modules/x/HEAD', true],
  ['a\\.git\\b', true],
  ['.github/workflows/ci.yml', false],
  ['.gitignore', false],
  ['a/.gitmodules', false],
  ['x.git', false],
  ['.git-foo/bar', false],
  ['repo.git/HEAD', false],
  ['', false],
];
for (const [path, inside] of dotGit)
  test(`isInsideDotGit(${JSON.stringify(path)}) = ${inside}`, () => assert.equal(isInsideDotGit(path), inside));

test('ordinary repo: relative treePath, commonDir is .git, workTree the real top level', async () => {
  const repo = makeRepo({ 'src/a.ts': 'a' });
  const t = await locateTarget('a.ts', repo.path('src'), repo.env, data(repo));
  assert.deepEqual(
    [t.store.kind, t.store.commonDir, t.store.workTree, t.treePath, t.realPath],
    ['repo', join(repo.dir, '.git'), repo.dir, 'src/a.ts', repo.path('src/a.ts')],
  );
  assert.equal(t.store.objectFormat, 'sha1');
  assert.equal(t.store.zeroOid, '0'.repeat(40));
  assert.equal((await locateTarget(repo.path('new/dir/f.txt'), '/', repo.env, data(repo))).treePath, 'new/dir/f.txt');
  assert.equal((await locateTarget('../top.txt', repo.path('src'), repo.env, data(repo))).treePath, 'top.txt');
});

test('a symlinked directory on the way resolves to the real path', async () => {
  const repo = makeRepo({ 'real/f.txt': 'f' });
  symlinkSync('real', repo.path('alias'));
  const t = await locateTarget('alias/f.txt', repo.dir, repo.env, data(repo));
  assert.equal(t.treePath, 'real/f.txt');
});

test('paths in .git (directly, through a symlink, or as cwd) are E_FORBIDDEN_PATH', async () => {
  const repo = makeRepo({ 'f.txt': 'f' });
  symlinkSync('.git/config', repo.path('sneaky'));
  await assert.rejects(locateTarget('.git/config', repo.dir, repo.env, data(repo)), forbidden);
  await assert.rejects(locateTarget('sneaky', repo.dir, repo.env, data(repo)), forbidden);
  await assert.rejects(openStoreAt(repo.path('.git/refs'), repo.env, data(repo)), forbidden);
});

test('a file inside a bare repository is E_FORBIDDEN_PATH', async () => {
  const repo = makeRepo();
  const bare = join(repo.home, 'srv.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: repo.env });
  await assert.rejects(locateTarget('description', bare, repo.env, data(repo)), forbidden);
});

test('hook: a Write into .git passes through untouched and records nothing', () => {
  const repo = makeRepo({ 'f.txt': 'f' });
  const config = readFileSync(repo.path('.git/config'));
  const r = runHook(writePayload({ file: repo.path('.git/config'), content: 'x', cwd: repo.dir }), {
    cwd: repo.dir,
    env: repo.env,
  });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], 'no decision, no warning: Claude Code carries on');
  assert.ok(readFileSync(repo.path('.git/config')).equals(config));
  assert.equal(repo.git('for-each-ref', 'refs/fettle'), '');
});

test('linked worktree: located in the main repository common dir', async () => {
  const repo = makeRepo({ 'f.txt': 'f' });
  const wt = join(repo.home, 'wt');
  repo.git('worktree', 'add', '-q', wt);
  const t = await locateTarget('f.txt', wt, repo.env, data(repo));
  assert.deepEqual([t.store.commonDir, t.store.workTree, t.treePath], [join(repo.dir, '.git'), wt, 'f.txt']);
});

test('linked worktree: hook writes record refs and objects in the main common dir, none under .git/worktrees/<name>', () => {
  const repo = makeRepo({ 'f.txt': 'one\n', 'big.txt': lines(3) });
  const wt = join(repo.home, 'wt');
  repo.git('worktree', 'add', '-q', wt);
  const direct = agentWrite({ file: join(wt, 'f.txt'), content: 'two\n', cwd: wt }, repo.env, writeFile);
  assert.equal(direct.post?.code, 0, direct.post?.stderr);
  const id = stageBig(join(wt, 'big.txt'), wt, repo.env);
  const refs = repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle')
    .split('\n')
    .filter((r) => !r.startsWith('refs/fettle/sessions/'));
  assert.equal(refs.length, 2);
  assert.ok(refs.includes(`refs/fettle/${id}`));
  assert.equal(repo.git('cat-file', '-t', `refs/fettle/${id}`), 'commit');
  assert.equal(repo.git('show', `fettle/${id}:big.txt`), lines(150, 'new').trim());
  const perWorktree = join(repo.dir, '.git', 'worktrees', 'wt');
  const walk = (rel: string): string[] =>
    readdirSync(join(perWorktree, rel), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(rel, e.name)) : [join(rel, e.name)],
    );
  const files = walk('');
  assert.deepEqual(
    files.filter((p) => p.startsWith('refs') || /fettle/.test(p)),
    [],
  );
  assert.equal(runCli(['test', id, '--', 'true'], { cwd: wt, env: repo.env }).code, 0);
  assert.ok(
    existsSync(join(repo.dir, '.git', 'fettle', 'worktrees', 'session-session-1', 'big.txt')),
    "the session's test tree, made on first use, is in the main git dir",
  );
  assert.equal(runCli(['confirm', id], { cwd: wt, env: repo.env }).code, 0);
  assert.equal(readFileSync(join(wt, 'big.txt'), 'utf8'), lines(150, 'new'));
  assert.equal(repo.read('big.txt').toString(), lines(3));
});

test('unborn HEAD: staging works; the chain is before -> proposal with no other parent', () => {
  const repo = makeRepo({ 'big.txt': lines(2), 'other.txt': 'untracked too' }, { commit: false });
  const id = stageBig(repo.path('big.txt'), repo.dir, repo.env);
  const chain = repo.git('rev-list', `fettle/${id}`).split('\n');
  assert.equal(chain.length, 2);
  assert.equal(repo.git('rev-list', '--max-parents=0', `fettle/${id}`), repo.git('rev-parse', `fettle/${id}~1`));
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}~1`), /^Fettle-Kind: before$/m);
  assert.equal(repo.git('ls-tree', '-r', '--name-only', `fettle/${id}~1`), 'big.txt');
  const show = repo.git('show', `fettle/${id}`);
  assert.match(show, /^-line 1$/m);
  assert.match(show, /^\+new 150$/m);
  assert.throws(() => execFileSync('git', ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: repo.dir, env: repo.env }));
  const w = runCli(['write', 'other.txt'], { cwd: repo.dir, env: repo.env, input: 'changed' });
  assert.equal(w.code, 0, w.stderr);
  assert.equal(repo.read('other.txt').toString(), 'changed');
});

test('outside any repository: the private bare store under $XDG_DATA_HOME/fettle/store.git, confirm/discard with -C', async () => {
  const home = tempDir();
  const dir = join(home, 'plain');
  mkdirSync(dir);
  const env = { ...baseEnv(home), XDG_DATA_HOME: join(home, 'xdg') };
  const store = join(home, 'xdg', 'fettle', 'store.git');
  writeFileSync(join(dir, 'a.txt'), lines(2));
  writeFileSync(join(dir, 'b.txt'), lines(2));
  const t = await locateTarget('a.txt', dir, env, join(home, 'xdg', 'fettle'));
  assert.deepEqual(
    [t.store.kind, t.store.commonDir, t.store.workTree, t.treePath],
    ['private', store, '/', join(dir, 'a.txt').slice(1)],
  );
  const a = stageBig(join(dir, 'a.txt'), dir, env);
  const b = stageBig(join(dir, 'b.txt'), dir, env);
  assert.equal(
    execFileSync('git', ['--git-dir', store, 'rev-parse', '--is-bare-repository'], { env }).toString().trim(),
    'true',
  );
  assert.equal(refsIn(store, env), [`refs/fettle/${a}`, `refs/fettle/${b}`].sort().join('\n'));
  const elsewhere = tempDir();
  const confirm = runCli(['-C', dir, 'confirm', a], { cwd: elsewhere, env });
  assert.equal(confirm.code, 0, confirm.stderr);
  assert.equal(readFileSync(join(dir, 'a.txt'), 'utf8'), lines(150, 'new'));
  const discard = runCli(['-C', dir, 'discard', b], { cwd: elsewhere, env });
  assert.equal(discard.code, 0, discard.stderr);
  assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), lines(2));
  assert.equal(refsIn(store, env), `refs/fettle/${a}`);
  assert.equal(existsSync(join(dir, '.git')), false);
});

test('nested repository (not a submodule): recorded in the inner repo, the outer repo gets no refs/fettle', async () => {
  const outer = makeRepo({ 'top.txt': 'top' });
  const inner = repoAt(outer.path('inner'), outer.home);
  mkdirSync(inner.dir);
  inner.git('init', '-q', '-b', 'main');
  inner.write('f.txt', lines(2));
  inner.commit();
  const t = await locateTarget(outer.path('inner/f.txt'), outer.dir, outer.env, data(outer));
  assert.deepEqual([t.store.commonDir, t.treePath], [join(inner.dir, '.git'), 'f.txt']);
  const id = stageBig(inner.path('f.txt'), outer.dir, outer.env);
  assert.equal(inner.git('for-each-ref', '--format=%(refname)', 'refs/fettle'), `refs/fettle/${id}`);
  assert.equal(outer.git('for-each-ref', 'refs/fettle'), '');
});

test('submodule: recorded in the submodule repository (its gitdir under .git/modules/sub)', async () => {
  const lib = makeRepo({ 'f.txt': lines(2) });
  const app = makeRepo({ 'app.txt': 'app' });
  app.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib.dir, 'sub');
  app.commit('add sub');
  const modules = join(app.dir, '.git', 'modules', 'sub');
  const t = await locateTarget('sub/f.txt', app.dir, app.env, data(app));
  assert.deepEqual([t.store.commonDir, t.store.workTree, t.treePath], [modules, app.path('sub'), 'f.txt']);
  const direct = agentWrite({ file: app.path('sub/f.txt'), content: 'small\n', cwd: app.dir }, app.env, writeFile);
  assert.equal(direct.post?.code, 0, direct.post?.stderr);
  const id = stageBig(app.path('sub/f.txt'), app.dir, app.env);
  const refs = refsIn(modules, app.env).split('\n');
  assert.equal(refs.length, 2);
  assert.ok(refs.includes(`refs/fettle/${id}`));
  assert.equal(app.git('for-each-ref', 'refs/fettle'), '');
  assert.equal(lib.git('for-each-ref', 'refs/fettle'), '');
  assert.equal(runCli(['confirm', id], { cwd: app.path('sub'), env: app.env }).code, 0);
  assert.equal(app.read('sub/f.txt').toString(), lines(150, 'new'));
});

test('`fettle write` through a symlink records and writes the target; the link stays a link', () => {
  const repo = makeRepo({ 'target.txt': lines(20) });
  symlinkSync('target.txt', repo.path('link.txt'));
  repo.commit('link');
  const next = lines(20).replace('line 3\n', 'changed\n');
  const r = runCli(['write', 'link.txt'], { cwd: repo.dir, env: repo.env, input: next });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(repo.path('link.txt')).isSymbolicLink());
  assert.equal(readlinkSync(repo.path('link.txt')), 'target.txt');
  assert.equal(repo.read('target.txt').toString(), next);
  const id = /as ([0-9a-z]{8})/.exec(r.stdout)?.[1] ?? assert.fail(r.stdout);
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}`), /^Fettle-Path: target\.txt$/m);
  assert.equal(repo.git('diff', '--name-only', `fettle/${id}~1`, `fettle/${id}`), 'target.txt');
  assert.equal(repo.git('cat-file', '-p', `fettle/${id}:link.txt`), 'target.txt');
});

test('`fettle write` through a dangling symlink creates the target; the link stays a link', () => {
  const repo = makeRepo({ 'keep.txt': 'k' });
  mkdirSync(repo.path('d'));
  symlinkSync('d/created.txt', repo.path('link'));
  const r = runCli(['write', 'link'], { cwd: repo.dir, env: repo.env, input: 'hello\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(repo.path('link')).isSymbolicLink());
  assert.equal(repo.read('d/created.txt').toString(), 'hello\n');
});

test('outside any repository: eight first writers at once all get the one private store', async () => {
  const home = tempDir();
  const dir = join(home, 'plain');
  mkdirSync(dir);
  const env = baseEnv(home);
  const dataDir = join(home, 'data');
  const stores = await Promise.all(Array.from({ length: 8 }, () => openStoreAt(dir, env, dataDir)));
  assert.deepEqual(
    new Set(stores.map((s) => [s.kind, s.commonDir].join(' '))),
    new Set([`private ${join(dataDir, 'store.git')}`]),
  );
  assert.equal(
    execFileSync('git', ['--git-dir', join(dataDir, 'store.git'), 'rev-parse', '--is-bare-repository'], { env })
      .toString()
      .trim(),
    'true',
  );
  assert.deepEqual(readdirSync(dataDir), ['store.git'], 'no initialisation directory left behind');
});
