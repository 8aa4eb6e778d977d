// A packed-refs.lock a killed fettle maintenance left behind blocks every ref deletion the user makes; fettle
// proves the lock its own (owner record, a second name of the lock file) and removes it on its next run, and
// never removes one anyone else may hold. Real repositories, the built CLI, a SIGKILL at a failpoint.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok } from '../helpers/stage';

const gitDir = (repo: Repo) => join(repo.dir, '.git');
const lockOf = (repo: Repo) => join(gitDir(repo), 'packed-refs.lock');
const records = (repo: Repo) => ['owner', 'held'].map((r) => join(gitDir(repo), 'fettle', `packed-refs-lock.${r}`));
/** The real clock: lock ages are measured against the file system's times. */
const now = () => Math.floor(Date.now() / 1000);
const backdate = (path: string, seconds: number) => {
  const t = new Date(Date.now() - seconds * 1000);
  utimesSync(path, t, t);
};

/** A repository with a user branch and some of fettle's loose refs. */
const setUp = (): Repo => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  repo.git('branch', 'topic');
  for (const n of [1, 2, 3])
    directWrite(repo, 'a.txt', lines(30).replace('line 2\n', `line 2 version ${n}\n`), { now: now() });
  return repo;
};

/** `git branch -d topic`, as the user runs it. */
const deleteBranch = (repo: Repo) =>
  spawnSync('git', ['branch', '-d', 'topic'], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });

/** The maintenance SIGKILLed while it holds packed-refs.lock; returns the pid its owner record names. */
const killHolding = (repo: Repo): number => {
  const r = fettle(repo, ['gc'], { now: now(), env: { FETTLE_FAILPOINTS: 'pack-refs.locked=kill' } });
  assert.equal(r.code, -1, `killed: ${r.stderr}`);
  assert.ok(existsSync(lockOf(repo)), 'the lock is left behind');
  return (JSON.parse(readFileSync(records(repo)[0] as string, 'utf8')) as { pid: number }).pid;
};

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}
/** Ages in seconds down to the ten: a loaded machine may take a few seconds between backdating and doctor. */
const tens = (text: string) => text.replace(/\b(\d+) s\b/g, (_, n: string) => `${Math.floor(Number(n) / 10) * 10} s`);
const doctor = (repo: Repo) => {
  const r = runCli(['doctor', '--json'], { cwd: repo.dir, env: repo.env });
  const checks = (JSON.parse(r.stdout) as { checks: Check[] }).checks;
  return {
    code: r.code,
    locks: checks.filter((c) => c.name === 'locks').map((c) => ({ ...c, detail: tens(c.detail) })),
  };
};

const BLOCKS = 'until it goes, git cannot delete a branch, tag or any ref here (`git branch -d` fails: "File exists")';

test("killed holding packed-refs.lock: the user's git branch -d fails, doctor fails naming it, fettle gc removes it", () => {
  const repo = setUp();
  const pid = killHolding(repo);
  const blocked = deleteBranch(repo);
  assert.equal(blocked.status, 1);
  assert.match(blocked.stderr, /Unable to create '.*packed-refs\.lock': File exists/);

  const d = doctor(repo);
  assert.equal(d.code, 1);
  const [packed, maintainLock] = d.locks;
  assert.deepEqual(
    [packed?.status, packed?.detail],
    ['fail', `packed-refs.lock was left by a fettle maintenance killed while it held it (pid ${pid}, gone): ${BLOCKS}`],
  );
  assert.match(
    packed?.fix ?? '',
    /^Run `\S*.* gc`: it removes the lock \(so does the next background maintenance\)\.$/,
  );
  assert.equal(maintainLock?.detail, 'maintain.lock (its holder is gone; the next fettle command takes it over)');
  const text = runCli(['doctor'], { cwd: repo.dir, env: repo.env });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^FAIL {2}locks {5}packed-refs\.lock was left by a fettle maintenance killed/m);
  assert.ok(existsSync(lockOf(repo)), 'doctor removed nothing');

  const gc = ok(fettle(repo, ['gc'], { now: now() }));
  assert.match(
    gc.stdout,
    /^Removed packed-refs\.lock, left by a fettle maintenance killed while it held it: git can delete refs here again\.$/m,
  );
  assert.match(gc.stdout, /^Moved \d+ refs of fettle's from loose files into packed-refs\.$/m, 'and packed this round');
  assert.ok(!existsSync(lockOf(repo)));
  assert.deepEqual(records(repo).filter(existsSync), [], 'its owner records are gone too');
  assert.equal(deleteBranch(repo).status, 0);
  assert.equal(repo.git('branch', '--list', 'topic'), '');
  assert.deepEqual(doctor(repo), { code: 0, locks: [{ name: 'locks', status: 'ok', detail: 'no lock held' }] });
});

