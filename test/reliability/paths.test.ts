// B.5 rows 9, 13, 14: where a write may land. Paths inside any repository's git dir (every spelling, nested
// repositories, linked-worktree and separate gitdirs, fettle's own worktrees, symlinks into .git) are never
// written by fettle; traversal and symlinks leaving the repository are recorded in the store that owns the
// real path; a symlink or a parent directory swapped between fettle's check and its write must not redirect
// the write into .git.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { writePayload } from '../helpers/cli';
import type { Repo } from '../helpers/repo';
import {
  agentWrite,
  count,
  repoWith,
  reportAs,
  scenario,
  show,
  spawnArgv,
  spawnFettle,
  text,
  type SpawnOpts,
} from './harness';
import { blobId, checkInvariants, expectOutcome, fettleRefs, userState } from './invariants';

reportAs('paths');

const fettle = (repo: Repo, args: string[], o: Partial<SpawnOpts> = {}) =>
  spawnFettle(args, { cwd: repo.dir, env: repo.env, ...o });

const fixture = (): Repo => {
  const repo = repoWith({ 'a.txt': text(20, 'a'), 'sub/keep.txt': 'keep\n', 'nested/n.txt': 'n\n' });
  repo.git('init', '-q', join(repo.dir, 'nested'));
  repo.git('worktree', 'add', '-q', '--detach', join(repo.home, 'wt2'));
  repo.git('init', '-q', `--separate-git-dir=${join(repo.home, 'sep.git')}`, join(repo.home, 'sep'));
  repo.git('init', '-q', '--bare', join(repo.home, 'bare.git'));
  symlinkSync('.git/config', repo.path('cfg-link'));
  symlinkSync('.git/hooks', repo.path('hooks-link'));
  symlinkSync('.git', repo.path('dotgit-link'));
  return repo;
};

/** Every way of naming a file inside some git dir. */
const GIT_PATHS: [string, (r: Repo) => string][] = [
  ['.git/config', (r) => r.path('.git/config')],
  ['.git/HEAD', (r) => r.path('.git/HEAD')],
  ['.git/hooks/pre-commit (new)', (r) => r.path('.git/hooks/pre-commit')],
  ['.GIT/config (case variant)', (r) => r.path('.GIT/config')],
  ['.Git/info/exclude (case variant)', (r) => r.path('.Git/info/exclude')],
  ['sub/../.git/config (traversal into .git)', (r) => r.path('sub/../.git/config')],
  ["a nested repository's .git/config", (r) => r.path('nested/.git/config')],
  ["a linked worktree's .git file", (r) => join(r.home, 'wt2', '.git')],
  ["a linked worktree's gitdir (.git/worktrees/wt2/HEAD)", (r) => r.path('.git/worktrees/wt2/HEAD')],
  ['a separate git dir (sep.git/config)', (r) => join(r.home, 'sep.git', 'config')],
  ['a bare repository (bare.git/config)', (r) => join(r.home, 'bare.git', 'config')],
  ['a symlink to .git/config', (r) => r.path('cfg-link')],
  ['a new file under a symlink to .git/hooks', (r) => r.path('hooks-link/post-checkout')],
  ['a file under a symlink to .git', (r) => r.path('dotgit-link/description')],
  [
    "fettle's own hidden worktree",
    (r) => {
      const dir = r.path('.git/fettle/worktrees');
      const id = existsSync(dir) ? readdirSync(dir)[0] : undefined;
      assert.ok(id, 'a hidden worktree exists');
      return join(dir, id, 'a.txt');
    },
  ],
];

const snapshot = (file: string) => (existsSync(file) ? readFileSync(file) : null);

scenario(
  'paths inside any git dir: the hook passes them through untouched, `fettle write` refuses them',
  undefined,
  async () => {
    const repo = fixture();
    // A staged change with its hidden worktree (made on first use by `fettle test`).
    const staged = await fettle(repo, ['write', 'a.txt'], { input: text(20, 'staged') });
    expectOutcome(staged, { exit: [3] });
    const id = /Staged change (\w+)/.exec(staged.stdout)?.[1] ?? '';
    expectOutcome(await fettle(repo, ['test', id, '--', 'true']), { exit: [0] });
    const before = userState(repo);
    const refs = fettleRefs(repo).length;
    for (const [label, pathOf] of GIT_PATHS) {
      const file = pathOf(repo);
      const was = snapshot(file);
      const pre = await agentWrite({ file, content: 'pwned\n', cwd: repo.dir }, repo.env, {}, {});
      count('pathCases');
      // Passing through means Claude Code decides; the harness host would write now, so undo that first.
      if (pre.written) was ? writeFileSync(file, was) : rmSync(file, { force: true });
      expectOutcome(pre.pre, { exit: [0], hook: true });
      assert.equal(pre.pre.stdout, '', `${label}: no decision, no message`);
      const w = await fettle(repo, ['write', file], { input: 'pwned\n' });
      expectOutcome(w, { exit: [1] });
      assert.match(w.stderr, /git dir|\.git/i, `${label}: ${show(w)}`);
      assert.deepEqual(snapshot(file), was, `${label}: fettle never wrote it`);
      assert.equal(fettleRefs(repo).length, refs, `${label}: nothing recorded`);
    }
    checkInvariants(repo, before, { litter: 'none' });
  },
);

