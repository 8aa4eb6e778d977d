// Tier: slow, real servers started by hook calls and waited for (scripts/test-tiers.mjs).
// The resident server started by the first command hook call that finds none (src/protocol/serve/autostart.ts):
// no setup step, the call itself answered in process, the calls after it handed to the server; the setting that
// turns it off, the wait between tries, a failed start that makes hook calls leave it alone, and parallel first
// calls that leave one server.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { hookInBackground, runCli } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';

type Env = Record<string, string>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The repository's environment with the start left on (helpers turn it off) and a state dir of its own. */
const autoEnv = (repo: Repo): Env => {
  const { FETTLE_SERVE_AUTOSTART: _off, ...env } = repo.env;
  return { ...env, FETTLE_STATE_DIR: tempDir('fettle-auto-state-') };
};
const serveDir = (env: Env) => join(env.FETTLE_STATE_DIR as string, 'serve');

const write = (repo: Repo, file: string, content: string, id: string) => ({
  session_id: 'session-auto',
  transcript_path: '/dev/null',
  cwd: repo.dir,
  permission_mode: 'acceptEdits',
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: repo.path(file), content },
  tool_use_id: id,
});

const status = (repo: Repo, env: Env) =>
  JSON.parse(runCli(['serve', '--status', '--json'], { cwd: repo.dir, env }).stdout) as {
    port: number | null;
    running: { pid: number; served?: number } | null;
    autostart: string;
  };

const until = async <T>(what: string, probe: () => T | undefined | null | false, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
};

/** `fettle serve` processes whose state dir is `env`'s (read from /proc: Linux only, as the CI machine is). */
const serversOf = (env: Env): number[] =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        const environ = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0');
        return argv.includes('serve') && environ.includes(`FETTLE_STATE_DIR=${env.FETTLE_STATE_DIR}`);
      } catch {
        return false;
      }
    })
    .map(Number);

const stop = (repo: Repo, env: Env) => runCli(['serve', '--stop'], { cwd: repo.dir, env });

/** One hook call that writes a line more into a.txt, answered in process (no server runs yet). */
const firstCall = (repo: Repo, env: Env, id = 't1') => {
  const r = runCli(['hook'], { cwd: repo.dir, env, input: JSON.stringify(write(repo, 'a.txt', lines(21), id)) });
  assert.equal(r.code, 0, r.stderr);
};

/** `body` while another program listens on the port `config.json` names (`fields` beside the port). */
const portTaken = async (env: Env, fields: object, body: (port: number) => Promise<void>): Promise<void> => {
  const squatter = createServer();
  await new Promise<void>((r) => squatter.listen({ host: '127.0.0.1', port: 0 }, r));
  const port = (squatter.address() as { port: number }).port;
  try {
    mkdirSync(serveDir(env), { recursive: true, mode: 0o700 });
    writeFileSync(join(serveDir(env), 'config.json'), JSON.stringify({ port, ...fields }), { mode: 0o600 });
    await body(port);
  } finally {
    squatter.close();
  }
};

test('the first hook call answers in process and starts the server; the next call is handed to it', async () => {
  const repo = makeRepo({ 'a.txt': lines(20) });
  const env = autoEnv(repo);
  assert.equal(status(repo, env).port, null, 'no server has run for this user yet');
  firstCall(repo, env);
  try {
    const running = await until('the server', () => status(repo, env).running);
    assert.equal(statSync(serveDir(env)).mode & 0o777, 0o700);
    assert.equal(statSync(join(serveDir(env), 'token')).mode & 0o777, 0o600);
    assert.ok(Number.isInteger(JSON.parse(readFileSync(join(serveDir(env), 'config.json'), 'utf8')).port));
    assert.match(readFileSync(join(serveDir(env), 'log'), 'utf8'), /started: pid \d+, .*\(auto\)/);
    const before = running.served ?? 0;
    const second = runCli(['hook'], {
      cwd: repo.dir,
      env,
      input: JSON.stringify(write(repo, 'a.txt', lines(22), 't2')),
    });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(status(repo, env).running?.served, before + 1, 'the second call went to the server');
    assert.match(status(repo, env).autostart, /^on/);
  } finally {
    stop(repo, env);
  }
});

