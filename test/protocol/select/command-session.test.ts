// The session an MCP server records under when its client names none (select/command-session.ts over
// core/session-ladder.ts), through the built CLI on real repositories: FETTLE_SESSION, else the branch and work
// tree, else the parent process (a detached HEAD); the same after the server restarts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type McpClient, startMcp } from '../../helpers/mcp';
import { lines, makeRepo, tempDir, type Repo } from '../../helpers/repo';

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
