// Tier: slow, two clones and a bare remote per test, each share and fetch a real push or fetch (scripts/test-tiers.mjs).
// `fettle share` and `fettle fetch` through a real bare remote between two clones: a teammate reads a shared session
// as its author does; only fettle's own namespace moves on either side; shares never overwrite each other, send
// only what is new, and keep prompts local unless asked (then redacted); nothing fetched is a change here.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { startPage } from '../helpers/browser';
import { CLI, runHook, type Run } from '../helpers/cli';
import { baseEnv, lines, makeRepo, repoAt, tempDir, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok, stageWrite, T0 } from '../helpers/stage';

const SECRET = `AKIA${'Q'.repeat(16)}`;

interface Team {
  remote: string;
  alice: Repo;
  bob: Repo;
}

const clone = (remote: string): Repo => {
  const home = tempDir();
  const dir = join(home, 'clone');
  execFileSync('git', ['clone', '-q', remote, dir], { env: baseEnv(home) });
  return repoAt(dir, home);
};

const team = (): Team => {
  const remote = join(tempDir(), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const alice = makeRepo({ 'f.txt': lines(20) });
  alice.git('remote', 'add', 'origin', remote);
  alice.git('push', '-q', 'origin', 'main');
  return { remote, alice, bob: clone(remote) };
};

/** One turn of `session`: a prompt, then a write. */
const turn = (repo: Repo, session: string, prompt: string, file: string, content: string): string => {
  const said = { session_id: session, hook_event_name: 'UserPromptSubmit', prompt, cwd: repo.dir };
  assert.equal(runHook(said, { cwd: repo.dir, env: repo.env }).code, 0);
  return directWrite(repo, file, content, { env: { FETTLE_SESSION: session } });
};

const refsOf = (git: (...a: string[]) => string, ...prefixes: string[]): string =>
  git('for-each-ref', '--format=%(refname) %(objectname)', ...prefixes);
const remoteGit =
  (remote: string) =>
  (...args: string[]): string =>
    execFileSync('git', ['-C', remote, ...args], { encoding: 'utf8' }).trim();
const objectsIn = (remote: string): number => {
  const v = remoteGit(remote)('count-objects', '-v');
  return Number(/^count: (\d+)/m.exec(v)?.[1]) + Number(/^in-pack: (\d+)/m.exec(v)?.[1]);
};

test("a shared session reads on a teammate's clone as on its author's, and only fettle's refs move", () => {
  const { remote, alice, bob } = team();
  const ids = [
    turn(alice, 's1', 'say hello', 'f.txt', lines(20).replace('line 3\n', 'hello\n')),
    turn(alice, 's1', 'add g', 'g.txt', 'g\n'),
    turn(alice, 's1', 'and more', 'f.txt', lines(20).replace('line 3\n', 'hello\n').replace('line 9\n', 'nine\n')),
  ];
  const tracking = refsOf(alice.git, 'refs/remotes');
  const heads = refsOf(remoteGit(remote), 'refs/heads', 'refs/tags');
  const shared = ok(fettle(alice, ['share', '--session', 's1']));
  assert.match(
    shared.stdout,
    /^Shared session s1 \(3 changes, prompts not shared\) as refs\/fettle\/shared\/user@example\.com\/s1\/session\.$/m,
  );
  assert.equal(refsOf(alice.git, 'refs/remotes'), tracking, "alice's remote-tracking refs did not move");
  assert.equal(refsOf(remoteGit(remote), 'refs/heads', 'refs/tags'), heads, "the remote's branches did not move");
  assert.deepEqual(
    refsOf(remoteGit(remote), 'refs/fettle')
      .split('\n')
      .map((l) => l.split(' ')[0])
      .sort(),
    [
      ...ids.map((id) => `refs/fettle/shared/user@example.com/s1/changes/${id}`),
      'refs/fettle/shared/user@example.com/s1/session',
    ].sort(),
  );
  const bobTracking = refsOf(bob.git, 'refs/remotes', 'refs/heads');
  const fetched = ok(fettle(bob, ['fetch']));
  assert.match(fetched.stdout, /^ {2}new {6}origin\/user@example\.com\/s1$/m);
  assert.equal(refsOf(bob.git, 'refs/remotes', 'refs/heads'), bobTracking);
  assert.equal(bob.git('status', '--porcelain'), '', "nothing was written to bob's working tree");
  // The same words, byte for byte, but the ref each reads the session from.
  const own = 'fettle/sessions/s1';
  const theirs = 'fettle/remotes/origin/user@example.com/s1/session';
  const review = (repo: Repo, name: string) => ok(fettle(repo, ['review', '--session', name])).stdout;
  assert.equal(review(bob, 's1').replaceAll(theirs, own), review(alice, 's1'));
  const full = review(bob, 'origin/user@example.com/s1');
  assert.equal(full.replaceAll(theirs, own).replaceAll('origin/user@example.com/s1', 's1'), review(alice, 's1'));
  const json = (repo: Repo) => ({
    ...JSON.parse(ok(fettle(repo, ['review', '--session', 's1', '--json'])).stdout),
    ref: '',
  });
  assert.deepEqual(json(bob), json(alice));
  assert.equal(
    ok(fettle(bob, ['log', '--session', 's1'])).stdout,
    ok(fettle(alice, ['log', '--session', 's1'])).stdout,
  );
  const show = (repo: Repo, id: string) => ok(fettle(repo, ['show', id])).stdout.replace(/^Ref: .*$/m, 'Ref:');
  for (const id of ids) assert.equal(show(bob, id), show(alice, id));
});

test('nothing fetched is a change of this repository: a planted record cannot be confirmed', () => {
  const { remote, alice, bob } = team();
  const env = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5' };
  const id = stageWrite(alice, 'f.txt', lines(20, 'agent'), { env });
  // Published by hand under a teammate's name, as a change of a session: a ref fetch brings into refs/fettle/.
  alice.git('push', '-q', remote, `refs/fettle/${id}:refs/fettle/shared/mallory/s/changes/${id}`);
  ok(fettle(bob, ['fetch']));
  assert.ok(bob.git('rev-parse', `refs/fettle/remotes/origin/mallory/s/changes/${id}`));
  const status = JSON.parse(ok(fettle(bob, ['status', '--json'])).stdout) as { pending: unknown[] };
  assert.deepEqual(status.pending, []);
  const confirm = fettle(bob, ['confirm', id]);
  assert.equal(confirm.code, 1, confirm.stdout);
  assert.match(confirm.stderr, /No change/);
  assert.equal(bob.read('f.txt').toString(), lines(20));
});

test('sharing again sends only what is new, and nothing when nothing is', () => {
  const { remote, alice } = team();
  for (let n = 1; n <= 5; n++) turn(alice, 's1', `turn ${n}`, `f${n}.txt`, lines(50, `t${n}`));
  ok(fettle(alice, ['share', '--session', 's1']));
  const first = objectsIn(remote);
  const again = ok(fettle(alice, ['share', '--session', 's1']));
  assert.match(again.stdout, /^Already shared session s1 .*; nothing was sent\.$/m);
  assert.equal(objectsIn(remote), first);
  turn(alice, 's1', 'one more', 'f6.txt', lines(50, 't6'));
  ok(fettle(alice, ['share', '--session', 's1']));
  // The new turn alone: its change's before and after commits, the session's commit, their trees and the blob.
  const added = objectsIn(remote) - first;
  assert.ok(added > 0 && added <= 7, `${added} objects sent for one new turn`);
});

const runAsync = (repo: Repo, args: string[], env: Record<string, string>): Promise<Run> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: repo.dir, env: { ...repo.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });

