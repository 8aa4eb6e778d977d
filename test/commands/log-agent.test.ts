// Attribution: every record names the agent that made it (`Fettle-Agent`, right after `Fettle-Tool`), and
// `fettle log --agent <name>`, `log --json` and `show` tell the agents apart in one history.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { agentWrite, runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';

const cli = (repo: Repo, ...args: string[]) => runCli(args, { cwd: repo.dir, env: repo.env });
const logged = (repo: Repo, ...args: string[]) =>
  JSON.parse(cli(repo, 'log', '--json', ...args).stdout).changes as { id: string; path: string; agent: string }[];

/** A small write_file from Gemini CLI, as its BeforeTool and AfterTool hooks run fettle. */
const geminiWrite = (repo: Repo, file: string, content: string) => {
  const call = {
    session_id: 'gemini-session',
    cwd: repo.dir,
    timestamp: '2026-01-01T00:00:00.000Z',
    tool_name: 'write_file',
    tool_input: { file_path: repo.path(file), content },
  };
  const hook = (input: unknown) =>
    runCli(['hook', '--agent', 'gemini'], { cwd: repo.dir, env: repo.env, input: JSON.stringify(input) });
  assert.equal(hook({ ...call, hook_event_name: 'BeforeTool' }).code, 0);
  writeFileSync(repo.path(file), content);
  const after = { ...call, hook_event_name: 'AfterTool', tool_response: { llmContent: 'ok', returnDisplay: 'ok' } };
  assert.equal(hook(after).code, 0);
};

test('records name their agent after their tool; log --agent keeps one agent, and log and show print it', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const claude = agentWrite(
    { cwd: repo.dir, file: repo.path('a.txt'), content: lines(30).replace('line 3\n', 'LINE 3\n') },
    repo.env,
    (path, content) => writeFileSync(path, content),
  );
  assert.equal(claude.written, true);
  geminiWrite(repo, 'b.txt', lines(30).replace('line 5\n', 'LINE 5\n'));

  const messages = repo.git('for-each-ref', '--format=%(contents)', 'refs/fettle/');
  assert.match(messages, /^Fettle-Tool: Write\nFettle-Agent: claude\n/m);
  assert.match(messages, /^Fettle-Tool: write_file\nFettle-Agent: gemini\n/m);

  assert.deepEqual(
    logged(repo, '--agent', 'claude').map((c) => `${c.path} ${c.agent}`),
    ['a.txt claude'],
  );
  assert.deepEqual(
    logged(repo, '--agent', 'gemini').map((c) => `${c.path} ${c.agent}`),
    ['b.txt gemini'],
  );
  assert.equal(cli(repo, 'log', '--agent', 'cursor').stdout, 'fettle has no record of changes made by cursor.\n');

  // Changes of two agents listed together: an AGENT column.
  const text = cli(repo, 'log').stdout.split('\n');
  assert.match(text[0] ?? '', /\bSESSION +AGENT +STATE\b/);
  assert.match(text.find((l) => l.includes('b.txt')) ?? '', /gemini-session +gemini +applied/);
  const [gemini] = logged(repo, '--agent', 'gemini');
  assert.match(cli(repo, 'show', gemini?.id ?? '').stdout, /^Agent: +gemini$/m);
});