scenario(
  'a file in a nested repository is recorded in that repository, never in the outer one',
  undefined,
  async () => {
    const repo = fixture();
    const nested = repo.path('nested');
    const old = readFileSync(repo.path('nested/n.txt'));
    const before = userState(repo);
    const run = await agentWrite({ file: repo.path('nested/n.txt'), content: 'n changed\n', cwd: repo.dir }, repo.env);
    expectOutcome(run.pre, { exit: [0], hook: true });
    count('pathCases');
    assert.equal(fettleRefs(repo).length, 0, 'the outer repository recorded nothing');
    const inner = await spawnArgv(['git', 'rev-list', '--objects', '--glob=refs/fettle/*'], {
      cwd: nested,
      env: repo.env,
    });
    assert.ok(inner.stdout.includes(blobId(old)), 'the nested repository holds the previous bytes');
    const trees = await spawnArgv(
      ['sh', '-c', 'for r in $(git for-each-ref --format="%(objectname)" refs/fettle/); do git ls-tree -r "$r"; done'],
      { cwd: nested, env: repo.env },
    );
    assert.doesNotMatch(trees.stdout, /^160000/m, "no gitlink in fettle's trees");
    checkInvariants(repo, before, { litter: 'none' });
  },
);

scenario(
  'traversal out of the repository: recorded in the private store, the repository untouched',
  undefined,
  async () => {
    const repo = fixture();
    const outside = join(repo.home, 'outside.txt');
    writeFileSync(outside, 'outside before\n');
    const before = userState(repo);
    for (const spelled of ['../outside.txt', 'sub/../../outside.txt', outside]) {
      const old = readFileSync(outside);
      const w = await fettle(repo, ['write', spelled], { input: `written via ${spelled}\n` });
      count('pathCases');
      expectOutcome(w, { exit: [0] });
      assert.match(w.stdout, / -C /, 'the undo command names the directory of the private store');
      const store = join(repo.env.XDG_DATA_HOME ?? '', 'fettle', 'store.git');
      const objects = await spawnArgv(['git', '--git-dir', store, 'rev-list', '--objects', '--glob=refs/fettle/*'], {
        cwd: repo.home,
        env: repo.env,
      });
      assert.ok(objects.stdout.includes(blobId(old)), `${spelled}: the previous bytes are in the private store`);
    }
    assert.equal(fettleRefs(repo).length, 0, 'the repository got no record of a file outside it');
    checkInvariants(repo, before, { litter: 'none' });
  },
);

scenario(
  'a symlink leaving the repository: the target is written, the link stays a link, the previous bytes kept',
  undefined,
  async () => {
    const repo = fixture();
    const target = join(repo.home, 'target.txt');
    writeFileSync(target, 'target before\n');
    symlinkSync(target, repo.path('out-link'));
    const before = userState(repo);
    const run = await agentWrite(
      { file: repo.path('out-link'), content: 'through the link\n', cwd: repo.dir },
      repo.env,
    );
    expectOutcome(run.pre, { exit: [0], hook: true });
    const w = await fettle(repo, ['write', 'out-link'], { input: 'again through the link\n' });
    expectOutcome(w, { exit: [0] });
    assert.equal(readFileSync(target, 'utf8'), 'again through the link\n');
    assert.ok(lstatSync(repo.path('out-link')).isSymbolicLink());
    checkInvariants(repo, before, { litter: 'none' });
  },
);

scenario(
  'a symlink loop and a dangling symlink: a clean error, or the target created; never a crash',
  undefined,
  async () => {
    const repo = fixture();
    symlinkSync('loop-b', repo.path('loop-a'));
    symlinkSync('loop-a', repo.path('loop-b'));
    symlinkSync('missing.txt', repo.path('dangling'));
    const before = userState(repo);
    expectOutcome(await fettle(repo, ['write', 'loop-a'], { input: 'x\n' }), { exit: [1] });
    const pre = await agentWrite({ file: repo.path('loop-a'), content: 'x\n', cwd: repo.dir }, repo.env);
    expectOutcome(pre.pre, { exit: [0, 2], hook: true });
    expectOutcome(await fettle(repo, ['write', 'dangling'], { input: 'created\n' }), { exit: [0] });
    assert.equal(readFileSync(repo.path('missing.txt'), 'utf8'), 'created\n');
    count('pathCases', 3);
    checkInvariants(repo, before, { litter: 'none' });
  },
);

