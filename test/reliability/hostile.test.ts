// B.5 rows 2, 16-18: an environment that works against fettle. Locks left by dead processes (taken over) and
// held by live ones (never), the user's own index.lock, hostile git config and hooks, GIT_DIR and friends
// exported for another repository, and clocks that jump (FETTLE_NOW, faketime).
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePayload } from '../helpers/cli';
import type { Repo } from '../helpers/repo';
import {
  agentWrite,
  count,
  have,
  repoWith,
  reportAs,
  scenario,
  show,
  spawnFettle,
  text,
  type SpawnOpts,
} from './harness';
import { checkInvariants, expectOutcome, fettleRefs, track, userState } from './invariants';

reportAs('hostile');

const OLD = text(40, 'old');
const SMALL = OLD.replace('old 1\n', 'old 1 changed\n');
const LARGE = text(40, 'large');
const T0 = 1_750_000_000;

const fresh = (): Repo => {
  const repo = repoWith({ 'a.txt': text(40, 'head') });
  repo.write('a.txt', OLD);
  return repo;
};
const fettle = (repo: Repo, args: string[], o: Partial<SpawnOpts> = {}) =>
  spawnFettle(args, { cwd: repo.dir, env: repo.env, ...o });
const stagedId = (stdout: string): string => /Staged change ([0-9a-z]{8})/.exec(stdout)?.[1] ?? assert.fail(stdout);
const lockOf = (repo: Repo, path: string): string =>
  join(repo.dir, '.git', 'fettle', 'locks', `${createHash('sha1').update(path).digest('hex').slice(0, 20)}.lock`);
const placeLock = (repo: Repo, content: string): string => {
  const lock = lockOf(repo, 'a.txt');
  mkdirSync(join(lock, '..'), { recursive: true });
  writeFileSync(lock, content);
  return lock;
};

/**
 * The standard sequence every hostile setting must survive: a direct Write through the hook, a staged
 * `fettle write` and its confirm, then a rollback of the direct write. Every step exits as it would at home.
 */
const sequence = async (repo: Repo, o: Partial<SpawnOpts> = {}): Promise<void> => {
  const env = { ...repo.env, ...o.env };
  const direct = await agentWrite(
    { file: repo.path('a.txt'), content: SMALL, cwd: repo.dir, toolUseId: 'toolu_h1' },
    env,
  );
  expectOutcome(direct.pre, { exit: [0], hook: true });
  assert.ok(direct.post && direct.written, show(direct.pre));
  expectOutcome(direct.post, { exit: [0], hook: true });
  const directId = /\brollback ([0-9a-z]{8})\b/.exec(direct.post.stdout)?.[1] ?? assert.fail(show(direct.post));
  const staged = await fettle(repo, ['write', 'a.txt'], { ...o, env, input: LARGE });
  expectOutcome(staged, { exit: [3] });
  expectOutcome(await fettle(repo, ['confirm', stagedId(staged.stdout)], { ...o, env }), { exit: [0] });
  const back = await fettle(repo, ['rollback', directId, '--force'], { ...o, env });
  expectOutcome(back, { exit: [0] });
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), OLD, 'rolled back to the bytes before the first write');
  count('sequences');
};

/** Runs the sequence and checks every invariant; the contents it replaced are owed. */
const survives = async (repo: Repo, o: Partial<SpawnOpts> = {}, allowLocks: string[] = []): Promise<void> => {
  const before = userState(repo);
  await sequence(repo, o);
  checkInvariants(repo, before, { owed: [OLD, SMALL, LARGE].map((s) => Buffer.from(s)), litter: 'none', allowLocks });
};

// ---- locks (rows 2 and 18) ----

scenario('a file lock left by a dead process is taken over', undefined, async () => {
  const repo = fresh();
  const dead = spawnSync('true').pid;
  placeLock(repo, `${dead}\n`);
  await survives(repo);
});

scenario(
  'a file lock held by a live process is never taken: E_LOCKED naming the lock, nothing written',
  undefined,
  async () => {
    const repo = fresh();
    const holder = spawn('sleep', ['60']);
    try {
      const lock = placeLock(repo, `${holder.pid}\n`);
      const before = userState(repo);
      const file = track(repo.path('a.txt'), []);
      const r = await fettle(repo, ['write', 'a.txt'], { input: SMALL });
      expectOutcome(r, { exit: [1] });
      assert.ok(r.stderr.includes(lock), show(r));
      assert.equal(readFileSync(lock, 'utf8'), `${holder.pid}\n`, 'the live holder keeps its lock');
      rmSync(lock);
      checkInvariants(repo, before, { files: [file], litter: 'none' });
    } finally {
      holder.kill('SIGKILL');
    }
  },
);

