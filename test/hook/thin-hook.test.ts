// Tier: slow, a real resident server and every call twice, through it and in process (scripts/test-tiers.mjs).
// The thin command hook (src/hook/thin.ts): with a resident server running, `fettle hook [--agent X]` hands the
// call to it and prints exactly what the hook process prints (stdout, stderr, exit code), with the same records;
// with no server that answers, the call runs in process; once a server may have taken the call and gives no
// answer, it fails closed. Each call runs on two identical repositories: one through the server, one in process.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { hookInBackground, runCli, type Run } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { setUpResident, stateDirOf } from '../helpers/resident';
import { STAGE_ALL } from '../helpers/tools';

type Env = Record<string, string>;
type Call = { args: string[]; input: unknown; env?: Env; write?: [string, string] };

const FILES = { 'a.txt': lines(30), 'b.txt': lines(20) };
const resident = setUpResident();
/** A caller's pointer to the server's files (the hook path reads nothing else of FETTLE_STATE_DIR). */
const toServer = { FETTLE_STATE_DIR: join(resident.home, '.local', 'state', 'fettle') };
const noServer = (): Env => ({ FETTLE_STATE_DIR: tempDir('fettle-no-server-') });

const served = (): number => {
  const r = runCli(['serve', '--status', '--json'], { cwd: resident.home, env: resident.env });
  return JSON.parse(r.stdout).running?.served ?? -1;
};

/** ids and the repository's path, which differ between the two repositories, named alike. */
const normal = (repo: Repo, text: string): string => {
  const log = JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes;
  const ids = log.flatMap((c: { id: string; changeset: string | null }) => [c.id, c.changeset ?? c.id]);
  let out = text.split(repo.dir).join('<repo>');
  for (const id of ids) out = out.split(id).join('<id>');
  return out;
};

/** What fettle recorded: each change's fields that do not name an id, a time or a temp path, and its tree. */
const records = (repo: Repo): string[] => {
  const log = JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes;
  return log
    .map((c: Record<string, unknown>) => {
      const tree = repo.git('rev-parse', `${c.commit}^{tree}`);
      // Gemini's call names carry a hash of the path.
      const call = String(c.toolUse).replace(/[0-9a-f]{24}/, '<hash>');
      return JSON.stringify([c.state, c.tier, c.kind, c.path, c.reason, c.agent, c.tool, call, c.decidedBy, tree]);
    })
    .sort();
};

const hook = (repo: Repo, call: Call, env: Env): Run =>
  runCli(call.args, { cwd: repo.dir, env: { ...repo.env, ...call.env, ...env }, input: JSON.stringify(call.input) });

const claude = (repo: Repo, event: string, file: string, content: string) => ({
  session_id: 'session-1',
  transcript_path: '/dev/null',
  cwd: repo.dir,
  permission_mode: 'acceptEdits',
  hook_event_name: event,
  tool_name: 'Write',
  tool_input: { file_path: repo.path(file), content },
  tool_use_id: 'toolu_01',
});
const codex = (repo: Repo, event: string, patch: string) => ({
  session_id: 'codex-session-1',
  turn_id: 'turn-1',
  transcript_path: null,
  cwd: repo.dir,
  hook_event_name: event,
  permission_mode: 'bypassPermissions',
  tool_name: 'apply_patch',
  tool_input: { command: patch },
  tool_use_id: 'call_1',
  ...(event === 'PostToolUse' ? { tool_response: 'Exit code: 0\nOutput:\nSuccess.' } : {}),
});
const gemini = (repo: Repo, event: string, file: string, content: string) => ({
  session_id: 'gemini-session-1',
  transcript_path: '/dev/null',
  cwd: repo.dir,
  hook_event_name: event,
  timestamp: '2026-01-01T00:00:00.000Z',
  tool_name: 'write_file',
  tool_input: { file_path: repo.path(file), content },
  ...(event === 'AfterTool' ? { tool_response: { llmContent: 'ok', returnDisplay: 'ok' } } : {}),
});

