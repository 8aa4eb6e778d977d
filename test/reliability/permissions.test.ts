// Who may read and write what fettle creates. A repository shared with a group (core.sharedRepository=group)
// must stay writable by the group after fettle wrote objects into it; and fettle must not make a file's old
// bytes readable by people who could not read the file.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../helpers/repo';
import { count, repoWith, reportAs, scenario, show, spawnFettle, text } from './harness';
import { expectOutcome } from './invariants';

reportAs('permissions');

const git = (repo: Repo, args: string[], input?: string): string =>
  spawnSync('git', args, { cwd: repo.dir, input, encoding: 'utf8', env: repo.env }).stdout.trim();

/** The packs fettle wrote, each with the objects it holds (id and offset in the pack file). */
const fettlePacks = (repo: Repo): { pack: string; objects: { oid: string; offset: number }[] }[] =>
  readdirSync(join(repo.dir, '.git', 'fettle', 'packs')).map((name) => {
    const pack = join(repo.dir, '.git', 'objects', 'pack', `${name}.pack`);
    const listing = git(repo, ['verify-pack', '-v', pack.replace(/\.pack$/, '.idx')]);
    const objects = [...listing.matchAll(/^([0-9a-f]{40}) \w+ +\d+ \d+ (\d+)$/gm)].map((m) => ({
      oid: m[1] as string,
      offset: Number(m[2]),
    }));
    return { pack, objects };
  });

/** The pack file holding `oid`. */
const packOf = (repo: Repo, oid: string): string =>
  fettlePacks(repo).find((p) => p.objects.some((o) => o.oid === oid))?.pack ?? assert.fail(`no pack holds ${oid}`);

/** Object directories and files fettle's record of `id` wrote (those git had not). */
const recordObjects = (repo: Repo, id: string): string[] =>
  git(repo, ['rev-list', '--objects', `refs/fettle/${id}`, '--not', 'HEAD'])
    .split('\n')
    .map((line) => line.split(' ')[0] as string)
    .filter(Boolean);

const write = async (repo: Repo, file: string, content: string): Promise<string> => {
  const r = await spawnFettle(['write', file], { cwd: repo.dir, env: repo.env, input: content });
  count('writes');
  expectOutcome(r, { exit: [0] });
  return /as ([0-9a-z]{8})/.exec(r.stdout)?.[1] ?? assert.fail(show(r));
};

scenario('core.sharedRepository=group: object and fettle directories stay group-writable', undefined, async () => {
  const repo = repoWith({ 'a.txt': text(20, 'old') });
  git(repo, ['config', 'core.sharedRepository', 'group']);
  // What `git init --shared=group` leaves: group-writable, setgid directories.
  spawnSync('chmod', ['-R', 'g+ws', join(repo.dir, '.git', 'objects')]);
  spawnSync('chmod', ['g+ws', join(repo.dir, '.git')]);
  const id = await write(repo, 'a.txt', text(20, 'old').replace('old 1\n', 'new 1\n'));
  const dir = statSync(join(repo.dir, '.git', 'objects', 'pack')).mode;
  assert.equal(dir & 0o2070, 0o2070, `objects/pack is ${(dir & 0o7777).toString(8)}`);
  for (const oid of recordObjects(repo, id)) {
    const mode = statSync(packOf(repo, oid)).mode;
    assert.equal(mode & 0o040, 0o040, `the pack holding ${oid} is ${(mode & 0o777).toString(8)}`);
  }
  for (const dir of ['fettle', 'fettle/tool-use', 'fettle/locks', 'fettle/packs']) {
    const path = join(repo.dir, '.git', dir);
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue; // not made by this write
    }
    assert.equal(mode & 0o2070, 0o2070, `.git/${dir} is ${(mode & 0o7777).toString(8)}`);
  }
});

scenario('pack.compression is honoured for the objects fettle writes', undefined, async () => {
  const repo = repoWith({ 'a.txt': text(200, 'old') });
  git(repo, ['config', 'pack.compression', '9']);
  const id = await write(repo, 'a.txt', text(200, 'old').replace('old 1\n', 'new 1\n'));
  const packs = fettlePacks(repo);
  const headers = recordObjects(repo, id).map((oid) => {
    const pack = packs.find((p) => p.objects.some((o) => o.oid === oid)) ?? assert.fail(oid);
    const bytes = readFileSync(pack.pack);
    let at = pack.objects.find((o) => o.oid === oid)?.offset ?? 0;
    while ((bytes[at] as number) & 0x80) at++; // the entry header: type and size, high bit = more follows
    return bytes.subarray(at + 1, at + 3).toString('hex');
  });
  assert.ok(headers.length > 0);
  // zlib's second byte carries the level class: 0xda for 7-9 (git's default level 1 gives 0x01).
  assert.deepEqual([...new Set(headers)], ['78da'], headers.join(' '));
  assert.equal(git(repo, ['fsck', '--no-dangling']), '');
});

scenario(
  'a file only its owner may read: its old bytes are no more readable in fettle than on disk',
  undefined,
  async () => {
    const repo = repoWith({ 'a.txt': 'a\n' });
    repo.write('.env', 'API_KEY=secret-1\n');
    spawnSync('chmod', ['600', repo.path('.env')]);
    const id = await write(repo, '.env', 'API_KEY=secret-2\n');
    const blobs = recordObjects(repo, id).filter((oid) => git(repo, ['cat-file', '-t', oid]) === 'blob');
    assert.equal(blobs.length, 2, 'the old and the new bytes');
    for (const oid of blobs) {
      const mode = statSync(packOf(repo, oid)).mode & 0o777;
      assert.equal(mode & 0o044, 0, `the pack holding ${oid} is ${mode.toString(8)}`);
    }
    // `fettle test` checks the staged tree out with git's modes (0644): its worktree sits in a folder only the
    // user can enter, so the 0600 file's bytes are not readable through it.
    const staged = await spawnFettle(['write', 'a.txt'], { cwd: repo.dir, env: repo.env, input: text(30, 'big') });
    const stagedId = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1] ?? assert.fail(show(staged));
    expectOutcome(await spawnFettle(['test', stagedId, '--', 'true'], { cwd: repo.dir, env: repo.env }), { exit: [0] });
    assert.ok(readdirSync(join(repo.dir, '.git', 'fettle')).includes('worktrees'));
    for (const dir of readdirSync(join(repo.dir, '.git', 'fettle'))) {
      const mode = statSync(join(repo.dir, '.git', 'fettle', dir)).mode & 0o777;
      assert.equal(mode & 0o077, 0, `.git/fettle/${dir} is ${mode.toString(8)}`);
    }
    // Outside any repository: the private store is the user's alone.
    const outside = join(repo.home, 'notes.txt');
    spawnSync('sh', ['-c', `printf 'x\\n' > '${outside}'`]);
    const r = await spawnFettle(['write', outside], { cwd: repo.home, env: repo.env, input: 'y\n' });
    expectOutcome(r, { exit: [0] });
    const data = join(repo.home, '.data', 'fettle');
    assert.equal(statSync(data).mode & 0o777, 0o700, show(r));
  },
);