scenario('a file lock a live process releases after a second: the write waits and succeeds', undefined, async () => {
  const repo = fresh();
  const holder = spawn('sleep', ['60']);
  const lock = placeLock(repo, `${holder.pid}\n`);
  setTimeout(() => {
    rmSync(lock);
    holder.kill('SIGKILL');
  }, 1000);
  await survives(repo);
});

scenario(
  'an empty file lock (its creator was killed before writing its pid) is taken over once it is old',
  undefined,
  async () => {
    const repo = fresh();
    const lock = placeLock(repo, '');
    const old = new Date(Date.now() - 3600_000);
    utimesSync(lock, old, old);
    await survives(repo);
  },
);

scenario(
  'a held ref lock during confirm: confirm waits for it, or fails without writing the file',
  undefined,
  async () => {
    const repo = fresh();
    const id = stagedId((await fettle(repo, ['write', 'a.txt'], { input: LARGE })).stdout);
    const lock = join(repo.dir, '.git', 'refs', 'fettle', `${id}.lock`);
    writeFileSync(lock, '');
    setTimeout(() => rmSync(lock, { force: true }), 1000);
    const r = await fettle(repo, ['confirm', id]);
    expectOutcome(r, { exit: [0, 1, 5] });
    const now = readFileSync(repo.path('a.txt'), 'utf8');
    assert.equal(now, r.code === 0 ? LARGE : OLD, `file after confirm exit ${r.code}: ${show(r)}`);
  },
);

scenario('the user holds .git/index.lock: fettle never needs it and leaves it alone', undefined, async () => {
  const repo = fresh();
  writeFileSync(join(repo.dir, '.git', 'index.lock'), "the user's\n");
  await survives(repo, {}, ['index.lock']);
  assert.equal(readFileSync(join(repo.dir, '.git', 'index.lock'), 'utf8'), "the user's\n");
});

// ---- hostile configuration and hooks (row 16) ----

/** Hook scripts that fail and leave a mark, so a hook that ran at all is seen. */
const HOOKS = [
  'pre-commit',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
  'post-rewrite',
];
const plantHooks = (dir: string, mark: string): void => {
  mkdirSync(dir, { recursive: true });
  for (const h of HOOKS) {
    writeFileSync(join(dir, h), `#!/bin/sh\necho "${h}" >> '${mark}'\nexit 1\n`);
    chmodSync(join(dir, h), 0o755);
  }
};

const HOSTILE: [string, (repo: Repo, mark: string) => void][] = [
  [
    'commit.gpgSign with a failing gpg',
    (r) => (r.git('config', 'commit.gpgSign', 'true'), r.git('config', 'gpg.program', 'false')),
  ],
  ['failing hooks in .git/hooks', (r, mark) => plantHooks(join(r.dir, '.git', 'hooks'), mark)],
  [
    'core.hooksPath to failing hooks',
    (r, mark) => (plantHooks(join(r.home, 'hooks'), mark), r.git('config', 'core.hooksPath', join(r.home, 'hooks'))),
  ],
  [
    'a failing core.fsmonitor hook',
    (r, mark) => r.git('config', 'core.fsmonitor', `echo fsmonitor >> '${mark}'; false`),
  ],
  [
    'failing clean/smudge filters and CRLF conversion on every file',
    (r) => {
      r.write('.gitattributes', '* filter=evil text eol=crlf\n');
      r.git('config', 'filter.evil.clean', 'false');
      r.git('config', 'filter.evil.smudge', 'false');
      r.git('config', 'filter.evil.required', 'true');
      r.git('config', 'core.autocrlf', 'true');
    },
  ],
  [
    'user.useConfigOnly with no identity',
    (r) => (r.git('config', 'user.useConfigOnly', 'true'), r.git('config', '--unset-all', 'user.email').length),
  ],
  [
    'gc.auto=1 with a failing pre-auto-gc hook',
    (r, mark) => (r.git('config', 'gc.auto', '1'), plantHooks(join(r.dir, '.git', 'hooks'), mark)),
  ],
  [
    'core.logAllRefUpdates=always and an editor that fails',
    (r) => (r.git('config', 'core.logAllRefUpdates', 'always'), r.git('config', 'core.editor', 'false')),
  ],
];