test('two people sharing at once never overwrite each other, and each fetches the other', async () => {
  const { remote, alice, bob } = team();
  turn(alice, 'sa', 'alice asks', 'a.txt', 'a\n');
  turn(bob, 'sb', 'bob asks', 'b.txt', 'b\n');
  const [a, b] = await Promise.all([
    runAsync(alice, ['share', '--all'], { GIT_AUTHOR_EMAIL: 'alice@example.com' }),
    runAsync(bob, ['share', '--session', 'sb'], { GIT_AUTHOR_EMAIL: 'bob@example.com' }),
  ]);
  assert.deepEqual([a.code, b.code], [0, 0], `${a.stderr}${b.stderr}`);
  const shared = refsOf(remoteGit(remote), 'refs/fettle/shared/*/*/session');
  assert.match(shared, /^refs\/fettle\/shared\/alice@example\.com\/sa\/session /m);
  assert.match(shared, /^refs\/fettle\/shared\/bob@example\.com\/sb\/session /m);
  assert.match(ok(fettle(alice, ['fetch'])).stdout, /origin\/bob@example\.com\/sb$/m);
  assert.match(ok(fettle(bob, ['fetch'])).stdout, /origin\/alice@example\.com\/sa$/m);
  assert.match(ok(fettle(alice, ['review', '--session', 'sb'])).stdout, /^\+b$/m);
});

