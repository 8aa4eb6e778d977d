// StoreCache mode under the real client: `fettle install --resident --scope local`, the token exported in the
// session's environment as the README says, and a session whose small Edit and large Write reach the server
// through Claude Code's HTTP hooks: the Edit is recorded, the Write staged and denied with fettle's own text, and
// the server, not a hook process, answered them (its count of calls served went up).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { makeRepo, lines } from '../helpers/repo';
import { stateDirOf } from '../helpers/resident';
import { runCli } from '../helpers/cli';
import { join } from 'node:path';
import { A_AND_B, changesIn, explain, fettle, session, smallEditThenLargeWrite } from './session';

const served = (env: Record<string, string>, cwd: string): number => {
  const status = JSON.parse(runCli(['serve', '--status', '--json'], { cwd, env }).stdout);
  return status.running?.served ?? -1;
};

test('installed with --resident: the client posts each write to the server, which records and stages as the hook does', async () => {
  const repo = makeRepo(A_AND_B);
  const installed = runCli(['install', '--resident', '--scope', 'local'], { cwd: repo.dir, env: repo.env });
  assert.equal(installed.code, 0, installed.stderr);
  try {
    const settings = readFileSync(join(repo.dir, '.claude', 'settings.local.json'), 'utf8');
    assert.match(settings, /"type": "http"/);
    const token = readFileSync(join(stateDirOf(repo.home), 'token'), 'utf8').trim();
    const env = { ...repo.env, FETTLE_SERVE_TOKEN: token };
    const before = served(env, repo.dir);
    assert.ok(before >= 0, 'install started the server');

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
    // Edit's Pre and Post and Write's Pre at least, besides the session's own events: all through the server.
    assert.ok(served(env, repo.dir) - before >= 3, `the server answered the writes: ${why}`);
    fettle(repo, 'discard', id);
  } finally {
    runCli(['serve', '--stop'], { cwd: repo.dir, env: repo.env });
  }
});
