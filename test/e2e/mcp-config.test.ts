// The README's MCP configuration for each agent, as the agent's real client reads it: the command the README prints
// is run by the pinned client (offline, in a home of the test's own), and the client then starts `fettle mcp` and
// reports it connected. The opencode row is what test/e2e/opencode.test.ts configures its session with.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withFettleOnPath } from '../helpers/cli';
import { makeRepo } from '../helpers/repo';
import { claudePath, OFFLINE_ENV } from './client';
import { readmeMcpRow } from './readme-mcp';

test("the README's Claude Code command adds fettle mcp, and Claude Code connects to it", () => {
  const row = readmeMcpRow('Claude Code');
  const [command = ''] = row;
  const project = row.find((span) => span.startsWith('{')) ?? '';
  assert.match(command, /^claude mcp add --scope user fettle -- fettle mcp$/);
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const env = withFettleOnPath({ ...repo.env, ...OFFLINE_ENV }, repo.home);
  const claude = (args: string[]) =>
    spawnSync(claudePath(), args, { cwd: repo.dir, env, encoding: 'utf8', timeout: 120_000 });
  const added = claude(command.split(' ').slice(1));
  assert.equal(added.status, 0, added.stdout + added.stderr);
  const user = JSON.parse(readFileSync(join(repo.home, '.claude.json'), 'utf8')) as {
    mcpServers: Record<string, { command: string; args: string[] }>;
  };
  const { mcpServers } = JSON.parse(project) as typeof user;
  assert.deepEqual(
    { command: user.mcpServers.fettle?.command, args: user.mcpServers.fettle?.args },
    mcpServers.fettle,
    "the README's .mcp.json says what the command writes",
  );
  const list = claude(['mcp', 'list']);
  assert.equal(list.status, 0, list.stdout + list.stderr);
  assert.match(list.stdout, /^fettle: fettle mcp - ✔ Connected$/m, list.stdout + list.stderr);
});

test("the README's other MCP configurations are each agent's own format", () => {
  const [codex = '', file = '', toml = '', command = '', args = ''] = readmeMcpRow('Codex CLI');
  assert.equal(codex, 'codex mcp add fettle -- fettle mcp');
  assert.deepEqual(
    [file, toml, command, args],
    ['~/.codex/config.toml', '[mcp_servers.fettle]', 'command = "fettle"', 'args = ["mcp"]'],
  );
  for (const agent of ['Gemini CLI', 'Cursor']) {
    const json = readmeMcpRow(agent).find((span) => span.startsWith('{')) ?? '';
    assert.deepEqual(JSON.parse(json), { mcpServers: { fettle: { command: 'fettle', args: ['mcp'] } } }, agent);
  }
  assert.equal(readmeMcpRow('Gemini CLI')[0], 'gemini mcp add --scope user fettle fettle mcp');
});
