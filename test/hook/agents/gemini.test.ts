// `fettle hook --agent gemini`, end to end: the built CLI in its own process, real repositories, the payloads
// Gemini CLI 0.61 sends for write_file and replace (captured from the real client: test/e2e/gemini.test.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { runCli, type Run } from '../../helpers/cli';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { landedText } from '../../helpers/tools';
import { FIRST, SECOND, shellRepo, shellRows, treeOf } from '../../helpers/agent-shell';

const base = (repo: Repo, event: string) => ({
  session_id: 'gemini-session-1',
  transcript_path: '/dev/null',
  cwd: repo.dir,
  hook_event_name: event,
  timestamp: '2026-01-01T00:00:00.000Z',
});
const tool = (
  repo: Repo,
  event: 'BeforeTool' | 'AfterTool',
  name: string,
  input: Record<string, unknown>,
  response?: unknown,
) => ({
  ...base(repo, event),
  tool_name: name,
  tool_input: input,
  ...(event === 'AfterTool' ? { tool_response: response ?? { llmContent: 'ok', returnDisplay: 'ok' } } : {}),
});

const hook = (
  repo: Repo,
  input: unknown,
  env: Record<string, string> = {},
): Run & { json?: Record<string, unknown> } => {
  const r = runCli(['hook', '--agent', 'gemini'], {
    cwd: repo.dir,
    env: { ...repo.env, ...env },
    input: JSON.stringify(input),
  });
  let json: Record<string, unknown> | undefined;
  try {
    json = r.stdout ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { ...r, json };
};
const log = (repo: Repo) => JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes;
const show = (r: Run) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

test('write_file, small: the previous bytes recorded before, what landed after, and the model told in AfterTool', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const input = { file_path: repo.path('a.txt'), content: lines(30).replace('line 3\n', 'LINE 3\n') };
  const before = hook(repo, tool(repo, 'BeforeTool', 'write_file', input));
  assert.deepEqual([before.code, before.stdout], [0, ''], show(before));
  writeFileSync(repo.path('a.txt'), input.content);
  const after = hook(repo, tool(repo, 'AfterTool', 'write_file', input));
  const context = (after.json?.hookSpecificOutput as Record<string, string> | undefined)?.additionalContext ?? '';
  assert.match(
    context,
    new RegExp(
      `^fettle recorded a\\.txt \\(${landedText(input.content)}, \\+1 -1 ~1\\) as (\\w{8}); undo with: .+ rollback \\1$`,
    ),
    show(after),
  );
  assert.deepEqual(
    log(repo).map((c: { state: string; agent: string; tool: string }) => `${c.state} ${c.agent} ${c.tool}`),
    ['applied gemini write_file'],
  );
});

test('write_file, large: staged, and denied as Gemini reads a deny ({"decision":"deny"}); confirm writes the bytes', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const r = hook(
    repo,
    tool(repo, 'BeforeTool', 'write_file', { file_path: repo.path('a.txt'), content: lines(30, 'new') }),
  );
  assert.equal(r.json?.decision, 'deny', show(r));
  const reason = String(r.json?.reason);
  assert.match(reason, /^fettle held this write for review: nothing was written to a\.txt\.\nStaged change (\w{8}): /);
  assert.match(reason, /Do not retry the write_file; confirm or discard instead\./);
  const id = /Staged change (\w{8})/.exec(reason)?.[1] as string;
  assert.equal(runCli(['confirm', id], { cwd: repo.dir, env: repo.env }).code, 0);
  assert.equal(repo.read('a.txt').toString(), lines(30, 'new'));
});

