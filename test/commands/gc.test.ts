// Bounded storage: staged changes expire after the TTL; history is kept by age and count, opportunistically
// on writes (bounded) and in full with `fettle gc`, which also removes unused test trees and link files.
// The clock is injected with FETTLE_NOW; nothing sleeps.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentWrite, runCli, runHook, writePayload } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { maintenanceSettled } from '../helpers/maintenance';
import {
  T0,
  directWrite,
  fettle,
  hasTestTree,
  keepsUserState,
  ok,
  openTestTree,
  testTreeDir,
  testTreeName,
  stageWrite,
  statusJson,
} from '../helpers/stage';

const DAY = 24 * 3600;
const BASE = lines(30);
const ids = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname:lstrip=2)', 'refs/fettle', 'refs/fettle-discarded')
    .split('\n')
    .filter((r) => r && !r.startsWith('sessions/'))
    .sort();
const sorted = (...list: string[]): string[] => [...list].sort();
const toolUseDir = (repo: Repo): string => join(repo.dir, '.git', 'fettle', 'tool-use');

test('a staged change expires after the TTL: status and log say so, its content stays readable', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
  assert.equal(statusJson(repo, { now: T0 + 599 }).pending[0]?.state, 'pending');
  assert.equal(statusJson(repo, { now: T0 + 600 }).pending[0]?.state, 'expired');
  assert.match(ok(fettle(repo, ['log'], { now: T0 + 900 })).stdout, new RegExp(`^${id} .* expired +threshold$`, 'm'));
  assert.equal(repo.git('show', `fettle/${id}:a.txt`) + '\n', lines(30, 'new'));
  assert.equal(fettle(repo, ['confirm', id], { now: T0 + 900 }).code, 1);
});

test('retention by age on write: older changes go; a staged change nobody decided on stays until gc', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE });
  const ttl = { FETTLE_WRITE_STAGE_TTL: String(2 * DAY) };
  const old = directWrite(repo, 'x.txt', 'x\n', { now: T0 });
  const pending = stageWrite(repo, 'a.txt', lines(30, 'new'), { now: T0 + 10, env: ttl });
  const recent = directWrite(repo, 'y.txt', 'y\n', { now: T0 + 200 });
  const now = directWrite(repo, 'z.txt', 'z\n', { now: T0 + DAY + 100, env: ttl });
  assert.deepEqual(ids(repo), sorted(pending, recent, now), `${old} is older than 24 h`);
  openTestTree(repo, pending, { now: T0 + 20, env: ttl });
  assert.ok(hasTestTree(repo), 'fettle test made the test tree');
  directWrite(repo, 'w.txt', 'w\n', { now: T0 + 2 * DAY + 20 });
  // "Expired" rests on the wall clock; a clock that jumped must not let a write delete an undecided proposal.
  assert.ok(ids(repo).includes(pending), 'an expired proposal survives retention on writes');
  ok(fettle(repo, ['gc'], { now: T0 + 2 * DAY + 30 }));
  assert.ok(!ids(repo).includes(pending), 'fettle gc removes it once expired and older than the maximum age');
  assert.ok(!hasTestTree(repo), 'its test tree, unused for more than the history kept, went too');
});

test('retention by count (FETTLE_HISTORY_MAX_COUNT): the newest are kept, pending ones not counted', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const env = { FETTLE_HISTORY_MAX_COUNT: '2' };
  const pending = stageWrite(repo, 'a.txt', lines(30, 'new'), { now: T0, env });
  const written = [1, 2, 3, 4].map((n) => directWrite(repo, `f${n}.txt`, `${n}\n`, { now: T0 + n, env }));
  assert.deepEqual(ids(repo), sorted(pending, ...written.slice(2)));
});

