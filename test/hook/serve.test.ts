// The resident server when something goes wrong: killed, replaced by another version, its token damaged, and
// requests it must refuse. Every call goes through resident mode's settings as Claude Code makes it (HTTP
// hook and guard at once); each write is recorded exactly once, or blocked with a reason the model can act on.
// Tier: slow, starts and stops resident servers (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirFrom } from '../../src/config';
import { CLI, writePayload } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { callResident, setUpResident, type ClientRun, type ResidentSetup } from '../helpers/resident';
import { fettle, ok, refOid, statusJson } from '../helpers/stage';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Alive and not a zombie (a container's init may be slow to reap what the test killed). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
};

const waitFor = async (what: string, cond: () => boolean, ms = 10_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
};

const show = (r: ClientRun | undefined): string =>
  r ? `exit ${r.code}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(0, 1500)}` : 'not run';

interface Write {
  pre: ClientRun;
  post?: ClientRun;
  written: boolean;
}

/** One agent Write through resident mode: PreToolUse; the tool writes unless stopped; PostToolUse. */
const write = (setup: ResidentSetup, repo: Repo, content: string, toolUseId: string, token?: string | null): Write => {
  const payload = writePayload({ file: repo.path('a.txt'), content, cwd: repo.dir, toolUseId });
  const opts = { cwd: repo.dir, env: repo.env, token };
  const pre = callResident(setup, JSON.stringify(payload), opts);
  if (pre.code === 2 || /"permissionDecision":"(deny|ask)"/.test(pre.stdout)) return { pre, written: false };
  writeFileSync(repo.path('a.txt'), content);
  const post = callResident(setup, JSON.stringify({ ...payload, hook_event_name: 'PostToolUse' }), opts);
  return { pre, post, written: true };
};

/** How many of fettle's changes record this tool call. */
const recordsOf = (repo: Repo, toolUseId: string): number =>
  repo
    .git('for-each-ref', '--format=%(trailers:key=Fettle-Tool-Use,valueonly)', 'refs/fettle/', 'refs/fettle-discarded/')
    .split('\n')
    .filter((v) => v.trim() === toolUseId).length;

const changes = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle/', 'refs/fettle-discarded/')
    .split('\n')
    .filter((r) => r && !r.includes('/sessions/'));

/** Recorded once: written, and exactly one change names the call. */
const recordedOnce = (repo: Repo, w: Write, toolUseId: string, content: string): void => {
  assert.equal(w.pre.code, 0, show(w.pre));
  assert.ok(w.written, show(w.pre));
  assert.equal(w.post?.code, 0, show(w.post));
  assert.match(w.post?.stdout ?? '', /fettle recorded a\.txt/, show(w.post));
  assert.equal(recordsOf(repo, toolUseId), 1, `one change records ${toolUseId}`);
  assert.equal(repo.read('a.txt').toString(), content);
};

const blocked = (repo: Repo, w: Write, reason: RegExp, before: string): void => {
  assert.equal(w.pre.code, 2, show(w.pre));
  assert.equal(w.written, false);
  assert.match(w.pre.stderr, reason, show(w.pre));
  assert.equal(repo.read('a.txt').toString(), before, 'nothing was written');
};

const content = (n: number) => lines(30).replace('line 3\n', `line 3 edit ${n}\n`);
const logOf = (setup: ResidentSetup): string => readFileSync(join(setup.state, 'log'), 'utf8');
const fettleCli = (setup: ResidentSetup, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [setup.cli, ...args], {
    cwd: setup.home,
    env: { ...setup.env, ...env },
    encoding: 'utf8',
  });

/** How many calls the running server has answered. */
const served = (setup: ResidentSetup): number =>
  JSON.parse(fettleCli(setup, ['serve', '--status', '--json']).stdout).running?.served ?? -1;

/**
 * The settings as an install of a fettle before peer authentication wrote them: no peer header, and guards
 * that leave a call to the server only when the session has the token.
 */
const asOlderInstall = (setup: ResidentSetup): void => {
  type Handler = { headers?: Record<string, string>; command?: string };
  const settings = JSON.parse(readFileSync(setup.settings, 'utf8')) as {
    hooks: Record<string, { hooks: Handler[] }[]>;
  };
  for (const h of Object.values(settings.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks))) {
    delete h.headers?.['X-Fettle-Peer-Auth'];
    if (h.command) h.command = h.command.replaceAll('[ "$a" = peer ]', 'false');
  }
  const text = JSON.stringify(settings, null, 2);
  assert.ok(!text.includes('peer'), text);
  writeFileSync(setup.settings, text);
};