test('the next background maintenance (fettle gc --auto) removes the lock a killed one left', () => {
  const repo = setUp();
  killHolding(repo);
  ok(runCli(['gc', '--auto'], { cwd: repo.dir, env: repo.env }));
  assert.ok(!existsSync(lockOf(repo)));
  assert.equal(deleteBranch(repo).status, 0);
});

test("a packed-refs.lock without fettle's owner record is never removed, and doctor says how to remove it by hand", () => {
  const repo = setUp();
  writeFileSync(lockOf(repo), ''); // git's, killed, or one running
  backdate(lockOf(repo), -60); // just taken, however slow this machine
  assert.deepEqual(doctor(repo).locks, [{ name: 'locks', status: 'ok', detail: 'no lock held' }], 'young: git at work');
  backdate(lockOf(repo), 3600);
  const gc = ok(fettle(repo, ['gc'], { now: now() }));
  assert.match(gc.stdout, /^Not packed: fettle's refs \(packed-refs\.lock is held\)\.$/m);
  assert.doesNotMatch(gc.stdout, /Removed packed-refs/);
  ok(runCli(['gc', '--auto'], { cwd: repo.dir, env: repo.env }));
  assert.ok(existsSync(lockOf(repo)));
  const d = doctor(repo);
  assert.equal(d.code, 1);
  assert.deepEqual(d.locks, [
    {
      name: 'locks',
      status: 'fail',
      detail: `packed-refs.lock is 3600 s old and not fettle's (git's or another program's): ${BLOCKS}`,
      fix: `Wait for the git command holding it; if no git process is running (\`pgrep -l git\` lists none), it was left by a killed one: rm ${lockOf(repo)}`,
    },
  ]);
});

/** A process that is alive, and its start time as /proc gives it. */
const liveProcess = () => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'latin1');
  const start = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19] as string;
  return { child, pid: child.pid as number, start };
};
const writeOwner = (repo: Repo, owner: { pid: number; start: string }) => {
  const host = (JSON.parse(readFileSync(records(repo)[0] as string, 'utf8')) as { host: string }).host;
  writeFileSync(records(repo)[0] as string, `${JSON.stringify({ ...owner, host })}\n`);
};

test('a lock whose recorded owner is alive is left alone and reported; once the owner is gone, it is removed', async () => {
  const repo = setUp();
  killHolding(repo);
  const live = liveProcess();
  try {
    writeOwner(repo, live);
    ok(fettle(repo, ['gc'], { now: now() }));
    assert.ok(existsSync(lockOf(repo)), 'a live owner keeps it');
    assert.deepEqual(records(repo).filter(existsSync), records(repo));
    backdate(lockOf(repo), 60);
    const d = doctor(repo);
    assert.equal(d.code, 0);
    assert.deepEqual(
      d.locks.map((c) => [c.status, c.detail]),
      [['warn', `packed-refs.lock is held by fettle's maintenance (running pid ${live.pid}, 60 s)`]],
    );
  } finally {
    live.child.kill('SIGKILL');
    await new Promise((r) => live.child.once('exit', r));
  }
  ok(fettle(repo, ['gc'], { now: now() }));
  assert.ok(!existsSync(lockOf(repo)));
  assert.equal(deleteBranch(repo).status, 0);
});