test('replace in a CRLF file: predicted as Gemini writes it (every line ending CRLF), staged, confirmed byte for byte', () => {
  const crlf = lines(30).replace(/\n/g, '\r\n');
  const repo = makeRepo({ 'w.txt': crlf });
  const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
  const next = Array.from({ length: 20 }, (_, i) => `new ${i + 1}`).join('\n');
  const r = hook(
    repo,
    tool(repo, 'BeforeTool', 'replace', { file_path: repo.path('w.txt'), old_string: old, new_string: next }),
  );
  assert.equal(r.json?.decision, 'deny', show(r));
  const id = /Staged change (\w{8})/.exec(String(r.json?.reason))?.[1] as string;
  assert.equal(runCli(['confirm', id], { cwd: repo.dir, env: repo.env }).code, 0);
  const expected = crlf.replace(old.replace(/\n/g, '\r\n'), next.replace(/\n/g, '\r\n'));
  assert.equal(repo.read('w.txt').toString(), expected);
});

test('a replace fettle cannot predict (old_string only matches loosely): the previous bytes recorded, never staged', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const r = hook(
    repo,
    tool(repo, 'BeforeTool', 'replace', {
      file_path: repo.path('a.txt'),
      old_string: '  line 3  ',
      new_string: lines(30, 'x'),
    }),
  );
  assert.deepEqual([r.code, r.stdout], [0, ''], show(r));
  const changes = log(repo);
  assert.deepEqual(
    changes.map((c: { tier: string; reason: string }) => `${c.tier} ${c.reason}`),
    ['direct unsure'],
  );
});

test('a failed tool (AfterTool with an error): the record of the call is settled, and nothing is left open', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const input = { file_path: repo.path('a.txt'), old_string: 'line 3\n', new_string: 'LINE 3\n' };
  assert.equal(hook(repo, tool(repo, 'BeforeTool', 'replace', input)).code, 0);
  assert.equal(log(repo).length, 1);
  const error = {
    llmContent: 'x',
    returnDisplay: 'x',
    error: { message: 'Failed to edit', type: 'edit_no_occurrence_found' },
  };
  const after = hook(repo, tool(repo, 'AfterTool', 'replace', input, error));
  assert.deepEqual([after.code, after.stdout], [0, ''], show(after));
  assert.equal(log(repo).length, 0, 'a failed edit that changed nothing leaves no record');
});

test('FETTLE_REVIEW=human: Gemini cannot ask a person, so the write is held for their own `fettle confirm`', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const input = { file_path: repo.path('a.txt'), content: lines(30, 'new') };
  const r = hook(repo, tool(repo, 'BeforeTool', 'write_file', input), { FETTLE_REVIEW: 'human' });
  assert.equal(r.json?.decision, 'deny', show(r));
  assert.match(
    String(r.json?.reason),
    /a person must review it with `.* review (\w{8})` and apply it with `.* confirm \1` in their own terminal/,
  );
  // The end of the turn does not drop it: it waits for the person.
  assert.equal(
    hook(repo, { ...base(repo, 'AfterAgent'), prompt: 'p', prompt_response: 'r', stop_hook_active: false }).code,
    0,
  );
  assert.deepEqual(
    log(repo).map((c: { state: string }) => c.state),
    ['pending'],
  );
});

test("without --agent, a Gemini payload is told apart by its event name and let through: Claude Code's hook has no adapter", () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const r = runCli(['hook'], {
    cwd: repo.dir,
    env: repo.env,
    input: JSON.stringify(
      tool(repo, 'BeforeTool', 'write_file', { file_path: repo.path('a.txt'), content: lines(30, 'new') }),
    ),
  });
  assert.deepEqual([r.code, r.stdout], [1, ''], show(r));
  assert.match(
    r.stderr,
    /^fettle: this hook input comes from Gemini CLI, but its hook runs fettle without --agent gemini/,
  );
  assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
});

test('policy on Gemini CLI writes: a block rule denies with its message, an ignore rule lets the write through unrecorded', () => {
  const repo = makeRepo({ '.env': 'KEY=1\n', 'dist/app.js': lines(10) });
  const rules = [
    { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
    { path: 'dist/', action: 'ignore' },
  ];
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules }));
  const blocked = hook(
    repo,
    tool(repo, 'BeforeTool', 'write_file', { file_path: repo.path('.env'), content: 'KEY=2\n' }),
  );
  assert.equal(blocked.json?.decision, 'deny', show(blocked));
  assert.match(
    String(blocked.json?.reason),
    /Policy rule no-env \("\.env\*" in \.fettle\/policy\.json\) blocks it: Secrets are edited by hand\. Do not retry the write_file/,
  );
  const ignored = hook(
    repo,
    tool(repo, 'BeforeTool', 'write_file', { file_path: repo.path('dist/app.js'), content: lines(10, 'built') }),
  );
  assert.deepEqual([ignored.code, ignored.stdout], [0, ''], show(ignored));
  assert.deepEqual(log(repo), []);
});

