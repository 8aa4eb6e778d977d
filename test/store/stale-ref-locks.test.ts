// Lock files a killed process left under fettle's refs (refs/fettle/, refs/fettle-discarded/): doctor reports each
// older than a few seconds, `fettle gc` removes those minutes old, and a younger one (a live holder's, as far as
// fettle can tell) stays.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok, stageWrite } from '../helpers/stage';

const now = () => Math.floor(Date.now() / 1000);
const lockAged = (repo: Repo, name: string, seconds: number): string => {
  const path = join(repo.dir, '.git', name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  const t = new Date(Date.now() - seconds * 1000);
  utimesSync(path, t, t);
  return path;
};
const deleteRef = (repo: Repo, ref: string) =>
  spawnSync('git', ['update-ref', '-d', ref], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });

test("stale lock files under fettle's refs: doctor reports them, fettle gc removes those older than 10 minutes", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const id = directWrite(repo, 'a.txt', lines(30).replace('line 2\n', 'line 2 changed\n'), { now: now() });
  const staged = stageWrite(repo, 'a.txt', lines(200, 'other'), { now: now() });
  ok(fettle(repo, ['discard', staged], { now: now() }));
  const old = [`refs/fettle/${id}.lock`, `refs/fettle-discarded/${staged}.lock`, 'refs/fettle/sessions/s1.lock'];
  for (const name of old) lockAged(repo, name, 3600);
  const young = lockAged(repo, 'refs/fettle/young.lock', 120);
  const fresh = lockAged(repo, 'refs/fettle/fresh.lock', -60); // a git update in flight, however slow this machine
  assert.equal(deleteRef(repo, `refs/fettle/${id}`).status, 1, "the lock blocks that ref's update");

  const r = runCli(['doctor', '--json'], { cwd: repo.dir, env: repo.env });
  assert.equal(r.code, 0, 'a lock on one of fettle refs is a warning: nothing of the user is blocked');
  const locks = (JSON.parse(r.stdout) as { checks: { name: string; status: string; detail: string; fix?: string }[] })
    .checks;
  const check = locks.find((c) => c.name === 'locks');
  assert.equal(check?.status, 'warn');
  for (const name of [...old, 'refs/fettle/young.lock'])
    assert.match(check?.detail ?? '', new RegExp(`${name.replace(/\./g, '\\.')} \\(\\d+ s old\\)`), name);
  assert.ok(!check?.detail.includes('fresh.lock'), 'a lock seconds old is a live update, not reported');
  assert.match(check?.fix ?? '', /removes those older than 10 minutes; if no git process is running \(`pgrep -l git`/);

  const gc = ok(fettle(repo, ['gc'], { now: now() }));
  assert.match(
    gc.stdout,
    new RegExp(
      `^Removed 3 lock files under fettle's refs, left by killed processes: ${[...old].sort().join(' ')}\\.$`,
      'm',
    ),
  );
  for (const name of old) assert.ok(!existsSync(join(repo.dir, '.git', name)), name);
  assert.ok(existsSync(young) && existsSync(fresh), 'younger locks stay');
  assert.equal(deleteRef(repo, `refs/fettle/${id}`).status, 0);
});