test('the server killed (SIGKILL) mid-session: the next write is blocked with a reason and the server started again; the retry is recorded once', async () => {
  const setup = setUpResident();
  const repo = makeRepo({ 'a.txt': lines(30) });
  recordedOnce(repo, write(setup, repo, content(1), 'toolu_k1'), 'toolu_k1', content(1));
  const first = setup.pid();
  process.kill(first, 'SIGKILL');
  await waitFor('the server to die', () => !alive(first));
  const w2 = write(setup, repo, content(2), 'toolu_k2');
  blocked(
    repo,
    w2,
    /resident hook server was not running; nothing was written\. It has been started again .*make this write again/,
    content(1),
  );
  assert.equal(recordsOf(repo, 'toolu_k2'), 0);
  assert.notEqual(setup.pid(), first);
  assert.ok(alive(setup.pid()), 'a new server runs');
  recordedOnce(repo, write(setup, repo, content(2), 'toolu_k3'), 'toolu_k3', content(2));
});

test('the server killed while recording: that write is blocked, none is lost or doubled after', async () => {
  // The first server (started by install) dies at the failpoint; the guard starts the next one in the
  // session's environment, which has none.
  const setup = setUpResident({ FETTLE_FAILPOINTS: 'record.ref-written=kill' });
  const repo = makeRepo({ 'a.txt': lines(30) });
  const first = setup.pid();
  const w1 = write(setup, repo, content(1), 'toolu_m1');
  blocked(repo, w1, /onFailure is "block"/, lines(30));
  await waitFor('the server to die', () => !alive(first));
  assert.ok(recordsOf(repo, 'toolu_m1') <= 1, 'at most the record the killed server made before the write');
  const w2 = write(setup, repo, content(1), 'toolu_m2');
  blocked(repo, w2, /was not running; nothing was written/, lines(30));
  recordedOnce(repo, write(setup, repo, content(1), 'toolu_m3'), 'toolu_m3', content(1));
});

test('the server killed right after answering a superseding proposal: both proposals stay pending, none is lost', async () => {
  // The discard of the older proposal runs after the answer (record/stage.ts supersedeAfter); the kill comes first.
  const setup = setUpResident({ FETTLE_FAILPOINTS: 'stage.superseding=kill' });
  const repo = makeRepo({ 'a.txt': lines(40) });
  const server = setup.pid();
  const stagedId = (w: Write) => /Staged change ([0-9a-z]{8})/.exec(w.pre.stdout)?.[1] as string;
  const one = write(setup, repo, lines(40, 'large'), 'toolu_p1');
  const two = write(setup, repo, lines(40, 'again'), 'toolu_p2');
  const [older, newer] = [stagedId(one), stagedId(two)];
  assert.ok(older && newer && older !== newer && !one.written && !two.written, show(two.pre));
  assert.match(two.pre.stdout, new RegExp(`It replaces staged change ${older}`));
  await waitFor('the server to die', () => !alive(server));
  assert.deepEqual(
    statusJson(repo)
      .pending.map((c) => c.id)
      .sort(),
    [older, newer].sort(),
  );
  assert.equal(refOid(repo, `refs/fettle-discarded/${older}`), null);
  ok(fettle(repo, ['confirm', newer]));
  assert.equal(repo.read('a.txt').toString(), lines(40, 'again'));
  ok(fettle(repo, ['discard', older]));
  assert.deepEqual(statusJson(repo).pending, []);
});

test('the installed fettle replaced by another version: calls go to it at once, and a server of it takes over', async () => {
  const dist = tempDir('fettle-dist-');
  cpSync(join(CLI, '..'), dist, { recursive: true });
  const setup = setUpResident({}, join(dist, 'cli.js'));
  const repo = makeRepo({ 'a.txt': lines(30) });
  recordedOnce(repo, write(setup, repo, content(1), 'toolu_v1'), 'toolu_v1', content(1));
  const old = setup.pid();
  const build = (): unknown => JSON.parse(fettleCli(setup, ['serve', '--status', '--json']).stdout).running?.build;
  const oldBuild = build();
  for (const f of ['hook.js', 'serve.js']) appendFileSync(join(dist, f), '\n// another version\n');
  recordedOnce(repo, write(setup, repo, content(2), 'toolu_v2'), 'toolu_v2', content(2));
  assert.match(logOf(setup), /the installed fettle changed: calls go to it/);
  await waitFor('the new server to take over', () => setup.pid() !== old && !alive(old));
  assert.match(logOf(setup), /handed over to the new server/);
  assert.notEqual(build(), oldBuild, 'the new server runs the new bytes');
  recordedOnce(repo, write(setup, repo, content(3), 'toolu_v3'), 'toolu_v3', content(3));
  assert.equal(changes(repo).length, 3, 'three writes, three changes');
});

