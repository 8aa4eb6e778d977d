// The session a command outside any agent records under (select/command-session.ts over core/session-ladder.ts):
// an MCP server whose client names none, `fettle write` and `fettle apply`, through the built CLI on real
// repositories: FETTLE_SESSION, else the branch and work tree, else the parent process (a detached HEAD); the same
// after the server restarts, and for every command run on one branch.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type McpClient, startMcp } from '../../helpers/mcp';
import { lines, makeRepo, tempDir, type Repo } from '../../helpers/repo';
import { directWrite, fettle, stageWrite } from '../../helpers/stage';

const clients: McpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
});

/** The session a write through a new server in `cwd` is recorded under. */
const sessionOfWrite = async (repo: Repo, cwd: string, content: string, env: Record<string, string> = {}) => {
  const c = startMcp({ cwd, env: { ...repo.env, ...env } });
  clients.push(c);
  await c.initialize('codex-mcp-client');
  const r = await c.call('fettle_write', { path: 'a.txt', content });
  assert.equal(r.isError, false, r.text);
  const id = /as ([0-9a-z]{8});/.exec(r.text)?.[1] as string;
  await c.close();
  return /^Fettle-Session: (.*)$/m.exec(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`))?.[1];
};

test('the branch and work tree name the session, the same after a restart; another work tree, another', async () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  const one = await sessionOfWrite(repo, repo.dir, lines(5).replace('line 1', 'one'));
  assert.match(one ?? '', /^branch-main-[0-9a-f]{8}$/);
  assert.equal(await sessionOfWrite(repo, repo.dir, lines(5).replace('line 1', 'two')), one);
  const other = join(tempDir(), 'wt');
  repo.git('worktree', 'add', '-q', '-b', 'side', other);
  assert.match(
    (await sessionOfWrite(repo, other, lines(5).replace('line 2', 'side'))) ?? '',
    /^branch-side-[0-9a-f]{8}$/,
  );
});

test('FETTLE_SESSION first; a detached HEAD falls to the parent process', async () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  const named = await sessionOfWrite(repo, repo.dir, lines(5).replace('line 1', 'one'), { FETTLE_SESSION: 's-mine' });
  assert.equal(named, 's-mine');
  repo.git('checkout', '-q', '--detach');
  const one = await sessionOfWrite(repo, repo.dir, lines(5).replace('line 1', 'two'));
  // this test process started both servers: the same parent, the same session
  assert.match(one ?? '', new RegExp(`^process-${process.pid}-[0-9a-f]{8}$`));
  assert.equal(await sessionOfWrite(repo, repo.dir, lines(5).replace('line 1', 'three')), one);
});

const sessionOf = (repo: Repo, id: string): string | undefined =>
  /^Fettle-Session: (.*)$/m.exec(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`))?.[1];

test("`fettle write` records under the ladder's session: the branch, on its session ref; FETTLE_SESSION first", () => {
  const repo = makeRepo({ 'a.txt': lines(5) });
  const id = directWrite(repo, 'a.txt', lines(5).replace('line 1', 'one'));
  const session = sessionOf(repo, id) ?? '';
  assert.match(session, /^branch-main-[0-9a-f]{8}$/);
  assert.equal(sessionOf(repo, directWrite(repo, 'a.txt', lines(5).replace('line 1', 'two'))), session);
  assert.ok(repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/sessions').includes(session));
  const named = directWrite(repo, 'a.txt', lines(5), { env: { FETTLE_SESSION: 's-mine' } });
  assert.equal(sessionOf(repo, named), 's-mine');
});

test("two proposals of the ladder's session for one file both stay pending: scripts on one branch share no plan", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const first = stageWrite(repo, 'a.txt', lines(30, 'one'));
  const second = stageWrite(repo, 'a.txt', lines(30, 'two'));
  assert.equal(sessionOf(repo, first), sessionOf(repo, second));
  const pending = fettle(repo, ['status', '--json']).stdout;
  for (const id of [first, second]) assert.ok(pending.includes(id), `${id} still pending: ${pending}`);
});

test("`fettle apply` stages its changeset under the ladder's session", () => {
  const repo = makeRepo({ 'a.txt': 'one\ntwo\n' });
  const contract = join(repo.home, 'c.json');
  const edits = [{ op: 'replace', file: 'a.txt', anchor: 'two', with: 'three' }];
  writeFileSync(contract, JSON.stringify({ version: 1, title: 't', scope: ['*.txt'], edits }));
  const r = fettle(repo, ['apply', contract]);
  assert.equal(r.code, 3, r.stderr);
  const id = /^\s+([0-9a-z]{8})\s+a\.txt/m.exec(r.stdout)?.[1] ?? '';
  assert.match(sessionOf(repo, id) ?? '', /^branch-main-[0-9a-f]{8}$/, r.stdout);
});