const NEW_A = lines(30).replace('line 3\n', 'LINE 3\n');
const NEW_B = lines(20).replace('line 5\n', 'LINE 5\n');
const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n line 2\n-line 3\n+LINE 3\n line 4\n*** End Patch\n';
const HOOK = ['hook'];
// [label, the calls in order: each with what the tool then writes, if anything]
const scenarios: [string, (r: Repo) => Call[]][] = [
  [
    'claude Write, direct',
    (r) => [
      { args: HOOK, input: claude(r, 'PreToolUse', 'a.txt', NEW_A), write: ['a.txt', NEW_A] },
      { args: HOOK, input: claude(r, 'PostToolUse', 'a.txt', NEW_A) },
    ],
  ],
  [
    'claude Write, staged: a deny with the diff',
    (r) => [{ args: HOOK, input: claude(r, 'PreToolUse', 'a.txt', NEW_A), env: STAGE_ALL }],
  ],
  [
    'claude Write, a person reviews: ask',
    (r) => [
      { args: HOOK, input: claude(r, 'PreToolUse', 'a.txt', NEW_A), env: { ...STAGE_ALL, FETTLE_REVIEW: 'human' } },
    ],
  ],
  ['claude, input that is not JSON: exit 1', () => [{ args: HOOK, input: '{not json' }]],
  [
    'codex apply_patch, direct',
    (r) => [
      { args: ['hook', '--agent', 'codex'], input: codex(r, 'PreToolUse', PATCH), write: ['a.txt', NEW_A] },
      { args: ['hook', '--agent', 'codex'], input: codex(r, 'PostToolUse', PATCH) },
    ],
  ],
  [
    'codex apply_patch, staged',
    (r) => [{ args: ['hook', '--agent', 'codex'], input: codex(r, 'PreToolUse', PATCH), env: STAGE_ALL }],
  ],
  [
    'gemini write_file, direct',
    (r) => [
      { args: ['hook', '--agent', 'gemini'], input: gemini(r, 'BeforeTool', 'b.txt', NEW_B), write: ['b.txt', NEW_B] },
      { args: ['hook', '--agent', 'gemini'], input: gemini(r, 'AfterTool', 'b.txt', NEW_B) },
    ],
  ],
  [
    'gemini payload to the claude hook: no adapter, as in process',
    (r) => [{ args: HOOK, input: gemini(r, 'BeforeTool', 'b.txt', 'b\n') }],
  ],
];

for (const [label, calls] of scenarios)
  test(`through the server, as in process: ${label}`, () => {
    const [viaServer, inProcess] = [makeRepo(FILES), makeRepo(FILES)];
    const before = served();
    const steps = [calls(viaServer), calls(inProcess)] as const;
    for (const [i, call] of steps[0].entries()) {
      const other = steps[1][i] as Call;
      const [a, b] = [hook(viaServer, call, toServer), hook(inProcess, other, noServer())];
      const shown = (r: Run, repo: Repo) => normal(repo, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      assert.equal(shown(a, viaServer), shown(b, inProcess));
      if (call.write) viaServer.write(...call.write);
      if (other.write) inProcess.write(...other.write);
    }
    assert.deepEqual(records(viaServer), records(inProcess));
    assert.equal(served() - before, steps[0].length, 'every call was answered by the server');
  });

/** A state dir this user alone may enter, with a pid file saying `pid` serves on `port`. */
const stateWith = (pid: number, port: number, auth: string, token?: string): Env => {
  const state = tempDir('fettle-state-');
  const dir = join(state, 'serve');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'pid'), `${pid} ${port} -\n${auth}\n`);
  if (token !== undefined) writeFileSync(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
  return { FETTLE_STATE_DIR: state };
};

/** `fettle hook` without blocking this process, which may be serving it. */
const hookAsync = (repo: Repo, input: unknown, env: Env): Promise<Run> =>
  hookInBackground(repo.dir, input, { ...repo.env, ...env });

/**
 * A server on a free loopback port (or on `socket`, a path) that does `act` with each connection once its
 * request has arrived whole.
 */
const fakeServer = async (act: (socket: Socket, request: string) => void, socket?: string) => {
  const requests: string[] = [];
  const server: Server = createServer((socket) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
      if (end < 0 || text.length - end - 4 < length) return;
      requests.push(text);
      act(socket, text);
    });
  });
  await new Promise<void>((r) => (socket ? server.listen(socket, r) : server.listen(0, '127.0.0.1', r)));
  server.unref(); // a failed assertion before close() must not keep the test process alive
  const port = socket ? 0 : (server.address() as { port: number }).port;
  return { port, requests, close: () => server.close() };
};