test('the hook applies retention after PostToolUse', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const old = directWrite(repo, 'x.txt', 'x\n', { now: T0 });
  const env = { ...repo.env, FETTLE_NOW: String(T0 + DAY + 1) };
  const { post } = agentWrite(
    { file: repo.path('a.txt'), content: BASE.replace('line 1\n', 'one\n'), cwd: repo.dir },
    env,
    (p, c) => repo.write(p.slice(repo.dir.length + 1), c),
  );
  assert.equal(post?.code, 0);
  assert.ok(!ids(repo).includes(old));
  assert.equal(ids(repo).length, 1);
});

test('a write removes at most 10 changes; fettle gc removes the rest and says what it freed', async () => {
  const repo = makeRepo({ 'a.txt': BASE });
  for (let n = 0; n < 12; n++) directWrite(repo, `f${n}.txt`, `${n}\n`, { now: T0 + n });
  directWrite(repo, 'late.txt', 'late\n', { now: T0 + DAY + 100 });
  assert.equal(ids(repo).length, 3, 'the 10 oldest went with the write');
  // 13 writes, each a pack for its previous bytes and one for what landed: the 16th started a roll-up of its own.
  await maintenanceSettled(repo.dir);
  const small = readdirSync(join(repo.dir, '.git', 'fettle', 'packs')).length;
  assert.ok(small > 1 && small < 26, `packs left to roll up: ${small}`);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['gc'], { now: T0 + DAY + 100 })));
  assert.deepEqual(r.stdout.split('\n').slice(1, 3), [
    'Kept 1 change (0 pending).',
    "The removed changes' objects are now unreachable: they go once older than git's gc.pruneExpire (2 weeks), as git's own gc would drop them.",
  ]);
  assert.match(r.stdout, new RegExp(`^Rolled ${small} small packs of fettle's into one\\.$`, 'm'));
  assert.match(r.stdout, /^Removed 2 changes from history \(2 older than 1d\): \w{8} \w{8}\.$/m);
  assert.equal(
    ok(fettle(repo, ['gc'], { now: T0 + DAY + 100 })).stdout,
    'Nothing to remove.\nKept 1 change (0 pending).\n',
  );
});

test('gc --dry-run removes nothing; --json lists what would go and why', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const old = directWrite(repo, 'x.txt', 'x\n', { now: T0 });
  directWrite(repo, 'y.txt', 'y\n', { now: T0 + 10 });
  const env = { FETTLE_HISTORY_MAX_COUNT: '1' };
  const r = ok(fettle(repo, ['gc', '--dry-run'], { env, now: T0 + 20 }));
  assert.equal(r.stdout.split('\n')[0], `Would remove 1 change from history (1 beyond the newest 1): ${old}.`);
  assert.equal(ids(repo).length, 2);
  const j = JSON.parse(ok(fettle(repo, ['gc', '--json'], { env, now: T0 + 20 })).stdout) as {
    removed: { id: string; why: string; path: string }[];
  };
  assert.deepEqual(
    j.removed.map(({ id, why, path }) => ({ id, why, path })),
    [{ id: old, why: 'count', path: 'x.txt' }],
  );
  assert.equal(ids(repo).length, 1);
});

/** Bytes of the files under `dir`, as gc counts what it frees (symlinks not followed). */
const bytesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? bytesUnder(join(dir, e.name)) : lstatSync(join(dir, e.name)).size),
    0,
  );