test('the token file damaged: the running server keeps serving; restarted, writes are blocked with the fix; reset, the old token is refused where the token is the check', async () => {
  const setup = setUpResident();
  asOlderInstall(setup);
  const repo = makeRepo({ 'a.txt': lines(30) });
  const tokenFile = join(setup.state, 'token');
  recordedOnce(repo, write(setup, repo, content(1), 'toolu_t1'), 'toolu_t1', content(1));
  writeFileSync(tokenFile, 'not a token\n');
  recordedOnce(repo, write(setup, repo, content(2), 'toolu_t2'), 'toolu_t2', content(2));
  const first = setup.pid();
  process.kill(first, 'SIGKILL');
  await waitFor('the server to die', () => !alive(first));
  const w3 = write(setup, repo, content(3), 'toolu_t3');
  blocked(
    repo,
    w3,
    /could not be started .*token file .*does not hold a token.*fettle serve --reset-token/s,
    content(2),
  );
  assert.equal(recordsOf(repo, 'toolu_t3'), 0);
  const reset = fettleCli(setup, ['serve', '--reset-token']);
  assert.equal(reset.status, 0, reset.stderr);
  const fresh = readFileSync(tokenFile, 'utf8').trim();
  // The session still sends the token it was started with.
  blocked(repo, write(setup, repo, content(3), 'toolu_t4'), /was not running; nothing was written/, content(2));
  const w5 = write(setup, repo, content(3), 'toolu_t5');
  blocked(repo, w5, /FETTLE_SERVE_TOKEN is not the server's token .*Nothing was written/, content(2));
  assert.equal(recordsOf(repo, 'toolu_t5'), 0);
  recordedOnce(repo, write(setup, repo, content(3), 'toolu_t6', fresh), 'toolu_t6', content(3));
});

test('a session without the token, where the server checks its peer: the server records each call once; so with a stale token', async (t) => {
  if (process.platform !== 'linux') return t.skip('the peer check reads /proc/net/tcp (Linux)');
  const setup = setUpResident();
  const repo = makeRepo({ 'a.txt': lines(30) });
  const before = served(setup);
  recordedOnce(repo, write(setup, repo, content(1), 'toolu_p1', null), 'toolu_p1', content(1));
  assert.equal(served(setup) - before, 2, 'the server answered PreToolUse and PostToolUse');
  const stale = '0'.repeat(64);
  recordedOnce(repo, write(setup, repo, content(2), 'toolu_p2', stale), 'toolu_p2', content(2));
  assert.equal(served(setup) - before, 4);
  assert.match(logOf(setup), /started: pid \d+, port \d+, build \w+, auth peer/);
  assert.doesNotMatch(logOf(setup), /refused/);
  assert.equal(JSON.parse(fettleCli(setup, ['serve', '--status', '--json']).stdout).auth, 'peer');
});

test('settings of an older install: a session without the token is left to the command hook, which records each call once; a wrong token is blocked', async () => {
  const setup = setUpResident();
  asOlderInstall(setup);
  const repo = makeRepo({ 'a.txt': lines(30) });
  const w = write(setup, repo, content(1), 'toolu_n1', null);
  assert.equal(w.pre.code, 0, show(w.pre));
  assert.equal(w.pre.stdout, '{}', 'no decision: the write goes ahead');
  assert.ok(w.written);
  assert.equal(recordsOf(repo, 'toolu_n1'), 1, 'the PreToolUse command hook recorded the previous bytes');
  // PostToolUse's command hook runs in the background, as in command mode.
  const kind = () => repo.git('log', '-1', '--format=%(trailers:key=Fettle-Kind,valueonly)', changes(repo)[0] ?? '');
  await waitFor('the background PostToolUse to record what landed', () => kind().trim() === 'after');
  assert.equal(recordsOf(repo, 'toolu_n1'), 1);
  assert.match(logOf(setup), /refused: PreToolUse without a token \(the command hook records it\)/);
  assert.match(logOf(setup), /refused: PostToolUse without a token/);
  const wrong = write(setup, repo, content(2), 'toolu_n2', '0'.repeat(64));
  blocked(repo, wrong, /FETTLE_SERVE_TOKEN is not the server's token .*Nothing was written/, content(1));
  assert.equal(recordsOf(repo, 'toolu_n2'), 0);
});

/** A raw request to the server, as anything on this machine could send it. */
const raw = (
  port: number,
  o: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: o.method ?? 'POST',
        path: o.path ?? '/fettle/hook/PreToolUse',
        headers: o.headers,
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body ?? '');
  });