/** One run_shell_command as Gemini CLI 0.61 runs it: BeforeTool, the command, AfterTool; the line the model got. */
const geminiShell = (repo: Repo, input: Record<string, unknown>): string | undefined => {
  const before = hook(repo, tool(repo, 'BeforeTool', 'run_shell_command', input));
  assert.deepEqual([before.code, before.stdout], [0, ''], show(before));
  const cwd = typeof input.dir_path === 'string' ? repo.path(input.dir_path) : repo.dir;
  execFileSync('/bin/sh', ['-c', String(input.command)], { cwd, env: repo.env });
  const response = { llmContent: '<untrusted_context>\nOutput: (empty)\n</untrusted_context>', returnDisplay: '' };
  const after = hook(repo, tool(repo, 'AfterTool', 'run_shell_command', input, response));
  assert.equal(after.code, 0, show(after));
  const out = after.json?.hookSpecificOutput as { additionalContext?: string } | undefined;
  return out?.additionalContext;
};

test("Gemini CLI's run_shell_command: one changeset per command (dir_path its directory), the model told; rollback --turn 1 restores the tree byte for byte", () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  assert.equal(hook(repo, { ...base(repo, 'BeforeAgent'), prompt: 'one' }).code, 0);
  assert.match(
    geminiShell(repo, { command: FIRST, description: 'edit' }) ?? '',
    /^fettle recorded 3 files changed by this command: 1 modified, 1 created, 1 deleted; undo with: .+ rollback [0-9a-z]{8}$/,
  );
  assert.equal(hook(repo, { ...base(repo, 'BeforeAgent'), prompt: 'two' }).code, 0);
  assert.match(
    geminiShell(repo, { command: SECOND, dir_path: 'sub', description: 'sub' }) ?? '',
    /^fettle recorded 1 file changed by this command: created sub\/here\.txt;/,
  );
  assert.equal(geminiShell(repo, { command: 'ls -la', description: 'look' }), undefined, 'a reader records nothing');
  assert.deepEqual(shellRows(repo), [
    'a.txt modified run_shell_command gemini gemini-session-1 1',
    'b.txt deleted run_shell_command gemini gemini-session-1 1',
    'c.txt created run_shell_command gemini gemini-session-1 1',
    'sub/here.txt created run_shell_command gemini gemini-session-1 2',
  ]);
  const back = runCli(['rollback', '--turn', '1'], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, show(back));
  assert.deepEqual(treeOf(repo), start);
});

test('run_shell_command whose AfterTool carries an error: what it changed is recorded, and the record says it failed', () => {
  const repo = shellRepo();
  const input = { command: "printf 'half\\n' > c.txt; exit 3", description: 'fails' };
  assert.equal(hook(repo, tool(repo, 'BeforeTool', 'run_shell_command', input)).code, 0);
  execFileSync('/bin/sh', ['-c', `(${input.command}) || true`], { cwd: repo.dir, env: repo.env });
  const response = { llmContent: '', returnDisplay: '', error: { message: 'Command exited with code 3' } };
  const after = hook(repo, tool(repo, 'AfterTool', 'run_shell_command', input, response));
  assert.equal(after.code, 0, show(after));
  const [row] = log(repo);
  assert.deepEqual([row.path, row.reason, row.tool], ['c.txt', 'created', 'run_shell_command']);
  assert.match(
    repo.git('log', '-1', '--format=%B', `refs/fettle/${row.id}`),
    /The command failed: Command exited with code 3\./,
  );
});