test('a share that would replace another history under the same name is refused whole, and the remote keeps the first', () => {
  const { remote, alice, bob } = team();
  turn(alice, 's1', 'from alice', 'a.txt', 'a\n');
  turn(bob, 's1', 'from bob', 'b.txt', 'b\n');
  ok(fettle(alice, ['share', '--session', 's1', '--as', 'pat']));
  const before = refsOf(remoteGit(remote), 'refs/fettle');
  const refused = fettle(bob, ['share', '--session', 's1', '--as', 'pat']);
  assert.equal(refused.code, 5, refused.stderr);
  assert.match(refused.stderr, /nothing was pushed/);
  assert.equal(refsOf(remoteGit(remote), 'refs/fettle'), before);
});

test('prompts stay local unless shared, and leave the machine with secrets redacted', () => {
  const { remote, alice, bob } = team();
  turn(alice, 's1', `deploy with ${SECRET} please`, 'a.txt', 'a\n');
  // Without --session: the current session, the newest change's.
  ok(fettle(alice, ['share']));
  assert.equal(refsOf(remoteGit(remote), 'refs/fettle/shared/*/*/prompts'), '');
  const shared = ok(fettle(alice, ['share', '--session', 's1', '--with-prompts']));
  assert.match(shared.stdout, /1 prompt \(1 secret redacted\)/);
  ok(fettle(bob, ['fetch']));
  const kept = bob.git('show', 'refs/fettle/remotes/origin/user@example.com/s1/prompts:prompts.jsonl');
  assert.match(kept, /"turn":1,.*"prompt":"deploy with \[redacted AWS access key\] please"/);
  assert.doesNotMatch(
    execFileSync('git', ['-C', remote, 'log', '--all', '-p'], { encoding: 'utf8' }),
    new RegExp(SECRET),
  );
});

test('share refuses a session that landed nothing here, and a name that is no ref component', () => {
  const { alice } = team();
  const none = fettle(alice, ['share', '--session', 'nope']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No change of session 'nope' landed/);
  turn(alice, 's1', 'x', 'a.txt', 'a\n');
  const bad = fettle(alice, ['share', '--session', 's1', '--as', 'a b']);
  assert.equal(bad.code, 2);
});

/** The review page's data, as the page reads it (GET /api/review with its cookie). */
const pageData = async (repo: Repo, session: string): Promise<{ sessions: unknown[]; pending: unknown[] }> => {
  const server = await startPage(repo.dir, { ...repo.env, FETTLE_NOW: String(T0) }, ['--session', session]);
  try {
    const body = await new Promise<string>((resolve, reject) => {
      const headers = { Host: `127.0.0.1:${server.port}`, Cookie: `fettle_review=${server.token}` };
      const req = request({ host: '127.0.0.1', port: server.port, path: '/api/review', headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    return (JSON.parse(body) as { review: { sessions: unknown[]; pending: unknown[] } }).review;
  } finally {
    await server.stop();
  }
};

test("the review page shows a fetched session's turns, with the prompts shared, as its author's page does", async () => {
  const { alice, bob } = team();
  turn(alice, 's1', 'say hello', 'f.txt', lines(20).replace('line 3\n', 'hello\n'));
  turn(alice, 's1', 'add g', 'g.txt', 'g\n');
  ok(fettle(alice, ['share', '--session', 's1', '--with-prompts']));
  ok(fettle(bob, ['fetch']));
  const theirs = await pageData(bob, 'origin/user@example.com/s1');
  assert.deepEqual(theirs.pending, []);
  assert.deepEqual(theirs.sessions, (await pageData(alice, 's1')).sessions);
  const [session] = theirs.sessions as { turns: { turn: number; prompt?: string }[] }[];
  assert.deepEqual(
    // Both writes were made at the same pinned second: the order of their turns is the ids'.
    session?.turns.map((t) => [t.turn, t.prompt]).sort(),
    [
      [1, 'say hello'],
      [2, 'add g'],
    ],
  );
});
