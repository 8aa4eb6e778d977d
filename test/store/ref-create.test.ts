// A fresh ref created in process (ref-create.ts), checked with git itself: the ref reads as git would have written
// it, a name taken loose or packed is refused and left as it was, a writer's leftovers are swept only once it is
// dead, and a repository where git would do more than write the file (reflogs for every ref, shared permissions)
// gets its refs from git.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import { holdNewRef, newRefsDir, refsThroughGit, sweepNewRefs } from '../../src/store/ref-create';
import { loggingGit, subcommand } from '../helpers/git-log';
import { makeRepo, type Repo } from '../helpers/repo';
import { directWrite, stageWrite } from '../helpers/stage';

const commonOf = (repo: Repo) => join(repo.dir, '.git');
const openStore = (repo: Repo) => ({ commonDir: commonOf(repo), workTree: repo.dir, kind: 'repo' as const });
const leftovers = (repo: Repo) =>
  existsSync(newRefsDir(commonOf(repo))) ? readdirSync(newRefsDir(commonOf(repo))) : [];
const conflict = (error: unknown) => error instanceof FettleError && error.code === 'E_CONFLICT';

test('a held ref, committed, is the loose ref git reads, with nothing left beside it', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const head = repo.git('rev-parse', 'HEAD');
  const held = holdNewRef(openStore(repo), 'refs/fettle/abcd1234', head);
  await held.synced;
  assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '', 'not a ref before it is committed');
  assert.equal(await held.commit(), 'done');
  assert.equal(repo.git('rev-parse', 'refs/fettle/abcd1234'), head);
  assert.equal(readFileSync(join(commonOf(repo), 'refs/fettle/abcd1234'), 'latin1'), `${head}\n`);
  assert.deepEqual(leftovers(repo), []);
  repo.git('fsck', '--no-dangling');
});

test('a name taken as a loose ref is refused before anything is written, and the ref keeps its value', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const head = repo.git('rev-parse', 'HEAD');
  repo.git('update-ref', 'refs/fettle/taken123', head);
  await assert.rejects(holdNewRef(openStore(repo), 'refs/fettle/taken123', head).synced, conflict);
  assert.equal(repo.git('rev-parse', 'refs/fettle/taken123'), head);
  assert.deepEqual(leftovers(repo), []);
});

test('a name taken in packed-refs only is refused too', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const head = repo.git('rev-parse', 'HEAD');
  repo.git('update-ref', 'refs/fettle/packed12', head);
  repo.git('pack-refs', '--all');
  assert.equal(existsSync(join(commonOf(repo), 'refs/fettle/packed12')), false, 'packed, not loose');
  await assert.rejects(holdNewRef(openStore(repo), 'refs/fettle/packed12', head).synced, conflict);
  assert.equal(repo.git('rev-parse', 'refs/fettle/packed12'), head);
});

test('a name another writer creates while the value is held: the commit is refused, theirs stays', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  const head = repo.git('rev-parse', 'HEAD');
  const blob = repo.git('rev-parse', 'HEAD:a.txt');
  const held = holdNewRef(openStore(repo), 'refs/fettle/racer123', blob);
  await held.synced;
  repo.git('update-ref', 'refs/fettle/racer123', head);
  await assert.rejects(held.commit(), conflict);
  assert.equal(repo.git('rev-parse', 'refs/fettle/racer123'), head);
  assert.deepEqual(leftovers(repo), []);
});

test('an aborted hold leaves no file and no ref', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const held = holdNewRef(openStore(repo), 'refs/fettle/dropped1', repo.git('rev-parse', 'HEAD'));
  await held.abort();
  assert.deepEqual(leftovers(repo), []);
  assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
});

test("the sweep removes a dead writer's file and keeps a live one's, and another host's", async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const dir = newRefsDir(commonOf(repo));
  mkdirSync(dir, { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(join(dir, `${dead}-aaaaaaaaaaaa`), 'x\n');
  writeFileSync(join(dir, `${process.ppid}-bbbbbbbbbbbb`), 'x\n');
  // Another host's writer: its pid says nothing here.
  const other = join(dirname(dir), 'another-host');
  mkdirSync(other);
  writeFileSync(join(other, `${dead}-cccccccccccc`), 'x\n');
  await sweepNewRefs(commonOf(repo));
  assert.deepEqual(readdirSync(dir), [`${process.ppid}-bbbbbbbbbbbb`]);
  assert.deepEqual(readdirSync(other), [`${dead}-cccccccccccc`]);
});

// [what the repository has, the reason git creates fettle's refs there (undefined: fettle does)]
const gates: [string, (repo: Repo) => void, RegExp | undefined][] = [
  ['nothing special', () => undefined, undefined],
  ['core.logAllRefUpdates=always', (r) => r.git('config', 'core.logAllRefUpdates', 'always'), /logAllRefUpdates/],
  ['core.sharedRepository=group', (r) => r.git('config', 'core.sharedRepository', 'group'), /sharedRepository/],
];

for (const [what, setUp, why] of gates) {
  test(`refs through git with ${what}: ${why ?? 'no'}`, async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    setUp(repo);
    const reason = await refsThroughGit(openStore(repo));
    if (why) assert.match(reason ?? '', why);
    else assert.equal(reason, undefined);
  });
}

test('with core.logAllRefUpdates=always, records and staged changes get reflogs as git gives every ref', () => {
  const repo = makeRepo({ 'a.txt': 'line\n'.repeat(30) });
  repo.git('config', 'core.logAllRefUpdates', 'always');
  const id = directWrite(repo, 'a.txt', 'line\n'.repeat(29) + 'changed\n');
  assert.ok(existsSync(join(commonOf(repo), 'logs/refs/fettle', id)), 'a reflog for the record');
  const staged = stageWrite(repo, 'a.txt', 'other\n'.repeat(200));
  assert.ok(existsSync(join(commonOf(repo), 'logs/refs/fettle', staged)), 'a reflog for the staged change');
});

test('elsewhere the refs of a record and of a staged change are made with no git process, and leave nothing', () => {
  const repo = makeRepo({ 'a.txt': 'line\n'.repeat(30) });
  const git = loggingGit();
  const env = { PATH: git.path };
  const id = directWrite(repo, 'a.txt', 'line\n'.repeat(29) + 'changed\n', { env });
  const staged = stageWrite(repo, 'a.txt', 'other\n'.repeat(200), { env });
  // The record's and the proposal's refs are made in process; completing the write moves the record's (git).
  const updates = git.calls().filter((c) => subcommand(c) === 'update-ref');
  assert.deepEqual(
    updates.map((c) => c[c.indexOf('-m') + 1]),
    ['fettle: write a.txt'],
  );
  for (const ref of [id, staged]) assert.ok(existsSync(join(commonOf(repo), 'refs/fettle', ref)), `loose ${ref}`);
  assert.equal(existsSync(join(commonOf(repo), 'logs/refs/fettle')), false, 'no reflog, as git would keep none');
  assert.deepEqual(leftovers(repo), []);
  repo.git('fsck', '--no-dangling');
});