/** What a refused request must leave untouched: the file, fettle's refs, links and packs. */
const untouched = (repo: Repo) => {
  const packs = () => readdirSync(join(repo.dir, '.git', 'objects', 'pack')).sort();
  const before = { packs: packs(), refs: changes(repo) };
  return () => {
    assert.equal(repo.read('a.txt').toString(), lines(30), 'the file');
    assert.deepEqual(changes(repo), before.refs, 'no change recorded or staged');
    assert.deepEqual(packs(), before.packs, 'no object written');
    assert.equal(existsSync(join(repo.dir, '.git', 'fettle', 'tool-use')), false, 'no tool-use link');
  };
};

test('refused and logged, nothing read or written: no token, a wrong token, a browser, a rebound host, another method', async () => {
  const setup = setUpResident();
  const port = JSON.parse(readFileSync(join(setup.state, 'config.json'), 'utf8')).port as number;
  const repo = makeRepo({ 'a.txt': lines(30) });
  const check = untouched(repo);
  // A rewrite fettle would stage: its answer would carry the file's lines.
  const body = JSON.stringify(writePayload({ file: repo.path('a.txt'), content: lines(30, 'X'), cwd: repo.dir }));
  const json = { 'content-type': 'application/json', host: `127.0.0.1:${port}` };
  const auth = { authorization: `Bearer ${setup.token}` };
  // [label, request, status, body, log line]
  const cases: [string, Parameters<typeof raw>[1], number, RegExp, RegExp][] = [
    ['no token', { headers: json, body }, 200, /^\{\}$/, /refused: PreToolUse without a token/],
    [
      'a wrong token',
      { headers: { ...json, authorization: `Bearer ${'0'.repeat(64)}` }, body },
      200,
      /"decision":"block"/,
      /refused: a wrong token/,
    ],
    [
      'a browser page (Origin)',
      { headers: { ...json, ...auth, origin: 'http://evil.example' }, body },
      403,
      /^\{\}$/,
      /refused: a browser's request \(Origin http:\/\/evil\.example\)/,
    ],
    [
      'DNS rebinding (Host)',
      { headers: { ...json, ...auth, host: `evil.example:${port}` }, body },
      403,
      /^\{\}$/,
      /refused: Host evil\.example/,
    ],
    [
      'a form post',
      { headers: { ...auth, host: json.host, 'content-type': 'text/plain' }, body },
      415,
      /^\{\}$/,
      /refused: content type text\/plain/,
    ],
    ['GET', { method: 'GET', headers: { ...json, ...auth } }, 405, /^\{\}$/, /refused: method GET/],
  ];
  for (const [label, req, status, answer, logged] of cases) {
    const r = await raw(port, req);
    assert.equal(r.status, status, `${label}: ${r.body}`);
    assert.match(r.body, answer, label);
    assert.doesNotMatch(r.body, /X 1/, `${label}: nothing of the file in the answer`);
    assert.match(logOf(setup), logged, label);
    check();
  }
});

test('where the server checks its peer, a request of this user without a token is answered (a real HTTP request)', async (t) => {
  if (process.platform !== 'linux') return t.skip('the peer check reads /proc/net/tcp (Linux)');
  const setup = setUpResident();
  const port = JSON.parse(readFileSync(join(setup.state, 'config.json'), 'utf8')).port as number;
  const repo = makeRepo({ 'a.txt': lines(30) });
  const body = JSON.stringify(writePayload({ file: repo.path('a.txt'), content: lines(30, 'X'), cwd: repo.dir }));
  const headers = { 'content-type': 'application/json', host: `127.0.0.1:${port}`, 'x-fettle-peer-auth': '1' };
  const r = await raw(port, { headers, body });
  assert.equal(r.status, 200, r.body);
  assert.match(r.body, /fettle held this write for review/);
  assert.equal(changes(repo).length, 1, 'the rewrite is staged');
  assert.equal(repo.read('a.txt').toString(), lines(30));
});

