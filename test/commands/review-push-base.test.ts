// `fettle review --push` of changes made on bytes the base commit does not hold (the person's uncommitted edits,
// another session's): said, never pushed without a choice (`--base head`: the changes alone, on the committed
// files; `--base disk`: with those bytes), asked at a terminal, refused without one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentWrite, CLI } from '../helpers/cli';
import { startPty } from '../helpers/pty';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { fettle, ok, stageWrite } from '../helpers/stage';

const BASE = lines(30);
const MINE = BASE.replace('line 1\n', 'mine 1\n');
const STAGE = { env: { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5' } };
/** Lines 15-24 rewritten by the agent, on `text`. */
const agents = (text: string) => text.replace(/^line (1[5-9]|2[0-4])$/gm, 'agent $1');

const withRemote = (repo: Repo) => {
  const bare = join(tempDir(), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: repo.env });
  repo.git('remote', 'add', 'origin', bare);
  repo.git('push', '-q', 'origin', 'main');
  return (...a: string[]) =>
    execFileSync('git', ['--git-dir', bare, ...a], { env: repo.env })
      .toString('utf8')
      .trim();
};
const branches = (bareGit: (...a: string[]) => string) => bareGit('for-each-ref', '--format=%(refname)', 'refs/heads');

test('a proposal made on uncommitted bytes: refused without --base, pushed alone on the committed file with --base head', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const bareGit = withRemote(repo);
  repo.write('a.txt', MINE);
  const id = stageWrite(repo, 'a.txt', agents(MINE), STAGE);
  const refused = fettle(repo, ['review', id, '--push']);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /^fettle: The changes were made on bytes that are not in commit [0-9a-f]{12} \(uncommitted edits, or another session's\): a\.txt\. .* Nothing was pushed\.$/m,
  );
  assert.match(refused.stderr, /--base head/);
  const json = fettle(repo, ['review', id, '--push', '--json']);
  assert.equal(JSON.parse(json.stdout).error.code, 'E_USAGE');
  assert.equal(branches(bareGit), 'refs/heads/main', 'nothing was pushed');
  ok(fettle(repo, ['review', id, '--push', '--base', 'head']));
  assert.equal(bareGit('rev-list', '--count', `main..fettle/${id}`), '1', 'one commit on the base');
  assert.equal(`${bareGit('show', `fettle/${id}:a.txt`)}\n`, agents(BASE), "the agent's lines, not the person's");
  assert.equal(repo.read('a.txt').toString(), MINE, 'the file on disk is untouched');
});

test('an option that is not head or disk, or --base without --push, is a usage error', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', agents(BASE), STAGE);
  const cases: [string[], RegExp][] = [
    [['--push', '--base', 'HEAD~1'], /^fettle: --base takes head or disk, got 'HEAD~1'\.$/m],
    [['--base', 'head'], /^fettle: --base says what a push is made on: it goes with --push\.$/m],
  ];
  for (const [args, said] of cases) {
    const r = fettle(repo, ['review', id, ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, said);
  }
});

test('a proposal made on the committed file needs no choice', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const bareGit = withRemote(repo);
  const id = stageWrite(repo, 'a.txt', agents(BASE), STAGE);
  ok(fettle(repo, ['review', id, '--push']));
  assert.equal(`${bareGit('show', `fettle/${id}:a.txt`)}\n`, agents(BASE));
});

test("a session that wrote over another session's edits: --base head pushes its own edits alone", () => {
  const repo = makeRepo({ 'f.txt': lines(20) });
  const bareGit = withRemote(repo);
  const write = (session: string, content: string, toolUseId: string) =>
    agentWrite({ file: repo.path('f.txt'), content, cwd: repo.dir, session, toolUseId }, repo.env, (p, c) =>
      writeFileSync(p, c),
    );
  const a1 = lines(20).replace('line 1\n', 'A one\n');
  const b1 = a1.replace('line 9\n', 'B nine\n');
  write('A', a1, 't1');
  write('B', b1, 't2');
  write('A', b1.replace('line 15\n', 'A fifteen\n'), 't3');
  const refused = fettle(repo, ['review', '--session', 'A', '--push']);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /\(uncommitted edits, or another session's\): f\.txt\./);
  assert.equal(branches(bareGit), 'refs/heads/main');
  ok(fettle(repo, ['review', '--session', 'A', '--push', '--base', 'head']));
  const pushed = `${bareGit('show', 'fettle/sessions/A:f.txt')}\n`;
  assert.equal(pushed, a1.replace('line 15\n', 'A fifteen\n'), "A's two edits, not B's");
  ok(fettle(repo, ['review', '--session', 'A', '--push', '--base', 'disk', '--branch', 'as-made']));
  assert.equal(`${bareGit('show', 'as-made:f.txt')}\n`, b1.replace('line 15\n', 'A fifteen\n'));
});

test('at a terminal the person is told which files and asked; h pushes on the committed file', async () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const bareGit = withRemote(repo);
  repo.write('a.txt', MINE);
  const id = stageWrite(repo, 'a.txt', agents(MINE), STAGE);
  const env = { ...repo.env, FETTLE_NOW: '1750000000', TERM: 'xterm-256color' };
  const pty = startPty([process.execPath, CLI, 'review', id, '--push'], { cwd: repo.dir, env });
  try {
    await pty.waitFor(/\[h\/d\/N\] $/m);
    assert.match(pty.screen(), /when the changes were made \(uncommitted edits, or another session's\):\n {2}a\.txt\n/);
    pty.keys('h', 'Enter');
    await pty.waitFor(/EXIT=0/);
  } finally {
    pty.close();
  }
  assert.equal(`${bareGit('show', `fettle/${id}:a.txt`)}\n`, agents(BASE));
});
