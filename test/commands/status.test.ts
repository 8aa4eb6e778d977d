// `fettle status` end to end: pending staged changes with their expiry, recent writes, and the --json shape.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { literal, runCli, runHook, SELF, writePayload } from '../helpers/cli';
import { baseEnv, lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { T0, directWrite, fettle, keepsUserState, ok, stageWrite, statusJson, type StatusRow } from '../helpers/stage';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** a.txt staged at T0 (+30 -30), b.txt written directly 5 minutes earlier (+1 -1), new.txt created 10 minutes earlier. */
const scene = (): { repo: Repo; staged: string; direct: string; created: string } => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const created = directWrite(repo, 'new.txt', 'fresh\n', { now: T0 - 600 });
  const direct = directWrite(repo, 'b.txt', lines(30).replace('line 4\n', 'edit 4\n'), { now: T0 - 300 });
  const staged = stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  return { repo, staged, direct, created };
};

test('status with nothing recorded', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.equal(ok(fettle(repo, ['status'])).stdout, 'No staged changes waiting.\n');
  assert.deepEqual(statusJson(repo), {
    store: { kind: 'repository', path: repo.dir },
    session: null,
    pending: [],
    failed: [],
    recent: [],
  });
});

test('outside any repository, status and log say they show the private store, and where it is', () => {
  const home = tempDir();
  const dir = join(home, 'notes');
  mkdirSync(dir);
  const env = baseEnv(home);
  const store = join(home, '.data', 'fettle', 'store.git');
  const note = `Not in a git repository: showing what fettle recorded for files outside any repository (its private store, ${store}).`;
  const status = runCli(['status'], { cwd: dir, env });
  assert.equal(status.stdout, `${note}\n\nNo staged changes waiting.\n`);
  assert.equal(runCli(['log'], { cwd: dir, env }).stdout, `${note}\nfettle has no record of changes.\n`);
  for (const command of ['status', 'log'])
    assert.deepEqual(JSON.parse(runCli([command, '--json'], { cwd: dir, env }).stdout).store, {
      kind: 'private',
      path: store,
    });
});

test('a file outside any repository is shown by its absolute path, its leading / kept', () => {
  const home = tempDir();
  const dir = join(home, 'notes');
  mkdirSync(dir);
  const file = join(dir, 'a.txt');
  writeFileSync(file, lines(40));
  const env = { ...baseEnv(home), FETTLE_NOW: String(T0) };
  const run = (args: string[], input = '') => runCli(args, { cwd: dir, env, input });
  const direct = run(['write', 'a.txt'], lines(40).replace('line 1\n', 'one\n'));
  const size = lines(40).replace('line 1\n', 'one\n').length;
  assert.match(
    direct.stdout,
    new RegExp(
      `^fettle recorded ${literal(file)} \\(${size} B, 40 lines, \\+1 -1 ~1\\) as ([0-9a-z]{8}); undo with: .+ rollback \\1\\n$`,
    ),
  );
  const id = /as ([0-9a-z]{8});/.exec(direct.stdout)?.[1] ?? assert.fail(direct.stdout);
  const staged = run(['write', 'a.txt'], lines(40, 'new'));
  assert.match(staged.stdout, new RegExp(`nothing was written to ${literal(file)}\\.$`, 'm'));
  // [command, a line that names the file]
  const shown: [string[], RegExp][] = [
    [['status'], new RegExp(`^  [0-9a-z]{8}  ${literal(file)}  \\+40 -40  staged`, 'm')],
    [['log'], new RegExp(`^${id}  .*  direct  ${literal(file)}  \\+1 -1 `, 'm')],
    [['rollback', id], new RegExp(`^Rolled back ${id}: ${literal(file)}: restored its previous bytes\\.`)],
  ];
  for (const [args, line] of shown) assert.match(run(args).stdout, line, args.join(' '));
  assert.equal(JSON.parse(run(['log', '--json']).stdout).changes[0].path, file.slice(1), '--json keeps the tree path');
});