// ---- TOCTOU: swap a link or a directory while fettle sleeps between its check and its write ----

const swapDuring = async (repo: Repo, args: string[], failpoint: string, input: string, swap: () => void) => {
  const run = fettle(repo, args, { input, failpoints: `${failpoint}=sleep:1200` });
  await new Promise((r) => setTimeout(r, 600));
  swap();
  count('pathCases');
  return run;
};

scenario(
  'a symlink retargeted at .git/config between the check and the write: .git/config untouched',
  undefined,
  async () => {
    const repo = fixture();
    writeFileSync(repo.path('b.txt'), 'b\n');
    symlinkSync('b.txt', repo.path('link'));
    const config = readFileSync(repo.path('.git/config'));
    const r = await swapDuring(repo, ['write', 'link'], 'write.recorded', 'b changed\n', () => {
      rmSync(repo.path('link'));
      symlinkSync('.git/config', repo.path('link'));
    });
    expectOutcome(r, { exit: [0, 1, 5] });
    assert.deepEqual(readFileSync(repo.path('.git/config')), config, show(r));
  },
);

for (const [cmd, point] of [
  ['write', 'write.recorded'],
  ['confirm', 'confirm.locked'],
] as const) {
  scenario(
    `a parent directory swapped for a symlink into .git during \`fettle ${cmd}\`: nothing lands in .git`,
    undefined,
    async () => {
      const repo = fixture();
      mkdirSync(repo.path('dir'));
      let args: string[] = ['write', 'dir/new-hook'];
      let victim = repo.path('.git/hooks/new-hook');
      if (cmd === 'confirm') {
        // The same bytes on both sides of the swap, so only the path can tell them apart.
        repo.write('dir/f.txt', text(20, 'f'));
        repo.write('.git/hooks/f.txt', text(20, 'f'));
        victim = repo.path('.git/hooks/f.txt');
        const staged = await fettle(repo, ['write', 'dir/f.txt'], { input: text(20, 'proposed') });
        args = ['confirm', /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1] ?? assert.fail(show(staged))];
      }
      const was = snapshot(victim);
      const r = await swapDuring(repo, args, point, '#!/bin/sh\necho pwned\n', () => {
        renameSync(repo.path('dir'), repo.path('dir.moved'));
        symlinkSync('.git/hooks', repo.path('dir'));
      });
      expectOutcome(r, { exit: [0, 1, 5] });
      assert.deepEqual(snapshot(victim), was, `fettle wrote into .git/hooks: ${show(r)}`);
    },
  );
}

// ---- FIFOs and devices: never opened in a way that waits ----

scenario('a FIFO or a device never hangs write, read or a PostToolUse; no lock is left held', undefined, async () => {
  const repo = repoWith({ 'a.txt': text(20, 'old') });
  spawnSync('mkfifo', [repo.path('pipe')]);
  const quick = { killAfterMs: 10_000 };
  const run = (args: string[], input?: string) => spawnFettle(args, { cwd: repo.dir, env: repo.env, input, ...quick });
  for (const [args, input] of [
    [['write', 'pipe'], 'x\n'],
    [['read', 'pipe']],
    [['read', '/dev/zero', '--limit', '1']],
  ] as [string[], string?][]) {
    const r = await run(args, input);
    count('pathCases');
    assert.equal(r.killed, false, `fettle ${args.join(' ')} hung`);
    expectOutcome(r, { exit: [1] });
    assert.match(r.stderr, /is not a regular file \((a named pipe|a device)\)/, show(r));
  }
  assert.deepEqual(
    existsSync(join(repo.dir, '.git', 'fettle', 'locks')) ? readdirSync(join(repo.dir, '.git', 'fettle', 'locks')) : [],
    [],
  );
  // The tool wrote a.txt, then something replaced it with a FIFO before PostToolUse looked.
  const payload = (event: 'PreToolUse' | 'PostToolUse') =>
    JSON.stringify(writePayload({ file: repo.path('a.txt'), content: text(20, 'new'), cwd: repo.dir, event }));
  expectOutcome(await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: payload('PreToolUse') }), {
    exit: [0],
    hook: true,
  });
  rmSync(repo.path('a.txt'));
  spawnSync('mkfifo', [repo.path('a.txt')]);
  const post = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: payload('PostToolUse'), ...quick });
  assert.equal(post.killed, false, 'PostToolUse hung on a FIFO');
  expectOutcome(post, { exit: [0, 1], hook: true });
});
