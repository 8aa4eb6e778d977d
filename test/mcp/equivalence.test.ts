// The same writes made through `fettle mcp` and through the Claude Code hook leave the same records: one ref per
// change, the same chain of commits with the same trees (the same bytes before, proposed, written), and the same
// trailers but for who made them (session, tool, tool use, agent) and when.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { type McpClient, startMcp } from '../helpers/mcp';
import { lines, makeRepo, type Repo } from '../helpers/repo';

const clients: McpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
});

/** Trailers that say who and when: they differ by construction. */
const WHO = /^Fettle-(Id|Session|Tool|Tool-Use|Agent|Time|Seq|Turn|Changeset): .*$\n?/gm;

/** Every change's chain: per commit, its tree and its message without who and when, in the order made. */
const records = (repo: Repo): string[][] => {
  const refs = repo
    .git('for-each-ref', '--sort=committerdate', '--format=%(refname)', 'refs/fettle/')
    .split('\n')
    .filter((r) => /^refs\/fettle\/[0-9a-z]{8}$/.test(r));
  const chains = refs.map((ref) =>
    repo
      .git('log', '--format=%T%n%B%x00', ref, '--not', 'HEAD')
      .split('\0')
      .map((c) => c.trim().replace(WHO, '').replaceAll(repo.dir, '<repo>').trim())
      .filter(Boolean),
  );
  // Made in the same order both ways; a record's own time orders them within a second.
  return chains.sort((a, b) => (a.join() < b.join() ? -1 : 1));
};

const FILES = { 'small.ts': lines(40), 'large.ts': lines(30) };
const SMALL = lines(40).replace('line 7\n', 'line seven\n');
const LARGE = lines(30, 'rewritten');

test('writes through MCP and through the hook leave equivalent records', async () => {
  const viaHook = makeRepo(FILES);
  const viaMcp = makeRepo(FILES);

  // Claude Code: PreToolUse records, the client writes, PostToolUse records what landed.
  const hook = (repo: Repo, event: string, file: string, content: string, id: string) =>
    runCli(['hook'], {
      cwd: repo.dir,
      env: repo.env,
      input: JSON.stringify({
        session_id: 'claude-session',
        cwd: repo.dir,
        permission_mode: 'acceptEdits',
        hook_event_name: event,
        tool_name: 'Write',
        tool_input: { file_path: repo.path(file), content },
        tool_use_id: id,
      }),
    });
  for (const [file, content, id] of [
    ['small.ts', SMALL, 't1'],
    ['new.ts', 'a new file\n', 't2'],
  ] as const) {
    assert.equal(hook(viaHook, 'PreToolUse', file, content, id).stdout, '', 'a direct write: no decision');
    writeFileSync(viaHook.path(file), content);
    assert.equal(hook(viaHook, 'PostToolUse', file, content, id).code, 0);
  }
  const staged = hook(viaHook, 'PreToolUse', 'large.ts', LARGE, 't3');
  const hookId = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1] ?? '';
  // confirmed by the model from its shell, where Claude Code marks it (CLAUDECODE=1), as over MCP: the model's
  assert.equal(runCli(['confirm', hookId], { cwd: viaHook.dir, env: { ...viaHook.env, CLAUDECODE: '1' } }).code, 0);

  const c = startMcp({ cwd: viaMcp.dir, env: viaMcp.env });
  clients.push(c);
  await c.initialize('claude-code');
  assert.match((await c.call('fettle_write', { path: 'small.ts', content: SMALL })).text, /^fettle recorded/);
  assert.match((await c.call('fettle_write', { path: 'new.ts', content: 'a new file\n' })).text, /^fettle recorded/);
  const mcpStaged = await c.call('fettle_write', { path: 'large.ts', content: LARGE });
  const mcpId = /Staged change ([0-9a-z]{8})/.exec(mcpStaged.text)?.[1] ?? '';
  assert.equal((await c.call('fettle_confirm', { ids: [mcpId] })).isError, false);

  for (const file of ['small.ts', 'new.ts', 'large.ts'])
    assert.deepEqual(viaMcp.read(file), viaHook.read(file), `${file} holds the same bytes`);
  const expected = records(viaHook);
  assert.equal(expected.length, 3, 'three changes, one ref each');
  assert.deepEqual(records(viaMcp), expected);
  assert.deepEqual(
    expected.map((chain) => chain.map((commit) => /^Fettle-Kind: (\w+)$/m.exec(commit)?.[1])).sort(),
    [
      ['after', 'before'],
      ['after', 'before'],
      ['applied', 'proposal', 'before'],
    ].sort(),
  );
  const tip = viaMcp.git('log', '-1', '--format=%B', `refs/fettle/${mcpId}`);
  assert.match(tip, /^Fettle-Tool: fettle_write\nFettle-Agent: claude$/m);
});
