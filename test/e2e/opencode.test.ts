// fettle's opencode plugin in the real opencode client (pinned, from the npm registry), headless, against a fake
// OpenAI-compatible model API on 127.0.0.1, under strace: `fettle install --agent opencode` puts the plugin where
// opencode loads it; a small edit is recorded and the model is told its id; a large write is staged, the tool
// stopped and the model shown the diff and the command, which it runs through opencode's bash tool; every inet
// connect() of the client and of every process it starts goes to 127.0.0.1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { lines, makeRepo } from '../helpers/repo';
import { type ChatRequest, startApi, toolResults } from './opencode-api';
import { opencodeEnv, runOpencode, writeOpencodeConfig } from './opencode-client';
import { readmeMcpRow } from './readme-mcp';
import { inetConnects } from './local';

test('opencode loads the plugin: a small edit is recorded, a large write staged and confirmed through bash; nothing leaves 127.0.0.1', async () => {
  assert.equal(spawnSync('strace', ['-V']).status, 0, 'strace is needed to prove the run stays on 127.0.0.1');
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const env = opencodeEnv(repo);
  const configHome = env.XDG_CONFIG_HOME as string;
  const installed = runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env });
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, /it runs fettle hook --agent opencode\./);
  const confirmOf = (text: string) => /To apply it, run: (fettle confirm [0-9a-z]{8})/.exec(text)?.[1] ?? 'false';
  const api = await startApi([
    { tool: 'edit', args: { filePath: repo.path('a.txt'), oldString: 'line 3\n', newString: 'line three\n' } },
    { tool: 'write', args: { filePath: repo.path('b.txt'), content: lines(30, 'new') } },
    (req) => ({
      tool: 'bash',
      args: { command: confirmOf(toolResults(req)[1] ?? ''), description: 'Apply the change' },
    }),
  ]);
  try {
    writeOpencodeConfig(configHome, api.url);
    const trace = join(repo.home, 'connect.strace');
    const run = await runOpencode({
      cwd: repo.dir,
      env,
      prompt: 'Change a.txt and rewrite b.txt.',
      wrap: ['strace', '-f', '-qq', '-e', 'trace=connect', '-o', trace],
    });
    const seen = api.requests.map(toolResults);
    const why = `opencode exited ${run.code}\n${run.stderr.slice(-3000)}\nthe model saw: ${JSON.stringify(seen, null, 1).slice(0, 4000)}`;
    assert.equal(run.code, 0, why);
    const [edited, staged, confirmed] = seen[3] ?? [];
    assert.match(
      edited ?? '',
      /^Edit applied successfully\.\n\nfettle recorded a\.txt \(235 B, 30 lines, \+1 -1 ~1\) as ([0-9a-z]{8}); undo with: fettle rollback \1$/,
      why,
    );
    assert.match(
      staged ?? '',
      /^fettle held this write for review: nothing was written to b\.txt\.\nStaged change [0-9a-z]{8}: \+30 -30/,
      why,
    );
    assert.match(staged ?? '', /\nTo apply it, run: fettle confirm [0-9a-z]{8}\n/, why);
    assert.match(staged ?? '', /^\+new 1$/m, 'the model is shown the diff');
    assert.match(confirmed ?? '', /Applied [0-9a-z]{8} to b\.txt \(\+30 -30\)\./, why);
    assert.equal(repo.read('a.txt').toString(), lines(30).replace('line 3\n', 'line three\n'));
    assert.equal(repo.read('b.txt').toString(), lines(30, 'new'));
    const records = repo
      .git('for-each-ref', '--format=%(refname)', 'refs/fettle/')
      .split('\n')
      .filter((r) => /^refs\/fettle\/[0-9a-z]{8}$/.test(r))
      .map((r) => repo.git('log', '-1', '--format=%B', r));
    assert.deepEqual(
      records
        .map(
          (m) =>
            `${/Fettle-Path: (.*)/.exec(m)?.[1]} ${/Fettle-Kind: (.*)/.exec(m)?.[1]} ${/Fettle-Tool: (.*)/.exec(m)?.[1]} ${/Fettle-Agent: (.*)/.exec(m)?.[1]}`,
        )
        .sort(),
      ['a.txt after edit opencode', 'b.txt applied write opencode'],
    );
    const connects = inetConnects(readFileSync(trace, 'utf8'));
    assert.ok(connects.length > 0, 'the trace saw the client reach the fake API');
    assert.deepEqual([...new Set(connects)], ['127.0.0.1']);
  } finally {
    await api.close();
  }
});

test('opencode as an MCP client of fettle mcp: its tools write, stage and confirm, recorded as opencode', async () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const env = opencodeEnv(repo);
  const configHome = env.XDG_CONFIG_HOME as string;
  /** opencode names an MCP tool <server>_<tool>: found in the tools the model is offered. */
  const named = (req: ChatRequest, tool: string) =>
    req.tools?.map((t) => t.function?.name ?? '').find((n) => n.endsWith(`_${tool}`)) ?? `missing ${tool}`;
  const idOf = (text: string) => /Staged change ([0-9a-z]{8})/.exec(text)?.[1] ?? 'none';
  const api = await startApi([
    (req) => ({ tool: named(req, 'fettle_write'), args: { path: 'a.txt', content: lines(31) } }),
    (req) => ({ tool: named(req, 'fettle_write'), args: { path: 'b.txt', content: lines(30, 'new') } }),
    (req) => ({ tool: named(req, 'fettle_confirm'), args: { ids: [idOf(toolResults(req)[1] ?? '')] } }),
  ]);
  try {
    // The README's configuration for opencode, as printed.
    const readme = readmeMcpRow('opencode').find((span) => span.startsWith('{')) ?? '{}';
    writeOpencodeConfig(configHome, api.url, JSON.parse(readme) as Record<string, unknown>);
    const run = await runOpencode({ cwd: repo.dir, env, prompt: 'Change a.txt and rewrite b.txt.' });
    const seen = api.requests.map(toolResults);
    const why = `opencode exited ${run.code}\n${run.stderr.slice(-3000)}\nthe model saw: ${JSON.stringify(seen, null, 1).slice(0, 4000)}`;
    assert.equal(run.code, 0, why);
    const [small, staged, confirmed] = seen[3] ?? [];
    assert.match(
      small ?? '',
      /^fettle recorded a\.txt \(239 B, 31 lines, \+1 -0 ~0\) as ([0-9a-z]{8}); undo with: fettle rollback \1$/m,
      why,
    );
    assert.match(staged ?? '', /^fettle held this write for review: nothing was written to b\.txt\./, why);
    assert.match(confirmed ?? '', /^Applied 1 change, all or nothing:/, why);
    assert.equal(repo.read('b.txt').toString(), lines(30, 'new'));
    const tip = repo.git('log', '-1', '--format=%B', `refs/fettle/${idOf(staged ?? '')}`);
    assert.match(tip, /^Fettle-Kind: applied$/m);
    assert.match(tip, /^Fettle-Tool: fettle_write\nFettle-Agent: opencode$/m);
  } finally {
    await api.close();
  }
});
