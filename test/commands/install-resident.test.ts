// `fettle install --resident` end to end: what lands in the settings file (an HTTP hook and a guard per event,
// the token only as a variable), the files only its user may read, and the way back to command hooks.
// Tier: slow, installs into a fresh HOME and settings for each case (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FORWARDED_ENV, PEER_AUTH_HEADER, TOKEN_VAR } from '../../src/core/hook-server';
import { RESIDENT_EVENTS } from '../../src/core/resident-settings';
import { STATUS_MESSAGE } from '../../src/core/settings';
import { CLI, runCli } from '../helpers/cli';
import { baseEnv, tempDir } from '../helpers/repo';

interface Handler {
  type: string;
  url?: string;
  command?: string;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  onFailure?: string;
  async?: boolean;
  statusMessage?: string;
}
type Settings = { hooks: Record<string, { matcher?: string; hooks: Handler[] }[]> };

const setup = () => {
  const home = tempDir();
  const cwd = join(home, 'work');
  mkdirSync(cwd);
  const env = baseEnv(home);
  const run = (...args: string[]) => runCli(args, { cwd, env });
  const stop = () => spawnSync(process.execPath, [CLI, 'serve', '--stop'], { cwd, env });
  process.once('exit', stop);
  const state = join(home, '.local', 'state', 'fettle', 'serve');
  const settings = () => JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as Settings;
  return { home, cwd, env, run, stop, state, settings };
};

test('install --resident: an HTTP hook and a guard on every event; the token only as a variable', () => {
  const s = setup();
  const r = s.run('install', '--resident');
  assert.equal(r.code, 0, r.stderr);
  const token = readFileSync(join(s.state, 'token'), 'utf8').trim();
  assert.match(
    r.stdout,
    /Installed fettle's resident hooks in .*settings\.json: a server on 127\.0\.0\.1:\d+ answers them/,
  );
  // Where the server can tell who connects (Linux), nothing is left to do; elsewhere, the token's line.
  if (process.platform === 'linux') {
    assert.match(
      r.stdout,
      /Authentication: by the connection's owner .*; Claude Code needs no token\. The next Claude Code session uses the server\./,
    );
    assert.doesNotMatch(r.stdout, /shell profile/);
  } else assert.match(r.stdout, new RegExp(`export ${TOKEN_VAR}="\\$\\(cat .*token\\)"`));
  const text = readFileSync(join(s.home, '.claude', 'settings.json'), 'utf8');
  assert.ok(!text.includes(token), 'the token is never written into a settings file');
  const hooks = s.settings().hooks;
  assert.deepEqual(Object.keys(hooks), [...RESIDENT_EVENTS]);
  for (const event of RESIDENT_EVENTS) {
    const handlers = hooks[event]?.flatMap((g) => g.hooks) ?? [];
    assert.ok(
      handlers.every((h) => h.statusMessage === STATUS_MESSAGE),
      event,
    );
    if (event === 'SessionStart') {
      assert.match(handlers[0]?.command ?? '', /serve --session-start$/);
      continue;
    }
    const [http, guard] = handlers;
    assert.match(http?.url ?? '', new RegExp(`^http://127\\.0\\.0\\.1:\\d+/fettle/hook/${event}$`));
    assert.equal(http?.headers?.Authorization, `Bearer \${${TOKEN_VAR}}`);
    assert.equal(http?.headers?.[PEER_AUTH_HEADER], '1', 'its guard leaves a call without a token to a peer server');
    assert.deepEqual(http?.allowedEnvVars, [TOKEN_VAR, ...FORWARDED_ENV]);
    assert.equal(http?.onFailure, event === 'PreToolUse' ? 'block' : 'continue', event);
    assert.equal(guard?.type, 'command');
    assert.match(guard?.command ?? '', /kill -0 "\$p"/);
    assert.equal(guard?.async === true, event === 'PostToolUse' || event === 'PostToolUseFailure', event);
  }
  for (const [path, mode] of [
    [s.state, 0o700],
    [join(s.state, 'token'), 0o600],
  ] as const)
    assert.equal(statSync(path).mode & 0o777, mode, path);
  assert.match(s.run('serve', '--status').stdout, /runs on 127\.0\.0\.1/);
  s.stop();
});

