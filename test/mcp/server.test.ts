// `fettle mcp` spoken to over stdio, as an agent's MCP client speaks to it: the built CLI as a child process, real
// repositories, hand-written JSON-RPC frames. Every tool, the texts the model reads, and every kind of bad input.
// Tier: slow, a real MCP client session per case (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CLI, literal, runCli, SELF } from '../helpers/cli';
import { type McpClient, startMcp } from '../helpers/mcp';
import { runInTerminal } from '../helpers/pty';
import { lines, makeRepo, type Repo, userState } from '../helpers/repo';
import { landedText } from '../helpers/tools';

const clients: McpClient[] = [];
after(async () => {
  for (const c of clients) if (c.child.exitCode === null) await c.close();
});

const serve = async (repo: Repo, env: Record<string, string> = {}, client = 'codex-mcp-client') => {
  const c = startMcp({ cwd: repo.dir, env: { ...repo.env, ...env } });
  clients.push(c);
  await c.initialize(client);
  return c;
};

const idIn = (text: string, before: RegExp): string => {
  const match = new RegExp(`${before.source}([0-9a-z]{8})`).exec(text);
  assert.ok(match, `no id after ${before} in:\n${text}`);
  return match[1] as string;
};

const trailers = (repo: Repo, ref: string): string => repo.git('log', '-1', '--format=%B', ref);

test('initialize names the server and its tools capability; tools/list gives each tool a description and a schema', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const c = startMcp({ cwd: repo.dir, env: repo.env });
  clients.push(c);
  const init = await c.initialize();
  const result = init.result as {
    serverInfo: { name: string };
    capabilities: { tools: unknown };
    protocolVersion: string;
  };
  assert.equal(result.serverInfo.name, 'fettle');
  assert.equal(result.protocolVersion, '2025-06-18');
  assert.ok(result.capabilities.tools);
  const list = (await c.request('tools/list')).result as {
    tools: { name: string; description: string; inputSchema: { type: string; additionalProperties: boolean } }[];
  };
  assert.deepEqual(
    list.tools.map((t) => t.name),
    [
      'fettle_write',
      'fettle_write_files',
      'fettle_confirm',
      'fettle_discard',
      'fettle_rollback',
      'fettle_status',
      'fettle_log',
      'fettle_show',
      'fettle_read',
      'fettle_apply',
      'fettle_feedback',
      'fettle_rewind',
    ],
  );
  for (const t of list.tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
    assert.ok(t.description.length > 80, `${t.name} has a description written for a model`);
  }
  assert.deepEqual(await c.request('ping'), { jsonrpc: '2.0', id: 3, result: {} });
});

test('a small write is written and recorded, with the session, the tool and the agent from clientInfo', async () => {
  const repo = makeRepo({ 'src.ts': lines(30) });
  const user = userState(repo);
  const c = await serve(repo);
  const next = lines(30).replace('line 3\n', 'line three\n');
  const r = await c.call('fettle_write', { path: 'src.ts', content: next });
  assert.equal(r.isError, false, r.text);
  const id = idIn(r.text, /fettle recorded src\.ts \(.*\) as /);
  assert.equal(
    r.text.split('\n')[0],
    `fettle recorded src.ts (${landedText(next)}, +1 -1 ~1) as ${id}; undo with: ${SELF} rollback ${id}`,
  );
  assert.match(r.text, new RegExp(`fettle_rollback with \\{"targets": \\["${id}"\\]\\}`));
  assert.equal(repo.read('src.ts').toString(), next);
  const message = trailers(repo, `refs/fettle/${id}`);
  assert.match(message, /^Fettle-Kind: after$/m);
  assert.match(message, /^Fettle-Tool: fettle_write\nFettle-Agent: codex$/m);
  assert.match(message, /^Fettle-Session: branch-main-[0-9a-f]{8}$/m, "the session ladder's: the branch and work tree");
  assert.equal(repo.git('show', `refs/fettle/${id}^:src.ts`), lines(30).trimEnd(), 'the previous bytes are the parent');
  assert.equal(userState(repo), user, "the user's HEAD, branches, index and config are untouched");
  const again = await c.call('fettle_write', { path: 'src.ts', content: next });
  assert.match(again.text, /src\.ts already has this exact content; nothing to record/);
});

