// B.5 row 21: odd file names through the whole life of a change. A new file through the hook, a small
// change through the hook, a staged `fettle write` and its confirm, a rollback, and `status --json` naming
// the path exactly; every content along the way stays reachable.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import type { Repo } from '../helpers/repo';
import { agentWrite, count, repoWith, reportAs, scenario, show, spawnFettle, text } from './harness';
import { checkInvariants, expectOutcome, userState } from './invariants';

reportAs('names');

const NAMES = [
  'a b.txt',
  'new\nline.txt',
  'ünïcödé ✓.txt',
  '-rf',
  '--',
  'tab\there.txt',
  `quote"s'.txt`,
  'back\\slash.txt',
  '*glob?[x].txt',
  ' leading space.txt',
  'trailing space.txt ',
  'dir with space/ä/x.txt',
  'e\u0301 decomposed.txt',
  '.hidden',
  '#hash;semi&amp|pipe$(x).txt',
];

const lifecycle = async (repo: Repo, name: string): Promise<Buffer[]> => {
  const file = repo.path(name);
  const v1 = text(30, 'one');
  const v2 = v1.replace('one 1\n', 'one 1 small\n');
  const v3 = text(30, 'three');
  const created = await agentWrite({ file, content: v1, cwd: repo.dir, toolUseId: `toolu_c_${name}` }, repo.env);
  expectOutcome(created.pre, { exit: [0], hook: true });
  assert.ok(created.post, show(created.pre));
  expectOutcome(created.post, { exit: [0], hook: true });
  const small = await agentWrite({ file, content: v2, cwd: repo.dir, toolUseId: `toolu_s_${name}` }, repo.env);
  expectOutcome(small.pre, { exit: [0], hook: true });
  assert.ok(small.post, show(small.pre));
  assert.match(small.post.stdout, /rollback [0-9a-z]{8}/, show(small.post));
  const staged = await spawnFettle(['write', '--', name], { cwd: repo.dir, env: repo.env, input: v3 });
  expectOutcome(staged, { exit: [3] });
  const id = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1] ?? assert.fail(show(staged));
  expectOutcome(await spawnFettle(['confirm', id], { cwd: repo.dir, env: repo.env }), { exit: [0] });
  assert.equal(readFileSync(file, 'utf8'), v3);
  const status = await spawnFettle(['status', '--json'], { cwd: repo.dir, env: repo.env });
  expectOutcome(status, { exit: [0] });
  const paths = (JSON.parse(status.stdout) as { recent: { id: string; path: string }[] }).recent
    .filter((c) => c.id === id)
    .map((c) => c.path);
  assert.deepEqual(paths, [name], 'status names the path exactly');
  expectOutcome(await spawnFettle(['rollback', id], { cwd: repo.dir, env: repo.env }), { exit: [0] });
  assert.equal(readFileSync(file, 'utf8'), v2, 'rolled back to the bytes the confirm replaced');
  count('names');
  return [v1, v2, v3].map((v) => Buffer.from(v));
};

scenario(`${NAMES.length} odd file names through write, confirm, rollback and status`, undefined, async () => {
  const repo = repoWith({ 'README.md': 'readme\n' });
  const before = userState(repo);
  const owed: Buffer[] = [];
  for (const name of NAMES) {
    try {
      owed.push(...(await lifecycle(repo, name)));
    } catch (error) {
      throw new Error(`${JSON.stringify(name)}: ${(error as Error).message}`);
    }
  }
  checkInvariants(repo, before, { owed, litter: 'none' });
});

scenario(
  'an executable script keeps its mode through a direct write, a confirm and a rollback',
  undefined,
  async () => {
    const repo = repoWith({ 'run.sh': '#!/bin/sh\necho 1\n' });
    repo.git('update-index', '--chmod=+x', 'run.sh');
    repo.git('commit', '-qm', 'exec');
    chmodSync(repo.path('run.sh'), 0o755);
    const before = userState(repo);
    const mode = () => statSync(repo.path('run.sh')).mode & 0o777;
    expectOutcome(
      await spawnFettle(['write', 'run.sh'], { cwd: repo.dir, env: repo.env, input: '#!/bin/sh\necho 2\n' }),
      { exit: [0] },
    );
    assert.equal(mode(), 0o755);
    const staged = await spawnFettle(['write', 'run.sh'], { cwd: repo.dir, env: repo.env, input: text(30, 'echo') });
    const id = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1] ?? assert.fail(show(staged));
    expectOutcome(await spawnFettle(['confirm', id], { cwd: repo.dir, env: repo.env }), { exit: [0] });
    assert.equal(mode(), 0o755);
    expectOutcome(await spawnFettle(['rollback', id], { cwd: repo.dir, env: repo.env }), { exit: [0] });
    assert.equal(mode(), 0o755);
    count('names');
    checkInvariants(repo, before, { owed: [Buffer.from(text(30, 'echo'))], litter: 'none' });
  },
);