test('install --resident again keeps the port and token; plain install goes back to command hooks', () => {
  const s = setup();
  s.run('install', '--resident');
  const port = readFileSync(join(s.state, 'config.json'), 'utf8');
  const token = readFileSync(join(s.state, 'token'), 'utf8');
  const again = s.run('install', '--resident');
  assert.match(again.stdout, /already installed .* nothing changed/);
  assert.equal(readFileSync(join(s.state, 'config.json'), 'utf8'), port);
  assert.equal(readFileSync(join(s.state, 'token'), 'utf8'), token);
  assert.equal(s.run('install').code, 0);
  const handlers = Object.values(s.settings().hooks).flatMap((groups) => groups.flatMap((g) => g.hooks));
  assert.ok(
    handlers.every((h) => h.type === 'command' && /cli\.js'? hook$/.test(h.command ?? '')),
    'command hooks only',
  );
  assert.equal(s.settings().hooks.SessionStart, undefined);
  s.stop();
});

/** Each event's matchers, in order: what the client runs fettle on. */
const matchers = (settings: Settings): Record<string, (string | undefined)[]> =>
  Object.fromEntries(Object.entries(settings.hooks).map(([event, groups]) => [event, groups.map((g) => g.matcher)]));

for (const flags of [[], ['--no-bash'], ['--read'], ['--no-bash', '--read']])
  test(`install --resident ${flags.join(' ')}: the same events and tools as the command install, and SessionStart`, () => {
    const s = setup();
    assert.equal(s.run('install', ...flags).code, 0);
    const command = matchers(s.settings());
    assert.equal(s.run('install', '--resident', ...flags).code, 0);
    const resident = matchers(s.settings());
    assert.equal(resident.PreToolUse?.includes('Bash'), !flags.includes('--no-bash'));
    assert.deepEqual(resident, { ...command, SessionStart: [undefined] });
    s.stop();
  });

test('install --resident refuses another agent: only Claude Code has HTTP hooks', () => {
  const s = setup();
  const r = s.run('install', '--resident', '--agent', 'codex');
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stderr, /--resident answers Claude Code's HTTP hooks; Codex CLI has no such hooks/);
  assert.match(r.stderr, /install --agent codex` without --resident/);
  assert.equal(s.run('install', '--resident', '--agent', 'claude').code, 0);
  s.stop();
});

test('install --resident refuses the project scope, which a team shares', () => {
  const s = setup();
  const r = s.run('install', '--resident', '--scope', 'project');
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stderr, /do not belong in the project's shared settings/);
});

test('fettle doctor reports the resident server, what it refused, how it authenticates, and whether this shell hands Claude Code its token', () => {
  const s = setup();
  s.run('install', '--resident');
  const token = readFileSync(join(s.state, 'token'), 'utf8').trim();
  const doctor = (env: Record<string, string> = {}) =>
    runCli(['doctor'], { cwd: s.cwd, env: { ...s.env, ...env } }).stdout;
  assert.match(
    doctor(),
    /^ok {4}resident +server runs on 127\.0\.0\.1:\d+ \(pid \d+, build \w+\): 0 calls served, 0 refused$/m,
  );
  if (process.platform === 'linux') {
    assert.match(doctor(), /^ok {4}resident +authentication by the connection's owner .*Claude Code needs no token$/m);
    assert.doesNotMatch(doctor(), /^warn {2}resident/m);
    assert.match(s.run('serve', '--status').stdout, /^Authentication: by the connection's owner/m);
    // A server of an older fettle writes no second line in its pid file: the token is its check.
    const pid = join(s.state, 'pid');
    writeFileSync(pid, `${readFileSync(pid, 'utf8').split('\n')[0]}\n`);
  }
  assert.match(
    doctor(),
    /^warn {2}resident +authentication by the token, but this shell does not export the server token/m,
  );
  assert.match(
    doctor({ [TOKEN_VAR]: token }),
    /^ok {4}resident +authentication by the token, which this shell exports$/m,
  );
  assert.match(doctor({ [TOKEN_VAR]: '0'.repeat(64) }), /exports another token than the server's/);
  assert.match(s.run('serve', '--status').stdout, /^Authentication: by the token\. This shell does not export it/m);
  s.stop();
  assert.match(
    doctor({ [TOKEN_VAR]: token }),
    /^ok {4}resident +server not running .* the first hook call of a session starts it$/m,
  );
});