test('FETTLE_SERVE_AUTOSTART=0: the call runs in process and nothing is started or written for a server', () => {
  const repo = makeRepo({ 'a.txt': lines(20) });
  const env = { ...autoEnv(repo), FETTLE_SERVE_AUTOSTART: '0' };
  firstCall(repo, env);
  assert.equal(existsSync(serveDir(env)), false, 'no marker, no port, no token: nothing was started');
  assert.match(status(repo, env).autostart, /^off/);
});

test('a start tried within the last minute: the call starts none (the marker is left as it was)', () => {
  const repo = makeRepo({ 'a.txt': lines(20) });
  const env = autoEnv(repo);
  mkdirSync(serveDir(env), { recursive: true, mode: 0o700 });
  const marker = join(serveDir(env), 'autostart');
  writeFileSync(marker, '');
  const recent = Date.now() / 1000 - 10;
  utimesSync(marker, recent, recent);
  firstCall(repo, env);
  assert.equal(Math.round(statSync(marker).mtimeMs / 1000), Math.round(recent), 'not tried again');
  assert.equal(existsSync(join(serveDir(env), 'config.json')), false);
});

test("a server that cannot start (the port install chose is another program's) makes hook calls leave it alone for an hour", async () => {
  const repo = makeRepo({ 'a.txt': lines(20) });
  const env = autoEnv(repo);
  await portTaken(env, {}, async (port) => {
    firstCall(repo, env);
    const marker = join(serveDir(env), 'autostart');
    await until('the failed start to push the marker ahead', () => statSync(marker).mtimeMs > Date.now() + 30 * 60_000);
    assert.match(readFileSync(join(serveDir(env), 'log'), 'utf8'), new RegExp(`not started: port ${port} .* in use`));
    assert.equal(status(repo, env).running, null);
  });
});

test('parallel first calls, each finding no server, leave one server and no failed start', async () => {
  const repo = makeRepo({ 'a.txt': lines(20), 'b.txt': lines(20), 'c.txt': lines(20) });
  const env = autoEnv(repo);
  const calls = await Promise.all(
    ['a.txt', 'b.txt', 'c.txt'].map((f, i) => hookInBackground(repo.dir, write(repo, f, lines(21), `p${i}`), env)),
  );
  for (const c of calls) assert.equal(c.code, 0, c.stderr);
  try {
    const running = await until('the server', () => status(repo, env).running);
    // Each starter that lost exits within the wait for a server still starting (5 s).
    await until('one server left', () => serversOf(env).length === 1);
    assert.deepEqual(serversOf(env), [running.pid]);
    assert.doesNotMatch(readFileSync(join(serveDir(env), 'log'), 'utf8'), /not started/);
  } finally {
    stop(repo, env);
  }
});

test('a port a server chose itself that another program holds now: the next server takes a new one', async () => {
  const repo = makeRepo({ 'a.txt': lines(20) });
  const env = autoEnv(repo);
  try {
    await portTaken(env, { chosenBy: 'server' }, async (port) => {
      firstCall(repo, env);
      const running = await until('the server', () => status(repo, env).running);
      const moved = JSON.parse(readFileSync(join(serveDir(env), 'config.json'), 'utf8'));
      assert.notEqual(moved.port, port);
      assert.equal(moved.chosenBy, 'server');
      assert.equal(status(repo, env).port, moved.port);
      const log = readFileSync(join(serveDir(env), 'log'), 'utf8');
      assert.match(log, new RegExp(`port ${port} is another program's now: moved to ${moved.port}`));
      assert.ok(running.pid > 0);
    });
  } finally {
    stop(repo, env);
  }
});