for (const [label, setup] of HOSTILE) {
  scenario(`hostile config: ${label}`, undefined, async () => {
    const repo = fresh();
    const mark = join(repo.home, 'hook-ran');
    try {
      setup(repo, mark);
    } catch {
      // a setting that is not there to unset
    }
    count('faults');
    await survives(repo);
    assert.equal(existsSync(mark) ? readFileSync(mark, 'utf8') : '', '', 'no hook of the user ran for fettle');
  });
}

scenario(
  'GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and GIT_OBJECT_DIRECTORY exported for another repository are ignored',
  undefined,
  async () => {
    const repo = fresh();
    const other = repoWith({ 'x.txt': 'other\n' });
    const otherState = () => [userState(other), other.git('count-objects', '-v'), other.git('for-each-ref')].join('\n');
    const before = otherState();
    const gitDir = join(other.dir, '.git');
    count('faults');
    await survives(repo, {
      env: {
        GIT_DIR: gitDir,
        GIT_WORK_TREE: other.dir,
        GIT_INDEX_FILE: join(gitDir, 'index'),
        GIT_OBJECT_DIRECTORY: join(gitDir, 'objects'),
        GIT_COMMON_DIR: gitDir,
      },
    });
    assert.equal(otherState(), before, 'the other repository gained no objects, refs or index changes');
  },
);

// ---- clocks (row 17): FETTLE_NOW pins fettle's clock; faketime moves the whole process's ----

const at = (t: number) => ({ env: { FETTLE_NOW: String(t) } as Record<string, string> });
const withEnv = (repo: Repo, o: { env: Record<string, string> }) => ({ env: { ...repo.env, ...o.env } });

scenario(
  'clock jumps back a day after staging: the change is still pending and confirm applies it',
  undefined,
  async () => {
    const repo = fresh();
    const id = stagedId((await fettle(repo, ['write', 'a.txt'], { input: LARGE, ...withEnv(repo, at(T0)) })).stdout);
    expectOutcome(await fettle(repo, ['confirm', id], withEnv(repo, at(T0 - 86_400))), { exit: [0] });
    assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), LARGE);
  },
);

scenario(
  'clock jumps a year ahead: confirm says expired, writes nothing, the proposal stays readable',
  undefined,
  async () => {
    const repo = fresh();
    const before = userState(repo);
    const file = track(repo.path('a.txt'), []);
    const id = stagedId((await fettle(repo, ['write', 'a.txt'], { input: LARGE, ...withEnv(repo, at(T0)) })).stdout);
    const r = await fettle(repo, ['confirm', id, '--json'], withEnv(repo, at(T0 + 365 * 86_400)));
    expectOutcome(r, { exit: [1] });
    assert.equal(
      (JSON.parse(r.stdout.split('\n')[0] ?? '{}') as { error?: { code?: string } }).error?.code,
      'E_EXPIRED',
    );
    checkInvariants(repo, before, { files: [file], owed: [Buffer.from(LARGE)], litter: 'none' });
  },
);

scenario(
  'clock jumps a year ahead, then a write runs retention: an unconfirmed staged change is not deleted',
  undefined,
  async () => {
    const repo = fresh();
    repo.write('b.txt', 'b\n');
    const before = userState(repo);
    expectOutcome(await fettle(repo, ['write', 'a.txt'], { input: LARGE, ...withEnv(repo, at(T0)) }), { exit: [3] });
    expectOutcome(await fettle(repo, ['write', 'b.txt'], { input: 'b2\n', ...withEnv(repo, at(T0 + 400 * 86_400)) }), {
      exit: [0],
    });
    checkInvariants(repo, before, { owed: [Buffer.from(LARGE)], litter: 'none' });
  },
);

scenario(
  'faketime: a year ahead, status lists the staged change as expired; a live lock is still not taken',
  undefined,
  async (t) => {
    if (!have('faketime')) return t.skip('needs faketime (Debian faketime)');
    const repo = fresh();
    await fettle(repo, ['write', 'a.txt'], { input: LARGE });
    const wrap = ['faketime', '-f', '+365d'];
    const s = await fettle(repo, ['status', '--json'], { wrap });
    expectOutcome(s, { exit: [0] });
    assert.deepEqual(
      (JSON.parse(s.stdout) as { pending: { state: string }[] }).pending.map((p) => p.state),
      ['expired'],
    );
    const holder = spawn('sleep', ['60']);
    try {
      placeLock(repo, `${holder.pid}\n`);
      expectOutcome(await fettle(repo, ['write', 'a.txt'], { input: SMALL, wrap }), { exit: [1] });
      assert.equal(fettleRefs(repo).length, 1, 'nothing recorded');
    } finally {
      holder.kill('SIGKILL');
    }
  },
);