test('a request from another local user is refused and logged, with the token or without', async (t) => {
  const setpriv = spawnSync('sh', ['-c', 'command -v setpriv']).stdout.toString().trim();
  if (process.getuid?.() !== 0 || !setpriv || process.platform !== 'linux')
    return t.skip('needs root, setpriv and Linux to act as another user (the peer check reads /proc/net/tcp)');
  const setup = setUpResident();
  const port = JSON.parse(readFileSync(join(setup.state, 'config.json'), 'utf8')).port as number;
  const repo = makeRepo({ 'a.txt': lines(30) });
  const check = untouched(repo);
  const body = JSON.stringify(writePayload({ file: repo.path('a.txt'), content: lines(30, 'X'), cwd: repo.dir }));
  const script = `const r = require('http').request({host:'127.0.0.1',port:${port},method:'POST',path:'/fettle/hook/PreToolUse',headers:JSON.parse(process.argv[2])}, (res) => { let b=''; res.on('data', c => b += c); res.on('end', () => console.log(res.statusCode, b)); }); r.end(process.argv[1]);`;
  const json = { 'content-type': 'application/json' };
  for (const headers of [
    { ...json, authorization: `Bearer ${setup.token}` },
    { ...json, 'x-fettle-peer-auth': '1' },
  ]) {
    const argv = [process.execPath, '-e', script, body, JSON.stringify(headers)];
    const r = spawnSync(setpriv, ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv], {
      cwd: '/',
      encoding: 'utf8',
    });
    assert.equal(r.stdout.trim(), '403 {}', r.stderr);
  }
  assert.equal(logOf(setup).match(/refused: a connection from user 65534, not this server's user/g)?.length, 2);
  check();
});

test('serve --status, --stop; an idle server exits, unless a live Claude Code session registered with it', async () => {
  // Idle for 5 s, not 1: on a loaded machine the status command alone can take longer than a second, and the
  // server must still be there when it asks.
  const setup = setUpResident({ FETTLE_SERVE_IDLE: '5' });
  const status = JSON.parse(fettleCli(setup, ['serve', '--status', '--json']).stdout);
  assert.equal(status.running?.pid, setup.pid());
  assert.equal(status.token, 'ok');
  const first = setup.pid();
  await waitFor('the idle server to exit', () => !alive(first), 30_000);
  assert.match(logOf(setup), /stopped: idle/);
  // A session whose Claude Code lives keeps the server.
  const client = spawnSync('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).stdout.trim();
  const start = spawnSync(process.execPath, [setup.cli, 'serve', '--session-start'], {
    cwd: setup.home,
    env: { ...setup.env, CLAUDE_PID: client, CLAUDE_PROJECT_DIR: setup.home },
    input: JSON.stringify({ session_id: 'session-idle', cwd: setup.home, hook_event_name: 'SessionStart' }),
    encoding: 'utf8',
  });
  assert.equal(start.status, 0, start.stderr);
  assert.equal(start.stdout, '', 'nothing for the session context');
  const second = setup.pid();
  await sleep(7500); // past the idle time
  assert.ok(alive(second), 'kept while its session lives');
  process.kill(Number(client), 'SIGKILL');
  await waitFor('the server to exit once its session is gone', () => !alive(second), 30_000);
  const again = fettleCli(setup, ['serve', '--start']);
  assert.match(again.stdout, /runs on 127\.0\.0\.1:\d+ \(pid \d+\)/);
  const stop = fettleCli(setup, ['serve', '--stop']);
  assert.match(stop.stdout, /Stopped fettle's resident server/);
  assert.equal(existsSync(join(setup.state, 'pid')), false);
});

test('resident SessionStart after /clear or a compaction forgets what the session read; a resumed session keeps it', () => {
  const setup = setUpResident();
  const dataDir = dataDirFrom(setup.env);
  mkdirSync(join(dataDir, 'reads'), { recursive: true });
  const meter = { reads: 1, saved: 0, plainBytes: 1, sentBytes: 1 };
  // [source, whether the session's baselines are kept]
  const cases: [string, boolean][] = [
    ['resume', true],
    ['startup', true],
    ['clear', false],
    ['compact', false],
  ];
  for (const [source, kept] of cases) {
    const session = `session-${source}`;
    writeFileSync(
      join(dataDir, 'reads', `${session}.json`),
      JSON.stringify({ v: 1, files: { '/a': { blob: 'b', at: 1 } }, meter }),
    );
    const start = spawnSync(process.execPath, [setup.cli, 'serve', '--session-start'], {
      cwd: setup.home,
      env: setup.env,
      input: JSON.stringify({ session_id: session, cwd: setup.home, hook_event_name: 'SessionStart', source }),
      encoding: 'utf8',
    });
    assert.equal(start.status, 0, start.stderr);
    const files = JSON.parse(readFileSync(join(dataDir, 'reads', `${session}.json`), 'utf8')).files;
    assert.equal(Object.keys(files).length, kept ? 1 : 0, source);
  }
});