test('a client fettle does not know is recorded by its own name (sanitised), never guessed from a substring', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const cases: [string, string][] = [
    ['my-codex-wrapper', 'my-codex-wrapper'],
    ['gemini-cli-mcp-client', 'gemini'],
    ['not\nclaude', 'not claude'],
  ];
  for (const [n, [client, agent]] of cases.entries()) {
    const c = await serve(repo, {}, client);
    const r = await c.call('fettle_write', { path: 'a.txt', content: `a\n${n}\n` });
    const id = idIn(r.text, /fettle recorded a\.txt \(\d+ B, 2 lines, \+1 -\d ~\d\) as /);
    assert.match(trailers(repo, `refs/fettle/${id}`), new RegExp(`^Fettle-Agent: ${agent}$`, 'm'), client);
    await c.close();
  }
});

test('a large write is staged, not written: the capped diff, the commands and the tools; fettle_confirm applies it', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const c = await serve(repo);
  const r = await c.call('fettle_write', { path: 'big.ts', content: lines(30, 'new') });
  assert.equal(r.isError, false, 'a staged write is an answer, not a failure');
  assert.match(r.text, /^fettle held this write for review: nothing was written to big\.ts\.$/m);
  const id = idIn(r.text, /Staged change /);
  assert.match(r.text, new RegExp(`To apply it, run: ${literal(SELF)} confirm ${id}`));
  assert.match(
    r.text,
    new RegExp(`fettle_confirm with \\{"ids": \\["${id}"\\]\\}; fettle_discard with \\{"ids": \\["${id}"\\]\\}`),
  );
  assert.match(r.text, /Do not retry the write; confirm or discard instead\./);
  assert.match(r.text, /^-line 1$/m);
  assert.match(r.text, /^\+new 1$/m);
  assert.equal(repo.read('big.ts').toString(), lines(30), 'nothing was written');
  const status = JSON.parse((await c.call('fettle_status')).text) as { pending: { id: string; state: string }[] };
  assert.deepEqual(
    status.pending.map((p) => [p.id, p.state]),
    [[id, 'pending']],
  );
  const confirmed = await c.call('fettle_confirm', { ids: [id] });
  assert.equal(confirmed.isError, false, confirmed.text);
  assert.match(confirmed.text, new RegExp(`Applied 1 change, all or nothing:\\n  ${id}  big\\.ts  \\+30 -30`));
  assert.equal(repo.read('big.ts').toString(), lines(30, 'new'));
  assert.match(trailers(repo, `refs/fettle/${id}`), /^Fettle-Kind: applied$/m);
  // Only the agent calls an MCP tool: the model decided, whatever the server's terminal or environment.
  assert.match(trailers(repo, `refs/fettle/${id}`), /^Fettle-Decided-By: model$/m);
});

test('the diff a large write returns is capped as the hook caps it, and says where to see the rest', async () => {
  const repo = makeRepo({ 'wide.txt': lines(400, 'x'.repeat(300)) });
  const c = await serve(repo);
  const r = await c.call('fettle_write', { path: 'wide.txt', content: lines(400, 'y'.repeat(300)) });
  const id = idIn(r.text, /Staged change /);
  assert.ok(r.text.length < 8000, `the answer is ${r.text.length} characters`);
  assert.match(r.text, new RegExp(`more diff lines not shown; see them with: git show fettle/${id}\\]`));
});

test('fettle_discard drops a staged change and touches no file; a second discard says it is decided', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const c = await serve(repo);
  const id = idIn((await c.call('fettle_write', { path: 'big.ts', content: lines(5) })).text, /Staged change /);
  const r = await c.call('fettle_discard', { ids: [id] });
  assert.match(r.text, new RegExp(`Discarded 1 change; no file was touched:\\n  ${id}  big\\.ts`));
  assert.equal(repo.read('big.ts').toString(), lines(30));
  assert.match(trailers(repo, `refs/fettle-discarded/${id}`), /^Fettle-Decided-By: model$/m);
  const again = await c.call('fettle_discard', { ids: [id] });
  assert.equal(again.isError, true);
  assert.match(again.text, /^fettle: /);
});

