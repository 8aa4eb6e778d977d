// Storage maintenance: fettle's small packs rolled up in the background after writes, and the objects only
// removed changes reached freed by git's own `repack --cruft` rules, while every pack fettle did not write,
// and every object anything else reaches, is left alone.
// Tier: slow, three end-to-end maintenance loops over many records (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PACK_REFS_AT, rollUpSet } from '../../../src/protocol/upkeep/maintain';
import { ROLL_UP_AT } from '../../../src/protocol/retention/maintain-due';
import { agentWrite, runCli, writePayload } from '../../helpers/cli';
import { maintenanceSettled } from '../../helpers/maintenance';
import { startMcp } from '../../helpers/mcp';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { callResident, sharedResident } from '../../helpers/resident';
import { directWrite, fettle, keepsUserState, ok, scriptSession, T0 } from '../../helpers/stage';

const MB = 1 << 20;
// [sizes of the packs, sizes rolled up]: whole while small, geometric past 64 MB
const sets: [number[], number[]][] = [
  [
    [10, 10, 10],
    [10, 10, 10],
  ],
  [
    [1000, 10, 20],
    [10, 20, 1000],
  ],
  [
    [70 * MB, 10, 20],
    [10, 20],
  ],
  [
    [70 * MB, 30 * MB, 10 * MB],
    [10 * MB, 30 * MB, 70 * MB],
  ],
  [
    [81 * MB, 30 * MB, 10 * MB],
    [10 * MB, 30 * MB],
  ],
];
for (const [sizes, rolled] of sets) {
  test(`rollUpSet ${sizes.join(',')} -> ${rolled.join(',')}`, () =>
    assert.deepEqual(
      rollUpSet(sizes.map((bytes, n) => ({ name: `p${n}`, bytes }))).map((p) => p.bytes),
      rolled,
    ));
}

const packDir = (repo: Repo) => join(repo.dir, '.git', 'objects', 'pack');
const notes = (repo: Repo) => readdirSync(join(repo.dir, '.git', 'fettle', 'packs')).sort();
const packs = (repo: Repo) =>
  readdirSync(packDir(repo))
    .filter((f) => f.endsWith('.pack'))
    .sort();
const loose = (repo: Repo) => Number(/^count: (\d+)/m.exec(repo.git('count-objects', '-v'))?.[1]);
const present = (repo: Repo, oid: string) => {
  try {
    repo.git('cat-file', '-e', oid);
    return true;
  } catch {
    return false;
  }
};

test('hook writes roll their packs up in the background: fettle adds no loose object and never many packs', async () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const before = loose(repo);
  for (let n = 0; n < 3 * ROLL_UP_AT; n++) {
    const content = lines(30).replace('line 2\n', `line 2 write ${n}\n`);
    const { post } = agentWrite(
      { file: repo.path('a.txt'), content, cwd: repo.dir, toolUseId: `toolu_${n}` },
      repo.env,
      (p, c) => repo.write(p.slice(repo.dir.length + 1), c),
    );
    assert.equal(post?.code, 0, post?.stderr);
  }
  await maintenanceSettled(repo.dir);
  assert.ok(notes(repo).length < ROLL_UP_AT + 2, `fettle's packs stay few: ${notes(repo).length}`);
  assert.equal(loose(repo), before, 'no loose object from fettle');
  // Its refs are packed along (a loose ref is a 4 KB block), and every change still reads as one.
  const looseRefs = readdirSync(join(repo.dir, '.git', 'refs', 'fettle')).filter((n) => n !== 'sessions');
  assert.ok(looseRefs.length < ROLL_UP_AT + PACK_REFS_AT, `fettle's loose refs stay few: ${looseRefs.length}`);
  assert.equal(repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/').split('\n').length, 3 * ROLL_UP_AT + 1);
  assert.equal(repo.git('fsck', '--no-dangling', '--connectivity-only'), '');
  assert.equal(repo.git('log', '--format=%s', '-1', 'refs/fettle/sessions/session-1').length > 0, true);
});

