// `fettle test <id...> -- <cmd>`: which changes it applies, how the command runs in the test tree (its output
// streams through, its exit code is fettle's), and what it refuses. The tree's contents: test-tree.test.ts.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, SELF } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import {
  T0,
  fettle,
  keepsUserState,
  ok,
  openTestTree,
  scriptSession,
  stageWrite,
  testTreeDir,
  testTreeName,
} from '../helpers/stage';

const BASE = lines(30);
const PROPOSED = lines(30, 'new');
/** Prints what the test tree holds and exits with the code given. */
const probe = (code: number) => [
  '--',
  'sh',
  '-c',
  `head -1 a.txt; cat lib/util.txt untracked.txt; echo "in $(basename "$PWD")"; exit ${code}`,
];

const scene = (): { repo: Repo; id: string; status: string } => {
  const repo = makeRepo({ 'a.txt': BASE, 'lib/util.txt': 'util\n' });
  repo.write('untracked.txt', 'mine\n');
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  return { repo, id, status: repo.git('status', '--porcelain') };
};

test('a passing command: output streamed, exit 0, PASS; the working tree untouched', () => {
  const { repo, id, status } = scene();
  const r = keepsUserState(repo, () => fettle(repo, ['test', id, ...probe(0)]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `new 1\nutil\nmine\nin ${testTreeName(repo)}\n`);
  const tree = testTreeDir(repo);
  assert.deepEqual(r.stderr.trimEnd().split('\n'), [
    `fettle: creating the test tree of the commands' session ${scriptSession(repo)} (first use): checking out your files`,
    `fettle: running \`sh -c 'head -1 a.txt; cat lib/util.txt untracked.txt; echo "in $(basename "$PWD")"; exit 0'\` in the test tree of ${id} (created now, first use): ${tree}`,
    `fettle: PASS: \`sh -c 'head -1 a.txt; cat lib/util.txt untracked.txt; echo "in $(basename "$PWD")"; exit 0'\` exited with code 0 in the test tree of ${id}; your working tree was not touched.`,
  ]);
  assert.equal(repo.git('status', '--porcelain'), status);
  assert.equal(repo.read('a.txt').toString(), BASE);
});

test('a failing command: its exit code is returned and FAIL reported; the tree is made only once', () => {
  const { repo, id, status } = scene();
  ok(fettle(repo, ['test', id, '--', 'true']));
  const r = keepsUserState(repo, () => fettle(repo, ['test', id, ...probe(3)]));
  assert.equal(r.code, 3);
  assert.doesNotMatch(r.stderr, /first use/);
  assert.match(
    r.stderr,
    new RegExp(
      `\nfettle: FAIL: \`.*\` exited with code 3 in the test tree of ${id}; your working tree was not touched\\.\n$`,
    ),
  );
  assert.equal(repo.git('status', '--porcelain'), status);
});

test('the command starts in the test tree copy of the directory fettle runs in; git there sees your HEAD', () => {
  const { repo, id } = scene();
  const r = ok(
    fettle(repo, ['test', id, '--', 'sh', '-c', 'pwd; git rev-parse HEAD; git status --porcelain'], {
      cwd: repo.path('lib'),
    }),
  );
  assert.equal(
    r.stdout,
    `${join(testTreeDir(repo), 'lib')}\n${repo.git('rev-parse', 'HEAD')}\nM  a.txt\nA  untracked.txt\n`,
    'the staged change and the untracked file show as changes against your HEAD',
  );
});

test('several ids, or --session: all applied at once; the old form without -- still names one change', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE, 'c.txt': BASE });
  const env = { FETTLE_SESSION: 'agent-7' };
  const a = stageWrite(repo, 'a.txt', PROPOSED, { env });
  const b = stageWrite(repo, 'b.txt', PROPOSED, { env, now: T0 + 1 });
  const c = stageWrite(repo, 'c.txt', PROPOSED, { now: T0 + 2 });
  const heads = ['sh', '-c', 'head -qn1 a.txt b.txt c.txt'];
  const both = ok(fettle(repo, ['test', b, a, '--', ...heads], { now: T0 + 3 }));
  assert.equal(both.stdout, 'new 1\nnew 1\nline 1\n');
  assert.match(both.stderr, new RegExp(`in the test tree of ${a}, ${b} \\(`), 'oldest first, as confirming them would');
  assert.match(both.stderr, /fettle: creating the test tree of agent session agent-7 \(first use\)/);
  const session = ok(fettle(repo, ['test', '--session', 'agent-7', '--', ...heads], { now: T0 + 3 }));
  assert.equal(session.stdout, 'new 1\nnew 1\nline 1\n');
  const mixed = ok(fettle(repo, ['test', a, c, '--', ...heads], { now: T0 + 3 }));
  assert.equal(mixed.stdout, 'new 1\nline 1\nnew 1\n');
  assert.match(mixed.stderr, /changes without an agent session/, 'changes of several sessions share the common tree');
  const old = ok(fettle(repo, ['test', c, 'head', '-1', 'c.txt'], { now: T0 + 3 }));
  assert.equal(old.stdout, 'new 1\n');
});