test('fettle_write_files stages a set with one large file as one changeset, confirmed as one', async () => {
  const repo = makeRepo({ 'a.ts': lines(30), 'b.ts': lines(30) });
  const c = await serve(repo);
  const r = await c.call('fettle_write_files', {
    files: [
      { path: 'a.ts', content: lines(30, 'new') },
      { path: 'b.ts', content: lines(30).replace('line 1\n', 'line one\n') },
      { path: 'c.ts', content: 'new file\n' },
    ],
  });
  assert.equal(r.isError, false, r.text);
  const set = idIn(r.text, /Staged changeset /);
  assert.match(r.text, new RegExp(`fettle_confirm with \\{"ids": \\["${set}"\\]\\}`));
  assert.equal(repo.read('b.ts').toString(), lines(30), 'no file of the set is written');
  const confirmed = await c.call('fettle_confirm', { ids: [set] });
  assert.match(confirmed.text, new RegExp(`Applied 3 changes of changeset ${set}, all or nothing:`));
  assert.equal(repo.read('c.ts').toString(), 'new file\n');
  assert.equal(repo.read('a.ts').toString(), lines(30, 'new'));
});

test('fettle_write_files of small changes writes them all, and fettle_rollback of the changeset undoes them all', async () => {
  const repo = makeRepo({ 'a.ts': lines(30), 'b.ts': lines(30) });
  const c = await serve(repo);
  const r = await c.call('fettle_write_files', {
    files: [
      { path: 'a.ts', content: lines(30).replace('line 1\n', 'line one\n') },
      { path: 'b.ts', content: lines(30).replace('line 2\n', 'line two\n') },
    ],
  });
  const set = idIn(r.text, /as changeset /);
  assert.match(repo.read('a.ts').toString(), /line one/);
  const dry = await c.call('fettle_rollback', { targets: [set], dry_run: true });
  assert.match(dry.text, /^Dry run, nothing was changed\. A rollback would:\n/);
  assert.match(dry.text, /^ {2}a\.ts: undo [0-9a-z]{8}: restore the previous bytes$/m);
  assert.match(dry.text, /^ {2}b\.ts: undo [0-9a-z]{8}: restore the previous bytes$/m);
  assert.match(repo.read('a.ts').toString(), /line one/, 'a dry run changes nothing');
  const done = await c.call('fettle_rollback', { targets: [set] });
  assert.match(done.text, /^Rolled back 2 changes:/);
  assert.equal(repo.read('a.ts').toString(), lines(30));
  assert.equal(repo.read('b.ts').toString(), lines(30));
  const log = JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout) as {
    changes: { decidedBy: string | null }[];
  };
  // the two writes, then their two rollbacks
  assert.deepEqual(log.changes.map((ch) => ch.decidedBy).sort(), ['model', 'model', 'threshold', 'threshold']);
});

test('fettle_log and fettle_show give the records as JSON, the agent and session included, and the diff', async () => {
  const repo = makeRepo({ 'a.ts': lines(30) });
  const c = await serve(repo, {}, 'gemini-cli-mcp-client');
  const id = idIn((await c.call('fettle_write', { path: 'a.ts', content: lines(31) })).text, /as /);
  const log = JSON.parse((await c.call('fettle_log', { path: 'a.ts' })).text) as {
    repository: string;
    changes: Record<string, unknown>[];
  };
  assert.equal(log.repository, repo.dir);
  assert.equal(log.changes.length, 1);
  assert.deepEqual(
    { id: log.changes[0]?.id, state: log.changes[0]?.state, agent: log.changes[0]?.agent, tool: log.changes[0]?.tool },
    { id, state: 'applied', agent: 'gemini', tool: 'fettle_write' },
  );
  const show = await c.call('fettle_show', { change: id });
  const [head = '', diff = ''] = show.text.split('\n\n');
  assert.equal((JSON.parse(head) as { id: string }).id, id);
  assert.match(diff, /^\+line 31$/m);
  const missing = await c.call('fettle_show', { change: 'zzzzzzzz' });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /^fettle: .*zzzzzzzz/);
});