const version = (n: number, edge: string) => lines(30).replace('line 2\n', `line 2 ${edge} ${n}\n`);

test('the resident server rolls its packs up itself, after its answers', async () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const server = sharedResident();
  const at = { cwd: repo.dir, env: repo.env };
  for (let n = 0; n < 3 * ROLL_UP_AT; n++) {
    const c = { file: repo.path('a.txt'), content: version(n, 'http'), cwd: repo.dir, toolUseId: `toolu_${n}` };
    const pre = callResident(server, JSON.stringify(writePayload({ ...c, event: 'PreToolUse' })), at);
    assert.equal(pre.code, 0, pre.stderr);
    repo.write('a.txt', c.content);
    const post = callResident(server, JSON.stringify(writePayload({ ...c, event: 'PostToolUse' })), at);
    assert.equal(post.code, 0, post.stderr);
  }
  // The last roll-up runs after the last answers, paced: wait for it (a server that never rolls up fails here).
  const until = Date.now() + 30_000;
  while (notes(repo).length >= ROLL_UP_AT && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.ok(notes(repo).length < ROLL_UP_AT, `fettle's packs stay few: ${notes(repo).length}`);
  assert.equal(repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/').split('\n').length, 3 * ROLL_UP_AT + 1);
  assert.equal(repo.git('fsck', '--no-dangling', '--connectivity-only'), '');
});

test('fettle mcp and fettle write start the same background roll-ups as hook writes', async () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const before = loose(repo);
  const c = startMcp({ cwd: repo.dir, env: repo.env });
  try {
    await c.initialize('some-mcp-client');
    for (let n = 0; n < 3 * ROLL_UP_AT; n++) {
      const r = await c.call('fettle_write', { path: 'a.txt', content: version(n, 'mcp') });
      assert.notEqual(r.isError, true, r.text);
    }
  } finally {
    await c.close();
  }
  await maintenanceSettled(repo.dir);
  assert.ok(notes(repo).length < ROLL_UP_AT + 2, `through fettle mcp, fettle's packs stay few: ${notes(repo).length}`);
  for (let n = 0; n < 3 * ROLL_UP_AT; n++) {
    const r = runCli(['write', 'a.txt'], { cwd: repo.dir, env: repo.env, input: version(n, 'write') });
    assert.equal(r.code, 0, r.stderr);
  }
  await maintenanceSettled(repo.dir);
  assert.ok(
    notes(repo).length < ROLL_UP_AT + 2,
    `through fettle write, fettle's packs stay few: ${notes(repo).length}`,
  );
  assert.equal(loose(repo), before, 'no loose object from fettle');
  assert.equal(repo.git('fsck', '--no-dangling', '--connectivity-only'), '');
});