test('a recorded owner whose pid now names another process (a later start time) is gone: the lock is removed', async () => {
  const repo = setUp();
  killHolding(repo);
  const live = liveProcess();
  try {
    writeOwner(repo, { pid: live.pid, start: String(Number(live.start) - 1) });
    assert.equal(doctor(repo).locks[0]?.status, 'fail');
    const gc = ok(fettle(repo, ['gc'], { now: now() }));
    assert.match(gc.stdout, /^Removed packed-refs\.lock/m);
    assert.ok(!existsSync(lockOf(repo)));
  } finally {
    live.child.kill('SIGKILL');
  }
});

test("a lock taken by someone else after the killed fettle's was removed is not fettle's: kept, the old records cleared", () => {
  const repo = setUp();
  killHolding(repo);
  rmSync(lockOf(repo)); // removed by hand, then taken by a git process (another file, another inode)
  writeFileSync(lockOf(repo), '');
  ok(fettle(repo, ['gc'], { now: now() }));
  assert.ok(existsSync(lockOf(repo)), "never removed: it is not the file fettle's records name");
  assert.deepEqual(records(repo).filter(existsSync), [], "the killed run's records are cleared");
  backdate(lockOf(repo), 30);
  assert.match(doctor(repo).locks[0]?.detail ?? '', /^packed-refs\.lock is 30 s old and not fettle's/);
  rmSync(lockOf(repo));
  ok(fettle(repo, ['gc'], { now: now() }));
  assert.equal(deleteBranch(repo).status, 0);
});

test("a lock recorded by fettle on another host (a repository on a shared disk) is not judged from this host's pids", () => {
  const repo = setUp();
  const pid = killHolding(repo);
  writeFileSync(records(repo)[0] as string, `${JSON.stringify({ pid, host: 'elsewhere.example' })}\n`);
  ok(fettle(repo, ['gc'], { now: now() }));
  assert.ok(existsSync(lockOf(repo)), 'a dead pid here says nothing of a process there');
  backdate(lockOf(repo), 60);
  const [packed] = doctor(repo).locks;
  assert.equal(
    packed?.detail,
    `packed-refs.lock is held by fettle's maintenance on elsewhere.example (pid ${pid} there, 60 s)`,
  );
  assert.match(
    packed?.fix ?? '',
    /^fettle on elsewhere\.example removes it if that run was killed; .* rm \S+packed-refs\.lock$/,
  );
});

test('a failure or a SIGTERM while the lock is held releases it and its records on the way out', async () => {
  const repo = setUp();
  const failed = fettle(repo, ['gc'], { now: now(), env: { FETTLE_FAILPOINTS: 'pack-refs.locked=throw' } });
  assert.match(failed.stderr, /failpoint pack-refs\.locked fired/);
  assert.ok(!existsSync(lockOf(repo)));
  assert.deepEqual(records(repo).filter(existsSync), []);

  const env = { ...repo.env, FETTLE_FAILPOINTS: 'pack-refs.locked=sleep:10000' };
  const gc = spawn(process.execPath, [CLI, 'gc'], { cwd: repo.dir, env, stdio: 'ignore' });
  const exited = new Promise<number | null>((r) => gc.once('exit', r));
  for (let n = 0; n < 200 && !existsSync(lockOf(repo)); n++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(lockOf(repo)), 'the lock is held');
  gc.kill('SIGTERM');
  assert.equal(await exited, 143);
  assert.ok(!existsSync(lockOf(repo)));
  assert.deepEqual(records(repo).filter(existsSync), []);
  assert.equal(deleteBranch(repo).status, 0);
});