test('bad arguments are refused with the next step; an applied change has no staged tree', () => {
  const { repo, id } = scene();
  const cases: [string[], number, RegExp][] = [
    [
      ['test', id, '--'],
      2,
      new RegExp(
        `^fettle: Give the command to run after --\\.\\nFor example: \`${SELF.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} test <id> -- npm test\`\\.\\n$`,
      ),
    ],
    [['test', '--', 'true'], 2, /^fettle: Name the staged change\(s\) to test, or --session <id>\./],
    [['test', 'zzzzzzzz', '--', 'true'], 1, /^fettle: No change 'zzzzzzzz'/],
    [['test', '--session', 'nobody', '--', 'true'], 1, /^fettle: Session 'nobody' has no staged change waiting/],
    [['test', id, '--link', '/abs', '--', 'true'], 2, /^fettle: --link \/abs: '\/abs' is absolute/],
    [
      ['test', id, '--link', '.git/hooks', '--', 'true'],
      2,
      /^fettle: --link \.git\/hooks: '\.git\/hooks' is inside \.git/,
    ],
  ];
  for (const [args, code, message] of cases) {
    const r = fettle(repo, args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  assert.equal(existsSync(testTreeDir(repo)), false, 'nothing refused made a test tree');
  const missing = fettle(repo, ['test', id, '--', 'no-such-command-xyz']);
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /FAIL: `no-such-command-xyz` exited with code 127 \(command not found\)/);
  ok(fettle(repo, ['confirm', id], { now: T0 + 1 }));
  const applied = fettle(repo, ['test', id, '--', 'true'], { now: T0 + 1 });
  assert.equal(applied.code, 2);
  assert.match(
    applied.stderr,
    /is applied; only a staged change not yet confirmed or discarded has a staged tree to test/,
  );
});

test('an expired change can still be tested, with a note; a test tree gone missing is made again', () => {
  const { repo, id } = scene();
  const tree = openTestTree(repo, id);
  repo.git('worktree', 'remove', '--force', '--force', tree);
  const r = fettle(repo, ['test', id, '--', 'head', '-1', 'a.txt'], { now: T0 + 3600 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'new 1\n');
  assert.match(
    r.stderr,
    new RegExp(`^fettle: change ${id} expired 50 minutes ago, so \`fettle confirm\` would refuse it`, 'm'),
  );
  assert.match(r.stderr, /\(created now, first use\)/);
  rmSync(tree, { recursive: true, force: true });
  assert.equal(ok(fettle(repo, ['test', id, '--', 'head', '-1', 'a.txt'])).stdout, 'new 1\n', 'deleted by hand');
});

test('a test tree whose index a crash left unreadable is checked out again', () => {
  const { repo, id } = scene();
  openTestTree(repo, id);
  writeFileSync(repo.path(`.git/worktrees/${testTreeName(repo)}/index`), 'DIRC torn');
  const r = ok(fettle(repo, ['test', id, '--', 'head', '-1', 'a.txt']));
  assert.equal(r.stdout, 'new 1\n');
  assert.match(r.stderr, /\(its index was unreadable: checked out again\)/);
  assert.match(ok(fettle(repo, ['test', id, '--', 'true'])).stderr, /\(up to date\)/);
});

test('in a repository with no commit yet, the test tree starts from the untracked files', () => {
  const repo = makeRepo({ 'a.txt': BASE }, { commit: false });
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  const r = ok(fettle(repo, ['test', id, '--', 'sh', '-c', 'ls; head -1 a.txt']));
  assert.equal(r.stdout, 'a.txt\nnew 1\n');
});

/** Spawns the CLI and resolves with its exit code and output once it exits. */
const started = (repo: Repo, args: string[]) => {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { done, stderr: () => stderr };
};

const until = async (what: string, check: () => boolean): Promise<void> => {
  for (let n = 0; n < 400 && !check(); n++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(check(), `timed out waiting for ${what}`);
};

test('a second fettle test of the same tree waits for the first, which keeps its tree while it runs', async () => {
  const { repo, id } = scene();
  const gate = join(repo.home, 'gate');
  const first = started(repo, [
    'test',
    id,
    '--',
    'sh',
    '-c',
    `touch "${gate}.in"; while [ ! -e "${gate}" ]; do sleep 0.05; done; head -1 a.txt`,
  ]);
  await until('the first command to start', () => existsSync(`${gate}.in`));
  const second = started(repo, ['test', id, '--', 'true']);
  await until('the second to say it waits', () => second.stderr().includes('waiting for another fettle test'));
  rmSync(`${gate}.in`);
  spawn('touch', [gate]);
  const [a, b] = await Promise.all([first.done, second.done]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.ok(
    b.stderr.includes(`fettle: waiting for another fettle test to finish in the test tree ${testTreeName(repo)}\n`),
    b.stderr,
  );
});