// ---- pseudo-filesystems: live kernel state is not content to record ----

scenario('a write to /proc, /sys or /dev is passed through and nothing of it is stored', undefined, async () => {
  const repo = fresh();
  const secret = `fettle-secret-${process.pid}`;
  const env = { ...repo.env, FETTLE_TEST_SECRET: secret };
  for (const file of ['/proc/self/environ', '/sys/kernel/profiling', '/dev/null', '/proc/self/nonexistent']) {
    // Only the PreToolUse: the host's write itself would change kernel state.
    const payload = writePayload({ file, content: 'x\n', cwd: repo.dir });
    const pre = await fettle(repo, ['hook'], { env, input: JSON.stringify(payload) });
    count('pseudoFiles');
    expectOutcome(pre, { exit: [0], hook: true });
    assert.equal(pre.stdout, '', `no decision and no note\n${show(pre)}`);
    const direct = await fettle(repo, ['write', file], { env, input: 'x\n' });
    expectOutcome(direct, { exit: [1] });
    assert.match(direct.stderr, /pseudo-filesystem .*fettle does not record it/, show(direct));
  }
  // Neither the repository's store nor the private one (files outside a repository) holds anything of them.
  assert.deepEqual(fettleRefs(repo), []);
  const store = join(repo.home, '.data', 'fettle', 'store.git');
  if (existsSync(store)) {
    const refs = spawnSync('git', ['for-each-ref', 'refs/fettle/'], { cwd: store, encoding: 'utf8' }).stdout;
    assert.equal(refs, '', 'the private store recorded a pseudo-file');
  }
});

// ---- planted refs: records under refs/fettle/ that fettle did not write ----

/** Copies the staged change `id` under a new id whose record says the file is `file`. */
const plant = (repo: Repo, id: string, file: string, planted = 'plantedx'): string => {
  const git = (args: string[], input?: string) =>
    spawnSync('git', args, { cwd: repo.dir, input, encoding: 'utf8', env: repo.env }).stdout.trim();
  const tip = git(['rev-parse', `refs/fettle/${id}`]);
  const message = git(['cat-file', 'commit', tip]).split('\n\n').slice(1).join('\n\n');
  const forged = message
    .replace(/^Fettle-Id: .*$/m, `Fettle-Id: ${planted}`)
    .replace(/^Fettle-File: .*$/m, `Fettle-File: ${file}`);
  const commit = git(['commit-tree', git(['rev-parse', `${tip}^{tree}`]), '-p', `${tip}^`], forged);
  git(['update-ref', `refs/fettle/${planted}`, commit]);
  return planted;
};

scenario(
  'a planted ref whose record points outside the work tree is refused by confirm and rollback',
  undefined,
  async () => {
    const repo = fresh();
    const outside = join(repo.home, 'outside');
    mkdirSync(outside, { recursive: true });
    const bare = join(repo.home, 'bare.git');
    spawnSync('git', ['init', '-q', '--bare', bare]);
    const staged = await fettle(repo, ['write', 'a.txt'], { input: LARGE });
    const id = stagedId(staged.stdout);
    for (const target of [join(outside, 'a.txt'), join(bare, 'hooks', 'pre-push'), `${repo.dir}/../a.txt`]) {
      const planted = plant(repo, id, target);
      const before = userState(repo);
      const r = await fettle(repo, ['confirm', planted]);
      count('plantedRefs');
      expectOutcome(r, { exit: [1] });
      assert.match(r.stderr, /fettle does not act on it/, show(r));
      assert.equal(existsSync(target), false, `confirm wrote ${target}`);
      const back = await fettle(repo, ['rollback', planted]); // refused: untrusted, or never written
      expectOutcome(back, { exit: [1, 2] });
      assert.equal(existsSync(target), false, `rollback wrote ${target}`);
      spawnSync('git', ['update-ref', '-d', `refs/fettle/${planted}`], { cwd: repo.dir });
      checkInvariants(repo, before, { files: [], litter: 'none' });
    }
    // A record whose id is not its ref's is not a change of this repository at all.
    const renamed = plant(repo, id, repo.path('a.txt'), 'othernam');
    spawnSync('git', ['update-ref', 'refs/fettle/copiedxx', `refs/fettle/${renamed}`], { cwd: repo.dir });
    const copied = await fettle(repo, ['confirm', 'copiedxx']);
    expectOutcome(copied, { exit: [1] });
    assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), OLD, show(copied));
    // The genuine change still applies.
    expectOutcome(await fettle(repo, ['confirm', id]), { exit: [0] });
    assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), LARGE);
  },
);