test('records whose tool call has not reported back are one block saying what becomes of them, not rows', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30), 'c.txt': lines(30) });
  const env = { ...repo.env, FETTLE_NOW: String(T0) };
  // PreToolUse kept the previous bytes; the tool has not run yet (its permission prompt is open).
  const open = ['a.txt', 'b.txt'].map((name, n) => {
    const content = lines(30).replace('line 3\n', 'three\n');
    const r = runHook(writePayload({ file: repo.path(name), content, cwd: repo.dir, toolUseId: `toolu_${n}` }), {
      cwd: repo.dir,
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    return statusJson(repo).recent.find((c) => c.path === name)?.id ?? assert.fail(`${name} is not recorded`);
  });
  const direct = directWrite(repo, 'c.txt', lines(30).replace('line 4\n', 'four\n'));
  const out = ok(fettle(repo, ['status'])).stdout;
  assert.doesNotMatch(out, /incomplete/);
  assert.equal(out.match(/^Not reported back \(2\): .*$/gm)?.length, 1, out);
  for (const id of open) assert.equal(out.split(id).length, 2, `${id} is named once`);
  assert.match(out, /Each is settled from the disk when the agent's turn or session ends/);
  assert.match(out, new RegExp(`^Recent:\\n  ${direct}  c\\.txt  \\+1 -1  direct, applied [^\\n]*$`, 'm'));
  assert.equal(statusJson(repo).recent.filter((c) => c.state === 'incomplete').length, 2, '--json lists them all');
});

// [label, -C argument]: the directory is named, git is not blamed, exit 2
const badDirs: [string, string, string][] = [
  ['a directory that does not exist', '/nonexistent/dir', 'no such directory'],
  ['a file', '/etc/hostname', 'not a directory'],
];
for (const [label, dir, why] of badDirs) {
  test(`-C ${label}: says so, exit 2`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    for (const command of [['status'], ['log'], ['rollback', 'a.txt'], ['install']]) {
      const r = fettle(repo, ['-C', dir, ...command]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^fettle: -C ${dir}: ${why} \\(${dir}\\)\\.$`, 'm'), command[0]);
      assert.doesNotMatch(r.stderr, /git|ENOENT/);
    }
  });
}

test('the hook run with -C a missing directory says so and lets the write go on unprotected (exit 1)', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = runCli(['-C', '/nonexistent/dir', 'hook'], {
    cwd: repo.dir,
    env: repo.env,
    input: JSON.stringify(writePayload({ file: repo.path('a.txt'), content: 'b\n', cwd: repo.dir })),
  });
  assert.deepEqual(
    [r.code, r.stdout, r.stderr],
    [1, '', 'fettle: -C /nonexistent/dir: no such directory; this tool call was not protected by fettle.\n'],
  );
});

test('status lists pending changes with id, path, counts, age and expiry, then recent writes', () => {
  const { repo, staged, direct, created } = scene();
  const out = keepsUserState(repo, () => ok(fettle(repo, ['status'], { now: T0 + 120 })).stdout);
  assert.deepEqual(out.split('\n'), [
    'Pending (1):',
    `  ${staged}  a.txt  +30 -30  staged 2m ago, expires in 8m`,
    `  apply with \`${SELF} confirm <id>\`, drop with \`${SELF} discard <id>\``,
    '',
    'Recent:',
    `  ${direct}  b.txt  +1 -1  direct, applied 7m ago`,
    `  ${created}  new.txt  new-file  direct, applied 12m ago`,
    '',
  ]);
});

test('status --json has {pending, recent} rows with id, path, tier, state, added, removed, at, expiresAt', () => {
  const { repo, staged, direct, created } = scene();
  const s = keepsUserState(repo, () => statusJson(repo, { now: T0 + 120 }));
  const pick = ({ id, path, tier, state, added, removed, at, expiresAt }: StatusRow) => ({
    id,
    path,
    tier,
    state,
    added,
    removed,
    at,
    expiresAt,
  });
  assert.deepEqual(s.pending.map(pick), [
    {
      id: staged,
      path: 'a.txt',
      tier: 'staged',
      state: 'pending',
      added: 30,
      removed: 30,
      at: iso(T0),
      expiresAt: iso(T0 + 600),
    },
  ]);
  assert.deepEqual(s.recent.map(pick), [
    {
      id: direct,
      path: 'b.txt',
      tier: 'direct',
      state: 'applied',
      added: 1,
      removed: 1,
      at: iso(T0 - 300),
      expiresAt: null,
    },
    {
      id: created,
      path: 'new.txt',
      tier: 'direct',
      state: 'applied',
      added: null,
      removed: null,
      at: iso(T0 - 600),
      expiresAt: null,
    },
  ]);
});

test('FETTLE_WRITE_STAGE_TTL sets the expiry shown', () => {
  const { repo, staged } = scene();
  const env = { FETTLE_WRITE_STAGE_TTL: '3600' };
  assert.match(
    ok(fettle(repo, ['status'], { env })).stdout,
    new RegExp(`^  ${staged}  a\\.txt  \\+30 -30  staged 0s ago, expires in 1h$`, 'm'),
  );
  assert.equal(statusJson(repo, { env }).pending[0]?.expiresAt, iso(T0 + 3600));
});

test('an expired change is listed under pending, marked EXPIRED, without the confirm hint', () => {
  const { repo, staged } = scene();
  const out = ok(fettle(repo, ['status'], { now: T0 + 601 })).stdout;
  assert.match(out, new RegExp(`^Pending \\(1\\):\\n  ${staged}  a\\.txt  \\+30 -30  .*  EXPIRED$`, 'm'));
  assert.equal(out.includes('apply with'), false);
  assert.deepEqual(
    statusJson(repo, { now: T0 + 601 }).pending.map((c) => c.state),
    ['expired'],
  );
});

test('an expired row says how long ago it expired, as confirm does', () => {
  const { repo, staged } = scene();
  const later = T0 + 600 + 8 * 60;
  assert.match(fettle(repo, ['confirm', staged], { now: later }).stderr, /expired 8 minutes ago/);
  const row =
    ok(fettle(repo, ['status'], { now: later }))
      .stdout.split('\n')
      .find((l) => l.includes(staged)) ?? '';
  assert.match(row, /expired 8m ago/);
});

test('applied and discarded changes move from pending to recent', () => {
  const { repo, staged } = scene();
  const second = stageWrite(repo, 'b.txt', lines(30, 'other'));
  ok(fettle(repo, ['confirm', staged]));
  ok(fettle(repo, ['discard', second]));
  const s = statusJson(repo);
  assert.deepEqual(s.pending, []);
  const state = Object.fromEntries(s.recent.map((c) => [c.id, c.state]));
  assert.equal(state[staged], 'applied');
  assert.equal(state[second], 'discarded');
  assert.equal(ok(fettle(repo, ['status'])).stdout.split('\n')[0], 'No staged changes waiting.');
});

test('recent shows the 10 newest writes, newest first', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const ids = Array.from({ length: 12 }, (_, n) =>
    directWrite(repo, 'a.txt', lines(30).replace('line 1\n', `edit ${n}\n`), { now: T0 + n }),
  );
  const s = statusJson(repo, { now: T0 + 100 });
  assert.deepEqual(
    s.recent.map((c) => c.id),
    ids.slice(2).reverse(),
  );
});

