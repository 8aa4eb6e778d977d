// Resident mode under the real client: `fettle install --resident --scope local`, and a session whose small Edit
// and large Write reach the server through Claude Code's HTTP hooks: the Edit is recorded, the Write staged and
// denied with fettle's own text, and the server, not a hook process, answered them (its count of calls served
// went up, and it refused none). Once with the token exported in the session's environment; once with none,
// as a session started right after install is where the server checks who connects (Linux). And the plugin with
// nothing more: its command hooks start the server, and the next session's calls are handed to it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { lines, makeRepo } from '../helpers/repo';
import { stateDirOf } from '../helpers/resident';
import { tool, text } from './fake-api';
import { A_AND_B, changesIn, explain, fettle, session, smallEditThenLargeWrite } from './session';

interface Counts {
  served: number;
  refused: number;
  auth: string;
}

const counts = (env: Record<string, string>, cwd: string): Counts => {
  const status = JSON.parse(runCli(['serve', '--status', '--json'], { cwd, env }).stdout);
  return { served: status.running?.served ?? -1, refused: status.running?.refused ?? -1, auth: status.auth };
};

/** Installed, one session with `token` in its environment or none, its writes checked; the server's counts. */
const throughTheServer = async (withToken: boolean): Promise<{ before: Counts; after: Counts }> => {
  const repo = makeRepo(A_AND_B);
  const installed = runCli(['install', '--resident', '--scope', 'local'], { cwd: repo.dir, env: repo.env });
  assert.equal(installed.code, 0, installed.stderr);
  try {
    const settings = readFileSync(join(repo.dir, '.claude', 'settings.local.json'), 'utf8');
    assert.match(settings, /"type": "http"/);
    const token = readFileSync(join(stateDirOf(repo.home), 'token'), 'utf8').trim();
    const env: Record<string, string> = withToken ? { ...repo.env, FETTLE_SERVE_TOKEN: token } : repo.env;
    assert.equal(env.FETTLE_SERVE_TOKEN === undefined, !withToken);
    const before = counts(env, repo.dir);
    assert.ok(before.served >= 0, 'install started the server');

    const s = await session(repo, smallEditThenLargeWrite(repo), { install: 'none', env });
    const why = explain(s);
    assert.equal(s.run.code, 0, why);
    const [small, large] = s.api.results().slice(2);
    assert.equal(small?.isError, false, why);
    assert.match(large?.text ?? '', /^PreToolUse:Write hook error: fettle held this write for review/, why);
    const id = /Staged change (\w{8})/.exec(large?.text ?? '')?.[1];
    assert.ok(id, why);
    assert.equal(repo.read('b.txt').toString(), lines(30), 'the large Write was not written');
    assert.match(repo.read('a.txt').toString(), /LINE 3/);
    const changes = changesIn(repo);
    assert.deepEqual(changes.map((c) => `${c.path} ${c.tier} ${c.state}`).sort(), [
      'a.txt direct applied',
      'b.txt staged pending',
    ]);
    const after = counts(env, repo.dir);
    // Edit's Pre and Post and Write's Pre at least, besides the session's own events: all through the server.
    assert.ok(after.served - before.served >= 3, `the server answered the writes: ${why}`);
    assert.equal(after.refused, before.refused, `the server refused no call: ${why}`);
    fettle(repo, 'discard', id);
    return { before, after };
  } finally {
    runCli(['serve', '--stop'], { cwd: repo.dir, env: repo.env });
  }
};

test('installed with --resident, the token in the session: the client posts each write to the server, which records and stages as the hook does', async () => {
  await throughTheServer(true);
});

test('installed with --resident and nothing more: a session without the token is answered by the server, which checks the connection is this user (Linux)', async (t) => {
  if (process.platform !== 'linux')
    return t.skip('the peer check reads /proc/net/tcp (Linux); elsewhere the token is needed');
  const { after } = await throughTheServer(false);
  assert.equal(after.auth, 'peer');
});

test("the plugin and nothing more: the first session's hook call starts the server, and the next session's writes are handed to it", async () => {
  const repo = makeRepo(A_AND_B);
  // On, as for a user: the helpers turn the start off for every other test.
  const env = { ...repo.env, FETTLE_SERVE_AUTOSTART: '1' };
  try {
    const edit = (_req: unknown, turn: number) =>
      [[tool('Edit', { file_path: repo.path('a.txt'), old_string: 'line 5\n', new_string: 'LINE 5\n' })]][turn] ?? [
        text('done'),
      ];
    const first = await session(repo, edit, { install: 'plugin', env });
    assert.equal(first.run.code, 0, explain(first));
    assert.equal(first.api.results()[0]?.isError, false, explain(first));
    let before = counts(env, repo.dir);
    for (let waited = 0; before.served < 0 && waited < 20_000; waited += 200) {
      await new Promise((r) => setTimeout(r, 200));
      before = counts(env, repo.dir);
    }
    assert.ok(before.served >= 0, `a hook call of the first session started the server: ${explain(first)}`);

    const s = await session(repo, smallEditThenLargeWrite(repo), { install: 'plugin', env });
    const why = explain(s);
    assert.equal(s.run.code, 0, why);
    const [small, large] = s.api.results().slice(2);
    assert.equal(small?.isError, false, why);
    assert.match(large?.text ?? '', /fettle held this write for review/, why);
    assert.equal(repo.read('b.txt').toString(), lines(30), 'the large Write was not written');
    assert.match(repo.read('a.txt').toString(), /LINE 3/);
    assert.deepEqual(
      changesIn(repo)
        .map((c) => `${c.path} ${c.tier} ${c.state}`)
        .sort(),
      ['a.txt direct applied', 'a.txt direct applied', 'b.txt staged pending'],
    );
    const after = counts(env, repo.dir);
    // The Edit's Pre and the Write's Pre at least went to the server (PostToolUse may run after the session ends).
    assert.ok(after.served - before.served >= 2, `the server answered the writes: ${why}`);
    assert.equal(after.refused, before.refused, `the server refused no call: ${why}`);
  } finally {
    runCli(['serve', '--stop'], { cwd: repo.dir, env });
  }
});