test('gc removes a test tree once no pending change and no recent fettle test uses it, and says what it freed', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'lib/b.txt': BASE });
  const env = { FETTLE_WRITE_STAGE_TTL: String(3 * DAY) };
  const gc = (now: number, args: string[] = []) => ok(fettle(repo, ['gc', ...args], { now, env })).stdout;
  const first = stageWrite(repo, 'a.txt', lines(30, 'new'), { env });
  const tree = openTestTree(repo, first, { env });
  assert.equal(tree, testTreeDir(repo));
  assert.doesNotMatch(gc(T0 + 2 * DAY), /test tree/, 'a staged change still waiting keeps it, however long unused');
  ok(fettle(repo, ['confirm', first], { now: T0 + 2 * DAY, env }));
  const second = stageWrite(repo, 'lib/b.txt', lines(30, 'new'), { now: T0 + 2 * DAY, env });
  openTestTree(repo, second, { now: T0 + 2 * DAY, env });
  ok(fettle(repo, ['discard', second], { now: T0 + 2 * DAY, env }));
  assert.doesNotMatch(gc(T0 + 2 * DAY + 60), /test tree/, 'used less than FETTLE_HISTORY_MAX_AGE ago');
  assert.match(gc(T0 + 3 * DAY + 60, ['--dry-run']), /^Would remove 1 test tree /m);
  assert.ok(hasTestTree(repo), 'a dry run removes nothing');
  const bytes = bytesUnder(tree);
  assert.ok(bytes > 0 && bytes < 1024, 'small enough to be said in bytes');
  const run = keepsUserState(repo, () => ok(fettle(repo, ['gc'], { now: T0 + 3 * DAY + 60, env })));
  assert.equal(
    run.stderr,
    `fettle: removing the test tree ${testTreeName(repo)}\n`,
    'progress on stderr, a plain line off a terminal',
  );
  const r = run.stdout;
  assert.match(
    r,
    new RegExp(
      `^Removed 1 test tree no pending change or recent \`fettle test\` uses, freeing ${bytes} B: ${testTreeName(repo)}\\.$`,
      'm',
    ),
  );
  assert.equal(existsSync(tree), false);
  assert.ok(!repo.git('worktree', 'list', '--porcelain').includes('/fettle/worktrees/'), 'git no longer lists it');
});

test('gc leaves a test tree a running fettle test holds, and removes what an earlier fettle left', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
  openTestTree(repo, id);
  ok(fettle(repo, ['discard', id]));
  // A fettle test running in it holds its lock (a live pid: this test's own process).
  const lock = join(repo.dir, '.git', 'fettle', 'locks', `test-${testTreeName(repo)}.lock`);
  writeFileSync(lock, `${process.pid}\n`);
  // An earlier fettle made one worktree per staged change, named by its id.
  const legacy = join(repo.dir, '.git', 'fettle', 'worktrees', 'ab12cd34');
  repo.git('worktree', 'add', '-q', '--detach', '--lock', legacy, 'HEAD');
  const later = T0 + 2 * DAY;
  const r = ok(fettle(repo, ['gc', '--json'], { now: later }));
  const j = JSON.parse(r.stdout) as { worktrees: { name: string; path: string; bytes: number }[] };
  assert.deepEqual(
    j.worktrees.map((w) => [w.name, w.path, w.bytes > 0]),
    [['ab12cd34', legacy, true]],
  );
  assert.ok(hasTestTree(repo), 'in use: kept');
  unlinkSync(lock);
  // Its directory deleted by hand: git still lists it (locked, so `git worktree prune` keeps it); gc unregisters it.
  rmSync(testTreeDir(repo), { recursive: true, force: true });
  assert.match(
    repo.git('worktree', 'list', '--porcelain'),
    new RegExp(`/fettle/worktrees/${testTreeName(repo)}\\n(.*\\n)*locked`),
  );
  assert.match(
    ok(fettle(repo, ['gc'], { now: later })).stdout,
    new RegExp(`^Removed 1 test tree .*, freeing 0 B: ${testTreeName(repo)}\\.$`, 'm'),
  );
  assert.ok(!repo.git('worktree', 'list', '--porcelain').includes('/fettle/worktrees/'), 'git no longer lists it');
});

test('gc removes a tool-use link whose tool call will never complete', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const env = { ...repo.env, FETTLE_NOW: String(T0) };
  const pre = runHook(
    writePayload({
      file: repo.path('a.txt'),
      content: BASE.replace('line 1\n', 'one\n'),
      cwd: repo.dir,
      toolUseId: 'toolu_denied',
    }),
    { cwd: repo.dir, env },
  );
  assert.equal(pre.code, 0);
  assert.equal(readdirSync(toolUseDir(repo)).length, 1, 'PreToolUse left its link; the user then denied the write');
  assert.match(
    ok(fettle(repo, ['gc'])).stdout,
    /^Nothing to remove\.\nKept 1 change \(0 pending\)\.\n/,
    'still awaited',
  );
  const r = ok(fettle(repo, ['gc'], { now: T0 + DAY + 1 }));
  assert.match(r.stdout, /^Removed 1 change from history .*\nRemoved 1 stale tool-use link file\.$/m);
  assert.deepEqual(readdirSync(toolUseDir(repo)), []);
});

