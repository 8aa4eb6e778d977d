// fettle's refs moved into packed-refs by its maintenance (`fettle gc` here; the background runs the same step),
// checked with git itself: every ref reads as before, the user's records are byte for byte what they were,
// git's own ref updates, deletions, pack-refs and gc agree, and concurrent git updates lose nothing.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentWrite, runCli, runHook, writePayload } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok, scriptSession, stageWrite, T0 } from '../helpers/stage';

const gitDir = (repo: Repo) => join(repo.dir, '.git');
const packedRefs = (repo: Repo) => readFileSync(join(gitDir(repo), 'packed-refs'), 'latin1');
const OURS = /^[0-9a-f]+ refs\/fettle(-discarded)?\/[^\n]*\n/gm;
/** packed-refs without fettle's records: what the user's refs hold */
const userPart = (repo: Repo) => packedRefs(repo).replace(OURS, '');
/** fettle's loose ref files, relative to .git */
const looseOurs = (repo: Repo): string[] => {
  const walk = (rel: string): string[] =>
    existsSync(join(gitDir(repo), rel))
      ? readdirSync(join(gitDir(repo), rel), { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(`${rel}/${e.name}`) : [`${rel}/${e.name}`],
        )
      : [];
  return [...walk('refs/fettle'), ...walk('refs/fettle-discarded')];
};
const allRefs = (repo: Repo) => repo.git('for-each-ref');
const version = (n: number) => lines(30).replace('line 2\n', `line 2 version ${n}\n`);

/** Direct writes through the hook (change refs and the session ref) and a staged change discarded. */
const withFettleRefs = (repo: Repo, writes = 3): void => {
  for (let n = 0; n < writes; n++) {
    const { post } = agentWrite(
      { file: repo.path('a.txt'), content: version(n), cwd: repo.dir, toolUseId: `toolu_${n}` },
      { ...repo.env, FETTLE_NOW: String(T0 + n) },
      (p, c) => repo.write(p.slice(repo.dir.length + 1), c),
    );
    assert.equal(post?.code, 0, post?.stderr);
  }
  const id = stageWrite(repo, 'a.txt', lines(200, 'other'));
  ok(fettle(repo, ['discard', id]));
};

/** A repository with the user's refs of every kind: packed and loose branches, annotated and light tags. */
const userRepo = (): { repo: Repo; packedBefore: string } => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  repo.git('branch', 'packed-branch');
  repo.git('tag', '-a', 'v1', '-m', 'annotated, packed');
  repo.git('tag', 'light-packed');
  repo.git('pack-refs', '--all');
  repo.git('branch', 'loose-branch');
  repo.git('tag', '-a', 'v2', '-m', 'annotated, loose');
  return { repo, packedBefore: packedRefs(repo) };
};

test("fettle gc packs fettle's refs, and only them: every ref reads the same, the user's records byte for byte", () => {
  const { repo, packedBefore } = userRepo();
  withFettleRefs(repo);
  const ours = looseOurs(repo);
  assert.ok(
    ours.some((r) => r.startsWith('refs/fettle/sessions/')) && ours.some((r) => r.startsWith('refs/fettle-discarded/')),
  );
  const looseUser = ['refs/heads/loose-branch', 'refs/tags/v2'].map((r) => readFileSync(join(gitDir(repo), r)));
  const [refsBefore, showBefore] = [allRefs(repo), repo.git('show-ref')];
  const r = ok(fettle(repo, ['gc']));
  assert.match(
    r.stdout,
    new RegExp(`^Moved ${ours.length} refs of fettle's from loose files into packed-refs\\.$`, 'm'),
  );
  assert.deepEqual(looseOurs(repo), []);
  assert.ok(!existsSync(join(gitDir(repo), 'refs', 'fettle', 'sessions')), 'its emptied directory is removed');
  assert.equal(userPart(repo), packedBefore);
  assert.equal(packedRefs(repo).match(OURS)?.length, ours.length);
  assert.deepEqual(
    ['refs/heads/loose-branch', 'refs/tags/v2'].map((r) => readFileSync(join(gitDir(repo), r))),
    looseUser,
  );
  assert.equal(allRefs(repo), refsBefore);
  assert.equal(repo.git('show-ref'), showBefore);
  assert.equal(repo.git('fsck', '--no-dangling'), '');
  assert.match(ok(fettle(repo, ['log'])).stdout, /version|a\.txt/);
});

test("git's own ref commands agree with fettle's packed refs: CAS, delete, pack-refs --all, gc", () => {
  const { repo } = userRepo();
  withFettleRefs(repo);
  ok(fettle(repo, ['gc']));
  const [first, second] = repo.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/fettle/').split('\n');
  const [ref, oid] = (first as string).split(' ') as [string, string];
  const head = repo.git('rev-parse', 'HEAD');
  assert.throws(() => repo.git('update-ref', ref, head, head), 'a CAS from a wrong value fails against the packed one');
  repo.git('update-ref', ref, head, oid);
  assert.equal(repo.git('rev-parse', ref), head);
  assert.equal(readFileSync(join(gitDir(repo), ref), 'latin1'), `${head}\n`, 'the new value is loose, over the packed');
  const [gone] = (second as string).split(' ') as [string];
  repo.git('update-ref', '-d', gone);
  assert.ok(!packedRefs(repo).includes(` ${gone}\n`), "git's delete rewrites packed-refs without it");
  const refsBefore = allRefs(repo);
  repo.git('pack-refs', '--all');
  assert.equal(allRefs(repo), refsBefore);
  repo.git('gc', '-q');
  assert.equal(allRefs(repo), refsBefore);
  assert.equal(repo.git('fsck', '--no-dangling'), '');
});