test('fettle gc --expire: what only removed changes reached is gone; what anything else reaches, and packs fettle did not write, stay', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  // A pack of the user's own, holding an object nothing reaches: git's to expire, never fettle's.
  repo.git('checkout', '-q', '-b', 'scratch');
  repo.write('scratch.txt', 'scratch\n');
  repo.commit('scratch');
  const scratch = repo.git('rev-parse', 'HEAD:scratch.txt');
  repo.git('checkout', '-q', '-');
  repo.git('repack', '-adq');
  repo.git('branch', '-D', '-q', 'scratch');
  const userPacks = packs(repo);
  const env = { FETTLE_HISTORY_MAX_COUNT: '2' };
  const blobs: string[] = [];
  for (let n = 0; n < 6; n++) {
    const content = lines(30).replace('line 2\n', `line 2 version ${n}\n`);
    directWrite(repo, 'a.txt', content, { env, now: T0 + n });
    blobs.push(repo.git('hash-object', 'a.txt'));
  }
  // The writes' session ref (the branch's: core/session-ladder.ts) keeps every version it wrote, and retention does
  // not shorten it (docs/STORE.md): dropped here, so that only the removed changes reach versions 0-2.
  repo.git('update-ref', '-d', `refs/fettle/sessions/${scriptSession(repo)}`);
  const kept = repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/').split('\n');
  const r = keepsUserState(repo, () => ok(fettle(repo, ['gc', '--expire', 'now'], { env, now: T0 + 10 })));
  assert.match(r.stdout, /objects only removed changes reached and older than now are gone/);
  assert.match(r.stdout, /^fettle's packs: [\d.]+ \w?B -> [\d.]+ \w?B\.$/m);
  // Versions 0-2 were only in removed changes; 3-5 are still recorded (the newest two, and the file itself).
  assert.deepEqual(
    blobs.map((b) => present(repo, b)),
    [false, false, false, true, true, true],
  );
  assert.deepEqual(repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/').split('\n'), kept);
  for (const p of userPacks) assert.ok(existsSync(join(packDir(repo), p)), `the user's ${p} is untouched`);
  assert.ok(present(repo, scratch), "what only the user's own pack holds is git's to expire");
  assert.equal(repo.git('fsck', '--no-dangling', '--connectivity-only'), '');
  for (const name of notes(repo)) assert.ok(existsSync(join(packDir(repo), `${name}.pack`)), name);
  assert.ok(!readFileSync(join(repo.dir, '.git', 'config'), 'utf8').includes('cruft'), 'no config written');
});

test("a cruft pack keeps its objects' times: roll-ups leave it to git's repack", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const env = { FETTLE_HISTORY_MAX_COUNT: '2' };
  const version = (n: number) => lines(30).replace('line 2\n', `line 2 version ${n}\n`);
  for (let n = 0; n < 6; n++) directWrite(repo, 'a.txt', version(n), { env, now: T0 + n });
  ok(fettle(repo, ['gc'], { env, now: T0 + 10 }));
  const cruft = readdirSync(packDir(repo)).filter((f) => f.endsWith('.mtimes'));
  assert.equal(cruft.length, 1, 'the removed changes went into a cruft pack (not expired: 2 weeks)');
  for (let n = 6; n < 6 + ROLL_UP_AT; n++) directWrite(repo, 'a.txt', version(n), { env, now: T0 + n });
  ok(fettle(repo, ['gc', '--auto'], { env, now: T0 + 40 }));
  assert.ok(existsSync(join(packDir(repo), cruft[0] as string)), 'the same cruft pack, with its times');
});

test('roll-ups keep a file only its owner may read out of packs others may read', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  repo.write('.env', 'KEY=0\n', 0o600);
  for (let n = 0; n < ROLL_UP_AT; n++) {
    directWrite(repo, 'a.txt', lines(30).replace('line 2\n', `line 2 v${n}\n`), { now: T0 + n });
    directWrite(repo, '.env', `KEY=${n + 1}\n`, { now: T0 + n });
  }
  ok(fettle(repo, ['gc'], { now: T0 + 100 }));
  const envChange = repo
    .git('for-each-ref', '--format=%(refname) %(trailers:key=Fettle-Path,valueonly)', 'refs/fettle/')
    .split('\n')
    .find((l) => l.trim().endsWith(' .env'))
    ?.split(' ')[0];
  const secret = repo.git('rev-parse', `${envChange}:.env`);
  const modes = readdirSync(packDir(repo))
    .filter((f) => f.endsWith('.idx'))
    .map((f) => ({
      mode: statSync(join(packDir(repo), f)).mode & 0o777,
      holds: execFileSync('git', ['show-index'], { input: readFileSync(join(packDir(repo), f)) }).toString(),
    }));
  const holders = modes.filter((m) => m.holds.includes(secret));
  assert.ok(holders.length > 0);
  for (const h of holders) assert.equal(h.mode & 0o044, 0, `a pack holding the .env bytes is ${h.mode.toString(8)}`);
});