test('invalid FETTLE_HISTORY_MAX_AGE / _MAX_COUNT: an error naming the variable, exit 2; the hook blocks', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  for (const [name, value] of [
    ['FETTLE_HISTORY_MAX_AGE', '1d'],
    ['FETTLE_HISTORY_MAX_COUNT', '0'],
  ] as const) {
    const r = fettle(repo, ['gc'], { env: { [name]: value } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`^fettle: ${name} must be a whole number of at least 1, got '${value}'\\.`));
    const hook = runCli(['hook'], {
      cwd: repo.dir,
      env: { ...repo.env, [name]: value },
      input: JSON.stringify(writePayload({ file: repo.path('a.txt'), content: 'x\n', cwd: repo.dir })),
    });
    assert.equal(hook.code, 2);
    assert.match(hook.stderr, new RegExp(name));
  }
  assert.ok(!existsSync(join(repo.dir, '.git', 'fettle')), 'nothing was recorded');
});

test("gc removes what sessions idle longer than the history kept were given to read, and keeps a recent session's", () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const reads = join(repo.home, '.data', 'fettle', 'reads');
  mkdirSync(join(reads, 'last'), { recursive: true });
  for (const f of ['old.json', 'new.json', 'last/old.json', 'last/new.json', 'old.json.1234.tmp'])
    writeFileSync(join(reads, f), '{}');
  const now = Math.floor(Date.now() / 1000);
  for (const f of ['old.json', 'last/old.json', 'old.json.1234.tmp'])
    utimesSync(join(reads, f), now - 31 * DAY, now - 31 * DAY);
  const env = { FETTLE_HISTORY_MAX_AGE: String(30 * DAY) };
  const dry = JSON.parse(ok(fettle(repo, ['gc', '--dry-run', '--json'], { now, env })).stdout);
  assert.deepEqual(dry.bookkeeping.sort(), ['reads/last/old.json', 'reads/old.json']);
  assert.ok(existsSync(join(reads, 'old.json')), 'a dry run removes nothing');
  const r = ok(fettle(repo, ['gc'], { now, env }));
  assert.match(r.stdout, /^Removed 2 stale bookkeeping files /m);
  assert.deepEqual(readdirSync(reads).sort(), ['last', 'new.json', 'old.json.1234.tmp']);
  assert.deepEqual(readdirSync(join(reads, 'last')), ['new.json']);
});

// Bookkeeping kept as long as the history: one older than it goes, a recent one stays.
const aged: [string, (repo: Repo) => string, string][] = [
  ['the state log of an idle session', (repo) => join(repo.dir, '.git', 'fettle', 'state'), '.jsonl'],
  ["a Bash command's snapshot never settled", (repo) => join(repo.home, '.data', 'fettle', 'bash'), '.json'],
];
for (const [what, dirOf, ext] of aged)
  test(`gc removes ${what} older than the history kept, and keeps a recent one`, () => {
    const repo = makeRepo({ 'a.txt': BASE });
    const dir = dirOf(repo);
    mkdirSync(dir, { recursive: true });
    for (const name of ['old', 'new']) writeFileSync(join(dir, `${name}${ext}`), '{"t":"Read","p":"a.txt"}\n');
    const now = Math.floor(Date.now() / 1000);
    utimesSync(join(dir, `old${ext}`), now - 31 * DAY, now - 31 * DAY);
    const r = ok(fettle(repo, ['gc'], { now, env: { FETTLE_HISTORY_MAX_AGE: String(30 * DAY) } }));
    assert.match(r.stdout, /^Removed 1 stale bookkeeping file /m);
    assert.deepEqual(readdirSync(dir), [`new${ext}`]);
  });