test('a packed-refs file fettle creates is the one git would write', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  withFettleRefs(repo);
  const refMode = statSync(join(gitDir(repo), looseOurs(repo)[0] as string)).mode & 0o777;
  ok(fettle(repo, ['gc']));
  const ours = packedRefs(repo);
  assert.equal(statSync(join(gitDir(repo), 'packed-refs')).mode & 0o777, refMode);
  const main = repo.git('rev-parse', 'refs/heads/main');
  repo.git('pack-refs', '--all');
  assert.equal(packedRefs(repo).replace(`${main} refs/heads/main\n`, ''), ours);
});

test('packed-refs.lock held (git, or another fettle, at work): this round packs nothing and leaves the lock', () => {
  const { repo, packedBefore } = userRepo();
  withFettleRefs(repo);
  const ours = looseOurs(repo);
  writeFileSync(join(gitDir(repo), 'packed-refs.lock'), '');
  const r = ok(fettle(repo, ['gc']));
  assert.match(r.stdout, /^Not packed: fettle's refs \(packed-refs\.lock is held\)\.$/m);
  assert.equal(packedRefs(repo), packedBefore);
  assert.deepEqual(looseOurs(repo), ours);
  assert.ok(existsSync(join(gitDir(repo), 'packed-refs.lock')));
});

test('a ref whose own lock is held is packed but its loose file stays until a later round', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  withFettleRefs(repo);
  const held = looseOurs(repo).find((r) => !r.includes('/sessions/')) as string;
  const value = readFileSync(join(gitDir(repo), held), 'latin1');
  writeFileSync(join(gitDir(repo), `${held}.lock`), '');
  ok(fettle(repo, ['gc']));
  assert.deepEqual(looseOurs(repo), [held, `${held}.lock`]);
  assert.equal(readFileSync(join(gitDir(repo), held), 'latin1'), value);
  assert.ok(packedRefs(repo).includes(`${value.trim()} ${held}\n`));
  assert.equal(repo.git('rev-parse', held), value.trim());
  rmSync(join(gitDir(repo), `${held}.lock`));
  ok(fettle(repo, ['gc']));
  assert.deepEqual(looseOurs(repo), []);
  assert.equal(repo.git('rev-parse', held), value.trim());
});

test('refs stored other than as files (extensions.refStorage) are left alone', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  withFettleRefs(repo);
  const ours = looseOurs(repo);
  repo.git('config', 'extensions.refStorage', 'reftable'); // git 2.39 ignores it in a version 0 repository
  const r = ok(fettle(repo, ['gc']));
  assert.match(r.stdout, /^Not packed: fettle's refs \(refs are stored as reftable\)\.$/m);
  assert.deepEqual(looseOurs(repo), ours);
  assert.ok(!existsSync(join(gitDir(repo), 'packed-refs')));
});

test('killed between the packed-refs rename and the pruning: every ref reads the same, the next round prunes', () => {
  const { repo, packedBefore } = userRepo();
  withFettleRefs(repo);
  const ours = looseOurs(repo);
  const refsBefore = allRefs(repo);
  const r = fettle(repo, ['gc'], { env: { FETTLE_FAILPOINTS: 'pack-refs.renamed=kill' } });
  assert.equal(r.code, -1, `killed: ${r.stderr}`);
  assert.deepEqual(looseOurs(repo), ours, 'nothing pruned yet');
  assert.equal(packedRefs(repo).match(OURS)?.length, ours.length, 'and all packed');
  assert.ok(!existsSync(join(gitDir(repo), 'packed-refs.lock')), 'the rename released the lock');
  assert.equal(userPart(repo), packedBefore);
  assert.equal(allRefs(repo), refsBefore);
  assert.equal(repo.git('fsck', '--no-dangling'), '');
  ok(fettle(repo, ['gc']));
  assert.deepEqual(looseOurs(repo), []);
  assert.equal(allRefs(repo), refsBefore);
});