test('fettle_read pages a large file with line numbers and says where to read on', async () => {
  const repo = makeRepo({ 'long.txt': lines(5000) });
  const c = await serve(repo);
  const first = await c.call('fettle_read', { path: 'long.txt' });
  assert.match(first.text, /^Lines 1-2000 of 5000 of .*long\.txt:\n {5}1\tline 1\n/);
  assert.match(first.text, /read on with offset 2001\.$/);
  const last = await c.call('fettle_read', { path: 'long.txt', offset: 4999, limit: 10 });
  assert.match(
    last.text,
    /^Lines 4999-5000 of 5000 .*\n {2}4999\tline 4999\n {2}5000\tline 5000\nThat is the end of the file\.$/,
  );
  const binary = await c.call('fettle_read', { path: 'bin', offset: 1 });
  assert.equal(binary.isError, true);
});

test('bad input: JSON-RPC errors for frames, tool errors naming the argument for arguments, and the server goes on', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const c = await serve(repo);
  c.raw('{"jsonrpc": "2.0", "id": 7, "method": ');
  assert.equal((await c.answer(null)).error?.code, -32700);
  c.raw('{"id": 8, "method": "tools/list"}');
  assert.deepEqual((await c.answer(8)).error?.code, -32600, 'a request without jsonrpc: 2.0');
  c.raw('[1, 2]');
  assert.equal((await c.answer(null)).error?.code, -32600, 'a batch');
  assert.equal((await c.request('resources/list')).error?.code, -32601);
  assert.equal((await c.request('no/such/method')).error?.code, -32601);
  assert.equal((await c.request('tools/call', { arguments: {} })).error?.code, -32602, 'no tool name');
  const unknown = await c.request('tools/call', { name: 'fettle_nothing', arguments: {} });
  assert.equal(unknown.error?.code, -32602);
  assert.match(unknown.error?.message ?? '', /Unknown tool: fettle_nothing\. The tools are fettle_write, /);
  for (const [args, why] of [
    [{ path: 'a.txt', content: 5 }, 'content must be a string, not an integer'],
    [{ path: 'a.txt' }, 'content is required'],
    [{ path: '', content: 'x' }, 'path must not be empty'],
    [{ path: 'a.txt', content: 'x', mode: 'fast' }, 'unknown argument "mode"; the arguments are path, content'],
  ] as const) {
    const r = await c.call('fettle_write', args);
    assert.deepEqual(r, { text: `fettle: fettle_write: ${why}.`, isError: true });
  }
  const notObject = await c.request('tools/call', { name: 'fettle_write', arguments: 'a.txt' });
  assert.equal(notObject.error?.code, -32602, 'arguments that are not an object: a malformed tools/call');
  const files = await c.call('fettle_write_files', { files: [{ path: 'a.txt', content: null }] });
  assert.match(files.text, /files\[0\]\.content must be a string, not null/);
  const limit = await c.call('fettle_read', { path: 'a.txt', limit: 1.5 });
  assert.match(limit.text, /limit must be an integer, not a number/);
  const none = await c.call('fettle_confirm', {});
  assert.match(none.text, /Name what to confirm: ids \(change or changeset ids\), a session, or all: true\./);
  assert.equal(repo.read('a.txt').toString(), 'a\n', 'nothing bad input asked for was written');
  assert.deepEqual((await c.request('ping')).result, {}, 'the server still answers');
  for (const line of c.lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', line);
  assert.equal(await c.close(), 0, 'closing stdin ends the server cleanly');
  assert.equal(c.stderr(), '');
});