scenario('a remote whose push URL starts with "-" is refused, never run as a git option', undefined, async () => {
  const repo = fresh();
  const marker = join(repo.home, 'pwned');
  spawnSync('git', ['remote', 'add', 'evil', '--', `--receive-pack=touch ${marker}`], { cwd: repo.dir });
  const id = stagedId((await fettle(repo, ['write', 'a.txt'], { input: LARGE })).stdout);
  const r = await fettle(repo, ['review', id, '--push', 'evil']);
  count('faults');
  expectOutcome(r, { exit: [1, 2] });
  assert.match(r.stderr, /would read as an option/, show(r));
  assert.equal(existsSync(marker), false, 'git ran the command the URL named');
});

scenario('a clock before 1970 is refused: nothing is dated before git can record it', undefined, async (t) => {
  const repo = fresh();
  const before = userState(repo);
  const file = track(repo.path('a.txt'), []);
  const pinned = await fettle(repo, ['write', 'a.txt'], { input: SMALL, env: { ...repo.env, FETTLE_NOW: '-5' } });
  count('faults');
  expectOutcome(pinned, { exit: [2] });
  assert.match(pinned.stderr, /FETTLE_NOW must be epoch seconds or an ISO date from 1970 on, got '-5'/);
  if (!have('faketime')) return t.skip('needs faketime for the system clock');
  const wrap = ['faketime', '1960-01-01 00:00:00'];
  const hook = await agentWrite({ file: repo.path('a.txt'), content: SMALL, cwd: repo.dir }, repo.env, { wrap });
  expectOutcome(hook.pre, { exit: [2], hook: true });
  assert.match(hook.pre.stderr, /the system clock says 1960-.*before 1970/, show(hook.pre));
  checkInvariants(repo, before, { files: [file], litter: 'none' });
  const log = await fettle(repo, ['log']);
  assert.doesNotMatch(log.stdout, /NaN/);
});

scenario(
  'rollback of a foreign commit carrying fettle trailers says what is wrong, not "internal error"',
  undefined,
  async () => {
    const repo = fresh();
    const git = (args: string[], input?: string) =>
      spawnSync('git', args, { cwd: repo.dir, input, encoding: 'utf8', env: repo.env }).stdout.trim();
    const trailers = `x\n\nFettle-Id: abcdefgh\nFettle-Kind: after\nFettle-Tier: direct\nFettle-Path: a.txt\nFettle-File: ${repo.path('a.txt')}\n`;
    const tree = git(['rev-parse', 'HEAD^{tree}']);
    for (const parents of [['-p', 'HEAD'], []]) {
      const commit = git(['commit-tree', tree, ...parents], trailers);
      const before = userState(repo);
      for (const command of [
        ['rollback', commit],
        ['show', commit],
      ]) {
        const r = await fettle(repo, command);
        count('faults');
        expectOutcome(r, { exit: [1] });
        assert.doesNotMatch(r.stderr, /internal error/, show(r));
        assert.match(r.stderr, /fettle did not write this history/, show(r));
      }
      checkInvariants(repo, before, { files: [], litter: 'none' });
    }
  },
);

// ---- repository shapes: core.bare=true with files beside it, and core.worktree elsewhere ----

scenario(
  'core.bare=true or core.worktree elsewhere: files beside the git dir are recorded, and undo works',
  undefined,
  async () => {
    for (const shape of ['bare', 'worktree elsewhere'] as const) {
      const repo = fresh();
      const elsewhere = join(repo.home, 'tree');
      mkdirSync(elsewhere, { recursive: true });
      if (shape === 'bare') spawnSync('git', ['config', 'core.bare', 'true'], { cwd: repo.dir });
      else spawnSync('git', ['config', 'core.worktree', elsewhere], { cwd: repo.dir });
      const run = await agentWrite({ file: repo.path('a.txt'), content: SMALL, cwd: repo.dir }, repo.env);
      count('faults');
      expectOutcome(run.pre, { exit: [0], hook: true });
      assert.ok(run.post, show(run.pre));
      expectOutcome(run.post, { exit: [0], hook: true });
      const id =
        /as ([0-9a-z]{8})/.exec(run.post.stdout)?.[1] ?? assert.fail(`${shape}: not recorded\n${show(run.post)}`);
      const back = await fettle(repo, ['rollback', id]);
      expectOutcome(back, { exit: [0] });
      assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), OLD, `${shape}\n${show(back)}`);
    }
  },
);