test("retention's deletions of packed changes: git rewrites packed-refs without them", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const env = { FETTLE_HISTORY_MAX_COUNT: '2' };
  const ids = [0, 1, 2].map((n) => directWrite(repo, 'a.txt', version(n), { env, now: T0 + n }));
  ok(fettle(repo, ['gc'], { env, now: T0 + 5 }));
  assert.deepEqual(looseOurs(repo), []);
  ids.push(...[3, 4].map((n) => directWrite(repo, 'a.txt', version(n), { env, now: T0 + n })));
  ok(fettle(repo, ['gc'], { env, now: T0 + 10 }));
  const kept = repo.git('for-each-ref', '--format=%(refname:lstrip=2)', 'refs/fettle/').split('\n');
  // The writes' session ref (the branch's) stays: retention removes changes, not sessions.
  assert.deepEqual(kept.sort(), [...ids.slice(3), `sessions/${scriptSession(repo)}`].sort());
  assert.ok(!ids.slice(0, 3).some((id) => packedRefs(repo).includes(`refs/fettle/${id}`)));
  ok(fettle(repo, ['rollback', ids[4] as string], { env, now: T0 + 11 }));
  assert.equal(repo.read('a.txt').toString(), version(3));
});

test('git ref updates running while fettle packs lose nothing, user refs or fettle refs', async () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  withFettleRefs(repo);
  repo.write('b.txt', 'b\n');
  repo.commit('second');
  const [c1, c2] = [repo.git('rev-parse', 'HEAD~1'), repo.git('rev-parse', 'HEAD')];
  // Per round: create, move and (every third round) delete a user branch and a fettle ref, each a CAS.
  const ROUNDS = 60;
  const script = [
    'set -e',
    `for i in $(seq 1 ${ROUNDS}); do`,
    '  for ref in refs/heads/loop-$((i % 4)) refs/fettle/loop-$((i % 4)); do',
    `    git update-ref "$ref" ${c1} ""`,
    `    git update-ref "$ref" ${c2} ${c1}`,
    `    if [ $((i % 3)) -eq 0 ]; then git update-ref -d "$ref" ${c2}; fi`,
    '  done',
    '  if [ $((i % 3)) -ne 0 ]; then git update-ref -d refs/heads/loop-$((i % 4)) ' +
      c2 +
      '; git update-ref -d refs/fettle/loop-$((i % 4)) ' +
      c2 +
      '; fi',
    `  git update-ref refs/heads/keep-$i ${c1} ""; git update-ref refs/fettle/keep-$i ${c2} ""`,
    'done',
  ].join('\n');
  const loop = spawn('sh', ['-c', script], { cwd: repo.dir, env: repo.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  loop.stderr.on('data', (c) => (stderr += c));
  const done = new Promise<number | null>((resolve) => loop.on('close', resolve));
  let running = true;
  void done.then(() => (running = false));
  let rounds = 0;
  while (running || rounds === 0) {
    const r = runCli(['gc'], { cwd: repo.dir, env: { ...repo.env, FETTLE_NOW: String(T0 + 100) }, input: '' });
    assert.equal(r.code, 0, r.stderr);
    rounds++;
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(await done, 0, stderr);
  ok(fettle(repo, ['gc'], { now: T0 + 100 }));
  const refs = (prefix: string) =>
    repo
      .git('for-each-ref', '--format=%(refname) %(objectname)', prefix.slice(0, prefix.lastIndexOf('/') + 1))
      .split('\n')
      .filter((l) => l.startsWith(prefix));
  const keeps = Array.from({ length: ROUNDS }, (_, n) => n + 1).sort((a, b) => (`${a}` < `${b}` ? -1 : 1));
  assert.deepEqual(
    refs('refs/heads/keep-'),
    keeps.map((n) => `refs/heads/keep-${n} ${c1}`),
  );
  assert.deepEqual(
    refs('refs/fettle/keep-'),
    keeps.map((n) => `refs/fettle/keep-${n} ${c2}`),
  );
  assert.deepEqual(refs('refs/heads/loop-'), []);
  assert.deepEqual(refs('refs/fettle/loop-'), []);
  assert.ok(rounds > 1, `fettle packed while git ran: ${rounds} rounds`);
  assert.equal(repo.git('fsck', '--no-dangling'), '');
});

test('a proposal packed while pending is superseded on the hook path: git rewrites packed-refs, the newer is pending', () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const stage = (content: string, toolUseId: string) => {
    const call = { file: repo.path('a.txt'), content, cwd: repo.dir, session: 'S', toolUseId };
    const r = runHook(writePayload(call), { cwd: repo.dir, env: repo.env });
    assert.equal(r.code, 0, r.stderr);
    return /Staged change ([0-9a-z]{8})/.exec(r.stdout)?.[1] as string;
  };
  const older = stage(lines(40, 'large'), 'toolu_one');
  ok(fettle(repo, ['gc']));
  assert.ok(packedRefs(repo).includes(` refs/fettle/${older}\n`) && !looseOurs(repo).includes(`refs/fettle/${older}`));
  const newer = stage(lines(40, 'again'), 'toolu_two');
  assert.ok(newer && newer !== older);
  assert.ok(!packedRefs(repo).includes(` refs/fettle/${older}\n`));
  assert.equal(repo.git('for-each-ref', '--format=%(refname)', `refs/fettle/${older}`), '');
  assert.ok(repo.git('rev-parse', `refs/fettle-discarded/${older}`));
  ok(fettle(repo, ['confirm', newer]));
  assert.equal(repo.read('a.txt').toString(), lines(40, 'again'));
});