test("a message over the 10 MB the SDK's own stdio transport allows: a 12 MB file is written and recorded", async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const c = await serve(repo);
  const big = lines(1_000_000, 'a longer line');
  assert.ok(big.length > 12_000_000, `${big.length} bytes`);
  const r = await c.call('fettle_write', { path: 'big.txt', content: big });
  assert.equal(r.isError, false, r.text);
  const id = idIn(r.text, /fettle recorded big\.txt \(\d+\.\d MB, new file\) as /);
  assert.equal(repo.read('big.txt').toString(), big);
  assert.equal(repo.git('cat-file', '-s', `refs/fettle/${id}:big.txt`), String(big.length));
  assert.deepEqual((await c.request('ping')).result, {}, 'the connection stays open');
});

test('a failure of fettle is a tool result with isError and the message and hint, commands spelled to run', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const c = await serve(repo);
  const r = await c.call('fettle_confirm', { ids: ['zzzzzzzz'] });
  assert.equal(r.isError, true);
  assert.match(
    r.text,
    new RegExp(`^fettle: No change 'zzzzzzzz'\\..*\\nRun \`${literal(SELF)} status\` to list pending changes\\.$`),
  );
  const dotGit = await c.call('fettle_write', { path: '.git/config', content: 'x' });
  assert.equal(dotGit.isError, true);
  assert.equal(readFileSync(repo.path('.git/config'), 'utf8').includes('[core]'), true, '.git is never written');
});

test('FETTLE_REVIEW=human: a large write is staged for a person; fettle_confirm refuses it; a person confirms', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const env = { FETTLE_REVIEW: 'human' };
  const c = await serve(repo, env);
  const small = await c.call('fettle_write', { path: 'big.ts', content: lines(30).replace('line 1\n', 'line one\n') });
  assert.match(small.text, /^fettle recorded big\.ts/, 'a small change is written directly, as the README says');
  const r = await c.call('fettle_write', { path: 'big.ts', content: lines(30, 'new') });
  const id = idIn(r.text, /Staged change /);
  assert.match(
    r.text,
    new RegExp(
      `only a person may apply it, from their own terminal: ${literal(SELF)} review ${id}, then ${literal(SELF)} confirm ${id}\\. fettle_confirm refuses it\\.`,
    ),
  );
  assert.doesNotMatch(r.text, /To apply it, run/);
  assert.match(trailers(repo, `refs/fettle/${id}`), /^Fettle-Review: person$/m);
  const refused = await c.call('fettle_confirm', { ids: [id] });
  assert.equal(refused.isError, true);
  assert.match(
    refused.text,
    new RegExp(`^fettle: Change ${id} to big\\.ts needs a person's approval \\(FETTLE_REVIEW=human is set`),
  );
  const all = await c.call('fettle_confirm', { all: true });
  assert.equal(all.isError, true, 'all: true is refused too');
  assert.match(repo.read('big.ts').toString(), /line one/, 'nothing was written');
  const person = runInTerminal([process.execPath, CLI, 'confirm', id], { cwd: repo.dir, env: { ...repo.env, ...env } });
  assert.equal(person.code, 0, person.stderr);
  assert.equal(repo.read('big.ts').toString(), lines(30, 'new'));
});

test('a change the hook staged for a person (Claude Code asked) is refused by fettle_confirm in the default review', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const file = repo.path('big.ts');
  const payload = {
    session_id: 's1',
    cwd: repo.dir,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: file, content: lines(30, 'new') },
    tool_use_id: 'toolu_p',
  };
  const hook = runCli(['hook'], { cwd: repo.dir, env: repo.env, input: JSON.stringify(payload) });
  const id = idIn(hook.stdout, /It is staged as /);
  const c = await serve(repo);
  const r = await c.call('fettle_confirm', { session: 's1' });
  assert.equal(r.isError, true);
  assert.match(
    r.text,
    new RegExp(`Change ${id} to big\\.ts needs a person's approval \\(a person was asked to approve it\\)`),
  );
  assert.equal(repo.read('big.ts').toString(), lines(30));
});

