// `fettle review -i` in a real terminal (tmux): hunks asked one by one with single keys, `?` for help, a comment on
// its own line, nothing applied before the final question, then everything decided applied as one set.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLI, runHook } from '../helpers/cli';
import { startPty } from '../helpers/pty';
import { makeRepo, type Repo } from '../helpers/repo';
import { fettle, ok, stageWrite, statusJson } from '../helpers/stage';

const SESSION = 's-interactive';
const ENV = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5', FETTLE_SESSION: SESSION, FETTLE_NOW: '1750000000' };
const rows = (n: number) => Array.from({ length: n }, (_, k) => `line ${k + 1}`);
const text = (upper: number[]) =>
  `${rows(60)
    .map((l, k) => (upper.includes(k + 1) ? l.toUpperCase() : l))
    .join('\n')}\n`;

const staged = (): { repo: Repo; id: string } => {
  const repo = makeRepo({ 'f.txt': text([]) });
  return { repo, id: stageWrite(repo, 'f.txt', text([3, 30, 55]), { env: ENV }) };
};

const review = (repo: Repo, args: string[]) =>
  startPty([process.execPath, CLI, 'review', '-i', ...args], {
    cwd: repo.dir,
    env: { ...repo.env, ...ENV, TERM: 'xterm-256color', PAGER: 'cat' },
  });

test('review -i: keep 1, comment and discard 2, help, leave 3; nothing applied until the last question', async () => {
  const { repo, id } = staged();
  const pty = review(repo, [id]);
  try {
    await pty.waitFor(/\(1\/3\) Keep this hunk \[y,n,l,a,d,f,k,c,q,\?\]\? $/m);
    assert.match(pty.screen(), /f\.txt {2}change .*, hunk 1 of 3\n@@ -1,6 \+1,6 @@/);
    pty.keys('y');
    await pty.waitFor(/\(2\/3\) Keep this hunk/);
    pty.keys('c');
    await pty.waitFor(/Comment for the agent/);
    pty.keys('keep the lower case', 'Enter');
    await pty.waitFor(/comment: keep the lower case/);
    pty.keys('n');
    await pty.waitFor(/\(3\/3\) Keep this hunk/);
    pty.keys('?');
    await pty.waitFor(/Ctrl-C - quit, applying nothing/);
    pty.keys('l');
    await pty.waitFor(/Apply all of it now, or nothing \[y,n\]\? $/m);
    assert.match(pty.screen(), /f\.txt \(.*\): keep 1; discard 2\n {2}1 comment for the agent/);
    assert.equal(repo.read('f.txt').toString(), text([]), 'nothing applied before the last answer');
    pty.keys('y');
    await pty.waitFor(/EXIT=0/);
  } finally {
    pty.close();
  }
  assert.equal(repo.read('f.txt').toString(), text([3]));
  const [rest] = statusJson(repo, { env: ENV }).pending;
  ok(fettle(repo, ['confirm', rest?.id ?? ''], { env: ENV }));
  assert.equal(repo.read('f.txt').toString(), text([3, 55]));
  const prompt = { session_id: SESSION, hook_event_name: 'UserPromptSubmit', prompt: 'next', cwd: repo.dir };
  const said = runHook(prompt, { cwd: repo.dir, env: repo.env }).stdout;
  assert.match(said, /Why they dropped f\.txt \(change [0-9a-z]{8}, hunk 2\): \\"keep the lower case\\"/);
  assert.notEqual(id, rest?.id);
});

test('review -i: Ctrl-C applies nothing', async () => {
  const { repo } = staged();
  const pty = review(repo, ['--session', SESSION]);
  try {
    await pty.waitFor(/\(1\/3\) Keep this hunk/);
    pty.keys('y');
    await pty.waitFor(/\(2\/3\)/);
    pty.keys('C-c');
    await pty.waitFor(/Quit: nothing was applied\.\nEXIT=0/);
  } finally {
    pty.close();
  }
  assert.equal(repo.read('f.txt').toString(), text([]));
  assert.equal(statusJson(repo, { env: ENV }).pending.length, 1);
});

test('review -i without a terminal says so and points to --web and --hunks', () => {
  const { repo, id } = staged();
  const r = fettle(repo, ['review', '-i', id], { env: ENV });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /asks about each hunk in a terminal, and this is not one\.\n.*review --web.*confirm <id> --hunks 1,3/,
  );
});