const refs = (repo: Repo) => repo.git('for-each-ref', 'refs/fettle/').split('\n').filter(Boolean);
const pre = (repo: Repo) => claude(repo, 'PreToolUse', 'a.txt', NEW_A);
const answer = (status: number, body: string) =>
  `HTTP/1.1 ${status} X\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;

test('no server that answers: the call runs in process, once', async () => {
  const closed = await fakeServer(() => undefined);
  closed.close();
  const cases: [string, Env][] = [
    ['no pid file', noServer()],
    ['a dead pid', stateWith(2 ** 22 + 1, closed.port, 'peer')],
    ['the connection refused', stateWith(process.pid, closed.port, 'peer')],
  ];
  for (const [label, env] of cases) {
    const repo = makeRepo(FILES);
    const r = await hookAsync(repo, pre(repo), env);
    assert.deepEqual([r.code, r.stderr, refs(repo).length], [0, '', 1], label);
  }
});

test('a server that does not know the command path (an older fettle): 404, and the call runs in process', async () => {
  const old = await fakeServer((socket) => socket.end(answer(404, '{}')));
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), stateWith(process.pid, old.port, 'peer'));
  old.close();
  assert.match(old.requests[0] ?? '', /^POST \/fettle\/command HTTP\/1\.1\r\n/);
  assert.deepEqual([r.code, r.stderr, refs(repo).length], [0, '', 1]);
});

test('a server that took the call and died: blocked with one line, and not run again in process', async () => {
  const dying = await fakeServer((socket) => socket.destroy());
  const cases: [unknown, RegExp][] = [
    [
      'PreToolUse',
      /^fettle blocked this tool call: the resident hook server \(pid \d+\) it handed the call to ended without an answer \(.+\); nothing was written\. Make the call again\.\n$/,
    ],
    [
      'PostToolUse',
      /^fettle could not tell whether this PostToolUse was recorded: the resident hook server \(pid \d+\) .+\.\n$/,
    ],
  ];
  for (const [event, message] of cases) {
    const repo = makeRepo(FILES);
    const r = await hookAsync(
      repo,
      claude(repo, event as string, 'a.txt', NEW_A),
      stateWith(process.pid, dying.port, 'peer'),
    );
    assert.deepEqual([r.code, r.stdout, refs(repo).length], [2, '', 0], r.stderr);
    assert.match(r.stderr, message);
  }
  dying.close();
});

test('a real server killed mid-call (after its record): the write is blocked, and recorded once', () => {
  const killed = setUpResident({ FETTLE_FAILPOINTS: 'record.ref-written=kill' });
  const repo = makeRepo(FILES);
  const r = hook(repo, { args: HOOK, input: pre(repo) }, { FETTLE_STATE_DIR: join(stateDirOf(killed.home), '..') });
  assert.deepEqual([r.code, r.stdout], [2, ''], r.stderr);
  assert.match(r.stderr, /^fettle blocked this tool call: the resident hook server/);
  assert.equal(refs(repo).length, 1, 'the server recorded it; the caller did not run it again');
  assert.equal(repo.read('a.txt').toString(), lines(30));
});

test('a token server: the token goes with the call, and its answer is printed byte for byte', async () => {
  const token = 'ab'.repeat(32);
  const body = JSON.stringify({ exitCode: 1, stdout: 'out \u00e9\n', stderr: 'err line\n', stops: false });
  const fake = await fakeServer((socket) => socket.end(answer(200, body)));
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), stateWith(process.pid, fake.port, 'token', token));
  assert.match(fake.requests[0] ?? '', new RegExp(`\r\nAuthorization: Bearer ${token}\r\n`));
  assert.deepEqual([r.code, r.stdout, r.stderr, refs(repo).length], [1, 'out \u00e9\n', 'err line\n', 0]);
  // A token file others may read is not fettle's: no hand-off, the call runs in process.
  const shared = stateWith(process.pid, fake.port, 'token', token);
  chmodSync(join(shared.FETTLE_STATE_DIR as string, 'serve', 'token'), 0o640);
  const again = makeRepo(FILES);
  const local = await hookAsync(again, pre(again), shared);
  fake.close();
  assert.deepEqual([local.code, fake.requests.length, refs(again).length], [0, 1, 1]);
});

/** A state dir this user alone may enter, with nothing in it yet: the socket's path in it. */
const socketState = (): { env: Env; socket: string } => {
  const env = stateWith(0, 1, 'peer');
  const dir = join(env.FETTLE_STATE_DIR as string, 'serve');
  writeFileSync(join(dir, 'pid'), ''); // names no server: only the socket can take the call
  return { env, socket: join(dir, 'sock') };
};

test("the server's socket: the call goes there, with no pid file, port or token needed", async () => {
  const body = JSON.stringify({ exitCode: 0, stdout: 'from the socket\n', stderr: '', stops: false });
  const { env, socket } = socketState();
  const fake = await fakeServer((s) => s.end(answer(200, body)), socket);
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), env);
  fake.close();
  assert.match(fake.requests[0] ?? '', /^POST \/fettle\/command HTTP\/1\.1\r\nHost: localhost\r\n/);
  assert.doesNotMatch(fake.requests[0] ?? '', /Authorization/);
  assert.deepEqual([r.code, r.stdout, r.stderr, refs(repo).length], [0, 'from the socket\n', '', 0]);
});

test('a socket nobody listens on (its server was killed): the port, as with no socket', async () => {
  const body = JSON.stringify({ exitCode: 0, stdout: 'from the port\n', stderr: '', stops: false });
  const fake = await fakeServer((s) => s.end(answer(200, body)));
  const env = stateWith(process.pid, fake.port, 'peer');
  const socket = join(env.FETTLE_STATE_DIR as string, 'serve', 'sock');
  const stale = await fakeServer(() => undefined, `${socket}.old`);
  renameSync(`${socket}.old`, socket); // closing removes the name it was bound to, not this one
  stale.close();
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), env);
  fake.close();
  assert.deepEqual([r.code, r.stdout, fake.requests.length, existsSync(socket)], [0, 'from the port\n', 1, true]);
});

test('a socket in a directory others may enter is not used: the call runs in process', async () => {
  const { env, socket } = socketState();
  const fake = await fakeServer((s) => s.end(answer(200, '{}')), socket);
  chmodSync(join(env.FETTLE_STATE_DIR as string, 'serve'), 0o755);
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), env);
  fake.close();
  assert.deepEqual([r.code, r.stderr, fake.requests.length, refs(repo).length], [0, '', 0, 1]);
});

test('a server on the socket that took the call and died: blocked, and not run again in process', async () => {
  const { env, socket } = socketState();
  const dying = await fakeServer((s) => s.destroy(), socket);
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), env);
  dying.close();
  assert.deepEqual([r.code, r.stdout, refs(repo).length], [2, '', 0], r.stderr);
  assert.match(r.stderr, /^fettle blocked this tool call: the resident hook server it handed the call to ended/);
});

test('a real server answers on its socket alone, and removes it when it stops', () => {
  const own = setUpResident();
  const env = { FETTLE_STATE_DIR: join(own.state, '..') };
  const repo = makeRepo(FILES);
  renameSync(join(own.state, 'pid'), join(own.state, 'pid.away')); // no port to find: only the socket
  const r = hook(repo, { args: HOOK, input: pre(repo) }, env);
  renameSync(join(own.state, 'pid.away'), join(own.state, 'pid'));
  const status = JSON.parse(runCli(['serve', '--status', '--json'], { cwd: own.home, env: own.env }).stdout);
  assert.deepEqual([r.code, r.stderr, refs(repo).length, status.running?.served], [0, '', 1, 1]);
  runCli(['serve', '--stop'], { cwd: own.home, env: own.env });
  assert.equal(existsSync(join(own.state, 'sock')), false);
});

// A hook that waits for the close fails the test at its timeout, and ends when the connection is cut after it.
test('a whole answer is printed at once, without waiting for the server to close the connection', {
  timeout: 30_000,
}, async () => {
  const body = JSON.stringify({ exitCode: 0, stdout: 'answered\n', stderr: '', stops: false });
  const { env, socket } = socketState();
  const open = await fakeServer((s) => {
    s.write(answer(200, body)); // and the connection stays open
    setTimeout(() => s.destroy(), 40_000).unref();
  }, socket);
  const repo = makeRepo(FILES);
  const r = await hookAsync(repo, pre(repo), env);
  open.close();
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'answered\n', '']);
});
