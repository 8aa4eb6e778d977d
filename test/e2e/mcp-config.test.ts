// The README's MCP configuration for each agent, as the agent's real client reads it: the command the README prints
// is run by the pinned client (offline, in a home of the test's own), it writes what the README says, and Claude
// Code and Gemini CLI then start `fettle mcp` and report it connected (Codex's `mcp list` starts no server), and
// the name Claude Code gives in `initialize` is the one fettle's table maps to its agent (core/mcp-clients.ts;
// Gemini CLI's `mcp list` connects as a test client of another name than its sessions use, so it proves nothing
// there; opencode's name is checked by test/e2e/opencode.test.ts through its records). The
// opencode row is what test/e2e/opencode.test.ts configures its session with; Cursor does not run here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentOfClient } from '../../src/core/mcp-clients';
import { shellQuote } from '../../src/io/self';
import { CLI, withFettleOnPath } from '../helpers/cli';
import { makeRepo } from '../helpers/repo';
import { claudePath, OFFLINE_ENV } from './client';
import { codexPath } from './codex/client';
import { geminiPath, geminiSettings } from './gemini/client';
import { readmeMcpRow } from './readme-mcp';

/**
 * `env` with a `fettle` on PATH that is this CLI behind a shell script copying what the client sends to
 * `capture`, so the test reads the client's `initialize` as it was sent.
 */
const withCapturingFettle = (env: Record<string, string>, dir: string, capture: string): Record<string, string> => {
  const bin = join(dir, 'capture-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'fettle'),
    `#!/bin/sh\ntee -a ${shellQuote(capture)} | ${shellQuote(process.execPath)} ${shellQuote(CLI)} "$@"\n`,
    { mode: 0o755 },
  );
  return { ...env, PATH: `${bin}:${env.PATH ?? ''}` };
};

/** The `clientInfo.name` of the first `initialize` the client sent. */
const clientName = (capture: string): string | undefined => {
  for (const line of readFileSync(capture, 'utf8').split('\n')) {
    try {
      const m = JSON.parse(line) as { method?: string; params?: { clientInfo?: { name?: string } } };
      if (m.method === 'initialize') return m.params?.clientInfo?.name;
    } catch {
      // not a frame
    }
  }
  return undefined;
};

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
  const capture = join(repo.home, 'claude-mcp-in.jsonl');
  const captured = spawnSync(claudePath(), ['mcp', 'list'], {
    cwd: repo.dir,
    env: withCapturingFettle(env, repo.home, capture),
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.match(captured.stdout, /^fettle: fettle mcp - ✔ Connected$/m, captured.stdout + captured.stderr);
  assert.equal(clientName(capture), 'claude-code');
  assert.equal(agentOfClient(clientName(capture)), 'claude', "Claude Code's records name it as the hooks do");
});

test("the README's Codex CLI command writes the README's config.toml lines", () => {
  const [command = '', file = '', ...toml] = readmeMcpRow('Codex CLI');
  assert.equal(command, 'codex mcp add fettle -- fettle mcp');
  assert.equal(file, '~/.codex/config.toml');
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const codexHome = join(repo.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const env = withFettleOnPath({ ...repo.env, CODEX_HOME: codexHome }, repo.home);
  const added = spawnSync(codexPath(), command.split(' ').slice(1), { cwd: repo.dir, env, encoding: 'utf8' });
  assert.equal(added.status, 0, added.stdout + added.stderr);
  const written = readFileSync(join(codexHome, 'config.toml'), 'utf8').trim().split('\n');
  assert.deepEqual(written, toml, 'the README names exactly what the command writes');
});

test("the README's Gemini CLI command adds fettle mcp to the user's settings, and Gemini CLI connects to it", () => {
  const row = readmeMcpRow('Gemini CLI');
  const [command = '', file = ''] = row;
  assert.equal(command, 'gemini mcp add --scope user fettle fettle mcp');
  assert.equal(file, '~/.gemini/settings.json');
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const settings = geminiSettings(repo.home);
  // Gemini CLI starts MCP servers only in a folder the user trusts (the README says so).
  writeFileSync(join(repo.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [repo.dir]: 'TRUST_FOLDER' }));
  const env = withFettleOnPath(repo.env, repo.home);
  const gemini = (args: string[]) =>
    spawnSync(process.execPath, [geminiPath(), ...args], { cwd: repo.dir, env, encoding: 'utf8', timeout: 120_000 });
  const added = gemini(command.split(' ').slice(1));
  assert.equal(added.status, 0, added.stdout + added.stderr);
  const written = JSON.parse(readFileSync(settings, 'utf8')) as { mcpServers: unknown };
  const json = row.find((span) => span.startsWith('{')) ?? '';
  assert.deepEqual(written.mcpServers, (JSON.parse(json) as { mcpServers: unknown }).mcpServers);
  const list = gemini(['mcp', 'list']);
  assert.equal(list.status, 0, list.stdout + list.stderr);
  // Gemini CLI prints the list on stderr.
  assert.match(list.stdout + list.stderr, /^✓ fettle: fettle mcp \(stdio\) - Connected$/m, list.stdout + list.stderr);
});

test("the README's Cursor configuration is Cursor's mcp.json format", () => {
  const json = readmeMcpRow('Cursor').find((span) => span.startsWith('{')) ?? '';
  assert.deepEqual(JSON.parse(json), { mcpServers: { fettle: { command: 'fettle', args: ['mcp'] } } });
});