test('changes recorded by the hook are listed: a staged Write pending, a Write without its PostToolUse incomplete', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const env = { ...repo.env, FETTLE_NOW: String(T0) };
  const big = runHook(
    writePayload({ file: repo.path('a.txt'), content: lines(30, 'x'), cwd: repo.dir, toolUseId: 'toolu_a' }),
    { cwd: repo.dir, env },
  );
  const id = /Staged change ([0-9a-z]{8})/.exec(big.json?.hookSpecificOutput?.permissionDecisionReason ?? '')?.[1];
  assert.ok(id, big.stdout);
  assert.equal(
    runHook(
      writePayload({ file: repo.path('b.txt'), content: 'small\n' + lines(30), cwd: repo.dir, toolUseId: 'toolu_b' }),
      { cwd: repo.dir, env },
    ).code,
    0,
  );
  const s = statusJson(repo);
  assert.deepEqual(
    s.pending.map((c) => [c.id, c.path, c.tier, c.state]),
    [[id, 'a.txt', 'staged', 'pending']],
  );
  assert.deepEqual(
    s.recent.map((c) => [c.path, c.tier, c.state]),
    [['b.txt', 'direct', 'incomplete']],
  );
});

test("-C <dir> shows the repository's changes from another working directory", () => {
  const { repo, staged } = scene();
  const elsewhere = keepsUserState(repo, () => statusJson(repo, { cwd: repo.home }));
  assert.deepEqual(elsewhere.pending, [], 'outside any repository, status reads the private store');
  const viaC = JSON.parse(ok(fettle(repo, ['-C', repo.dir, 'status', '--json'], { cwd: repo.home })).stdout) as {
    pending: StatusRow[];
  };
  assert.deepEqual(
    viaC.pending.map((c) => c.id),
    [staged],
  );
  assert.match(
    ok(fettle(repo, ['-C', 'repo', 'status'], { cwd: repo.home })).stdout,
    new RegExp(`^  ${staged}  a\\.txt `, 'm'),
  );
});