test('a -C directory and a directory argument: paths resolve there, and texts name the other repository', async () => {
  const repo = makeRepo({ 'a.ts': lines(30) });
  const other = makeRepo({ 'b.ts': lines(30) });
  const c = startMcp({ cwd: other.home, env: repo.env, args: ['-C', repo.dir] });
  clients.push(c);
  await c.initialize();
  const small = await c.call('fettle_write', { path: 'a.ts', content: lines(31) });
  assert.match(small.text, /^fettle recorded a\.ts/);
  const big = await c.call('fettle_write', { path: other.path('b.ts'), content: lines(30, 'x') });
  const id = idIn(big.text, /Staged change /);
  assert.match(
    big.text,
    new RegExp(`fettle_confirm with \\{"ids": \\["${id}"\\], "directory": "${literal(other.dir)}"\\}`),
  );
  const here = await c.call('fettle_confirm', { ids: [id] });
  assert.equal(here.isError, true, 'not a change of the repository the server runs in');
  const there = await c.call('fettle_confirm', { ids: [id], directory: other.dir });
  assert.equal(there.isError, false, there.text);
  assert.equal(other.read('b.ts').toString(), lines(30, 'x'));
});

test('fettle_apply stages a contract as one changeset, recorded as this agent and session, and runs none of its checks', async () => {
  const repo = makeRepo({ 'src/a.ts': 'export const loadConfig = 1;\n' });
  const contract = join(repo.home, 'contract.json');
  const edits = [
    { op: 'replace', file: 'src/a.ts', anchor: 'loadConfig', with: 'readConfig' },
    { op: 'create', file: 'src/b.ts', text: 'export const b = 2;\n' },
  ];
  const checks = [['sh', '-c', 'touch ran']];
  writeFileSync(contract, JSON.stringify({ version: 1, title: 'Rename', scope: ['src/**'], edits, checks }));
  const c = await serve(repo);
  const dry = await c.call('fettle_apply', { contract, dry_run: true });
  assert.match(dry.text, /^Dry run: the contract would stage 2 file\(s\); nothing was staged\.$/m, dry.text);
  assert.match(dry.text, /^\+export const readConfig = 1;$/m);
  const r = await c.call('fettle_apply', { contract });
  assert.equal(r.isError, false, r.text);
  const set = idIn(r.text, /as changeset /);
  assert.match(r.text, new RegExp(`fettle_confirm with \\{"ids": \\["${set}"\\]\\}`));
  assert.match(
    r.text,
    /Its 1 check\(s\) were not run \(fettle_apply runs no commands\); a person runs them with: .* apply --test --dry-run /,
  );
  assert.equal(repo.read('src/a.ts').toString(), 'export const loadConfig = 1;\n', 'nothing written before confirm');
  const id = idIn(r.text, /\n {2}/);
  const record = trailers(repo, `refs/fettle/${id}`);
  assert.match(record, /^Fettle-Tool: fettle_apply\nFettle-Agent: codex$/m);
  assert.match(record, /^Fettle-Session: branch-main-[0-9a-f]{8}$/m);
  assert.match(record, /^Fettle-Contract: sha256:/m);
  const confirmed = await c.call('fettle_confirm', { ids: [set] });
  assert.match(confirmed.text, new RegExp(`Applied 2 changes of changeset ${set}, all or nothing:`), confirmed.text);
  assert.equal(repo.read('src/a.ts').toString(), 'export const readConfig = 1;\n');
  assert.throws(() => readFileSync(repo.path('ran')), 'no check ran');
  const broken = await c.call('fettle_apply', { contract: repo.path('src/a.ts') });
  assert.equal(broken.isError, true, 'not a contract: a tool error');
});

test('a path a policy rule ignores is written by fettle_write and not recorded, as fettle write says', async () => {
  const repo = makeRepo({ 'gen/out.txt': lines(30) });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: 'gen/**', action: 'ignore' }] }));
  const c = await serve(repo);
  const r = await c.call('fettle_write', { path: 'gen/out.txt', content: lines(30, 'new') });
  assert.match(r.text, /^fettle wrote gen\/out\.txt without recording it: policy rule .* ignores it\.$/, r.text);
  assert.equal(repo.read('gen/out.txt').toString(), lines(30, 'new'));
  assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
});
