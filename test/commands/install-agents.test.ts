// `fettle install --agent` and `uninstall --agent` for Codex CLI, Gemini CLI and Cursor: the file each agent reads,
// edited as Claude Code's settings are (only fettle's part changes; uninstall gives back the very bytes), and
// `fettle doctor` saying whether the agent would run what was installed.
// Tier: slow, installs into a fresh HOME and settings for each case (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { codexHookKeys } from '../../src/setup/agent-doctor';
import { literal, runCli, SELF, withFettleOnPath } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

const fileOf = (repo: Repo, agent: string, scope = 'user'): string =>
  scope === 'project'
    ? repo.path(`.${agent}/${agent === 'gemini' ? 'settings' : 'hooks'}.json`)
    : join(repo.home, `.${agent}`, agent === 'gemini' ? 'settings.json' : 'hooks.json');

const cli = (repo: Repo, args: string[], env: Record<string, string> = repo.env) =>
  runCli(args, { cwd: repo.dir, env });

// [agent, events fettle registers, the shape of a handler]
const AGENTS: [string, string[], (command: string) => unknown][] = [
  [
    'codex',
    ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'],
    (command) => ({ type: 'command', command, timeout: 60, statusMessage: 'fettle: keeping the previous version' }),
  ],
  [
    'gemini',
    ['BeforeTool', 'AfterTool', 'BeforeAgent', 'AfterAgent'],
    (command) => ({
      type: 'command',
      name: 'fettle',
      command,
      timeout: 60000,
      description: 'fettle: keeping the previous version',
    }),
  ],
  ['cursor', ['afterFileEdit', 'beforeSubmitPrompt'], (command) => ({ command })],
];

for (const [agent, events, handler] of AGENTS) {
  test(`--agent ${agent}: a new file holds fettle's hooks, and uninstall takes the file (and its folder) away again`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = cli(repo, ['install', '--agent', agent, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    const command = `${SELF} hook --agent ${agent}`;
    assert.deepEqual([out.agent, out.path, out.result, out.command], [agent, fileOf(repo, agent), 'changed', command]);
    const value = JSON.parse(readFileSync(fileOf(repo, agent), 'utf8'));
    assert.deepEqual(Object.keys(value.hooks), events);
    const first =
      agent === 'cursor' ? value.hooks[events[0] as string][0] : value.hooks[events[0] as string][0].hooks[0];
    assert.deepEqual(first, handler(command));
    assert.equal(cli(repo, ['install', '--agent', agent, '--json']).stdout.includes('"unchanged"'), true);
    const u = cli(repo, ['uninstall', '--agent', agent]);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(existsSync(fileOf(repo, agent)), false);
    assert.equal(existsSync(dirname(fileOf(repo, agent))), false);
  });

  test(`--agent ${agent}: in a file of the user's, only fettle's part changes, and uninstall gives back the very bytes`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const path = fileOf(repo, agent);
    mkdirSync(dirname(path), { recursive: true });
    const theirs =
      agent === 'cursor'
        ? '{\r\n\t// my hooks\r\n\t"version": 1,\r\n\t"hooks": {\r\n\t\t"stop": [{ "command": "./notify.sh" }]\r\n\t}\r\n}\r\n'
        : `{\r\n\t// mine\r\n\t"theme": "dark",\r\n\t"hooks": {\r\n\t\t"${events[0]}": [{ "hooks": [{ "type": "command", "command": "./audit.sh" }] }]\r\n\t}\r\n}\r\n`;
    writeFileSync(path, theirs);
    assert.equal(cli(repo, ['install', '--agent', agent]).code, 0);
    const installed = readFileSync(path, 'utf8');
    assert.match(installed, /\/\/ mine|\/\/ my hooks/);
    assert.match(installed, /audit\.sh|notify\.sh/);
    assert.match(installed, new RegExp(`hook --agent ${agent}`));
    assert.ok(!/\n(?!\r)/.test(installed.replace(/\r\n/g, '')), 'line endings stay CRLF');
    assert.equal(cli(repo, ['uninstall', '--agent', agent]).code, 0);
    assert.equal(readFileSync(path, 'utf8'), theirs);
  });
}

test('--agent codex --scope local: Codex has no local scope; nothing written, exit 2', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = cli(repo, ['install', '--agent', 'codex', '--scope', 'local']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^fettle: Codex CLI has no local scope; nothing was written\.\nUse `--scope user` or `--scope project` with --agent codex\.\n$/,
  );
  assert.equal(existsSync(repo.path('.codex')), false);
});

test('--scope project names no path of this machine: refused unless fettle is on PATH, then `fettle hook --agent <name>`', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const refused = cli(repo, ['install', '--agent', 'codex', '--scope', 'project']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /everyone who checks out the project shares, and this fettle is not on PATH/);
  // The command on PATH is spelled as it will be written, not as this fettle runs.
  assert.match(refused.stderr, /the hook then runs 'fettle hook --agent codex'\)/);
  const onPath = withFettleOnPath(repo.env, repo.home);
  assert.equal(cli(repo, ['install', '--agent', 'codex', '--scope', 'project'], onPath).code, 0);
  const value = JSON.parse(readFileSync(repo.path('.codex/hooks.json'), 'utf8'));
  assert.equal(value.hooks.PreToolUse[0].hooks[0].command, 'fettle hook --agent codex');
});

const doctorOf = (repo: Repo, name: string) =>
  JSON.parse(cli(repo, ['doctor', '--json']).stdout).checks.filter((c: { name: string }) => c.name === name);

test("doctor, Codex: fail while Codex would skip fettle's untrusted hooks, ok once each is trusted by its hash", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.deepEqual(doctorOf(repo, 'codex'), [], 'not installed: no codex line');
  assert.equal(cli(repo, ['install', '--agent', 'codex']).code, 0);
  const [untrusted] = doctorOf(repo, 'codex');
  assert.equal(untrusted.status, 'fail');
  assert.match(untrusted.detail, /6 of fettle's 6 hooks in .* are not trusted/);
  assert.match(untrusted.fix, /run \/hooks and trust fettle's hooks/);
  const hooks = fileOf(repo, 'codex');
  const keys = codexHookKeys(hooks, JSON.parse(readFileSync(hooks, 'utf8')));
  const config = join(repo.home, '.codex', 'config.toml');
  writeFileSync(config, keys.map((k) => `[hooks.state."${k.key}"]\ntrusted_hash = "${k.hash}"\n`).join('\n'));
  assert.deepEqual(
    doctorOf(repo, 'codex').map((c: { status: string }) => c.status),
    ['ok'],
  );
  writeFileSync(config, `${readFileSync(config, 'utf8')}\n[features]\nhooks = false\n`);
  const [off] = doctorOf(repo, 'codex');
  assert.deepEqual([off.status, /\[features\] hooks = false/.test(off.detail)], ['fail', true]);
});

// [agent, the tool hooks fettle registers: event and matcher]
const TOOL_HOOKS: [string, string[]][] = [
  ['codex', ['PreToolUse ^apply_patch$', 'PreToolUse ^Bash$', 'PostToolUse ^apply_patch$', 'PostToolUse ^Bash$']],
  [
    'gemini',
    ['BeforeTool ^(write_file|replace|run_shell_command)$', 'AfterTool ^(write_file|replace|run_shell_command)$'],
  ],
];
for (const [agent, hooks] of TOOL_HOOKS)
  test(`--agent ${agent}: the file tools and the shell have fettle's hooks before and after`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    assert.equal(cli(repo, ['install', '--agent', agent]).code, 0);
    const value = JSON.parse(readFileSync(fileOf(repo, agent), 'utf8'));
    const groups = Object.entries(value.hooks as Record<string, { matcher?: string }[]>).flatMap(([event, list]) =>
      list.filter((g) => g.matcher !== undefined).map((g) => `${event} ${g.matcher}`),
    );
    assert.deepEqual(groups, hooks);
  });

/** hooks.json as `fettle install --agent codex` wrote it before Codex's shell was recorded. */
const olderCodexInstall = (command: string) => {
  const group = (matcher?: string) => ({
    ...(matcher ? { matcher } : {}),
    hooks: [{ type: 'command', command, timeout: 60, statusMessage: 'fettle: keeping the previous version' }],
  });
  return {
    hooks: {
      PreToolUse: [group('^apply_patch$')],
      PostToolUse: [group('^apply_patch$')],
      UserPromptSubmit: [group()],
      Stop: [group()],
    },
  };
};

test("doctor, Codex: an install from before the shell's hooks is a warning; installing again adds them and keeps the trusted apply_patch hooks as they were", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const hooks = fileOf(repo, 'codex');
  mkdirSync(dirname(hooks), { recursive: true });
  writeFileSync(hooks, `${JSON.stringify(olderCodexInstall(`${SELF} hook --agent codex`), null, 2)}\n`);
  const [older] = doctorOf(repo, 'codex');
  assert.deepEqual(
    [older.status, older.detail],
    ['warn', `${hooks}: no fettle hook on PreToolUse ^Bash$, PostToolUse ^Bash$`],
  );
  assert.match(older.fix, /^Run `.*install --agent codex --scope user` again\.$/);
  const trusted = codexHookKeys(hooks, JSON.parse(readFileSync(hooks, 'utf8')));
  const config = join(repo.home, '.codex', 'config.toml');
  writeFileSync(config, trusted.map((k) => `[hooks.state."${k.key}"]\ntrusted_hash = "${k.hash}"\n`).join('\n'));
  assert.equal(cli(repo, ['install', '--agent', 'codex']).code, 0);
  assert.equal(codexHookKeys(hooks, JSON.parse(readFileSync(hooks, 'utf8'))).length, 6);
  const [fresh] = doctorOf(repo, 'codex');
  assert.match(fresh.detail, /, and 2 of fettle's 6 hooks in .* are not trusted/);
});

test('doctor, Gemini and Cursor: ok when installed; Gemini hooks turned off in its settings is a failure', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.equal(cli(repo, ['install', '--agent', 'gemini']).code, 0);
  assert.equal(cli(repo, ['install', '--agent', 'cursor']).code, 0);
  assert.equal(doctorOf(repo, 'gemini')[0]?.status, 'ok');
  assert.match(
    doctorOf(repo, 'cursor')[0]?.detail ?? '',
    /recorded after they land, never staged, and its shell commands are not recorded$/,
  );
  const settings = fileOf(repo, 'gemini');
  const value = JSON.parse(readFileSync(settings, 'utf8'));
  writeFileSync(settings, JSON.stringify({ ...value, hooksConfig: { enabled: false } }));
  assert.equal(doctorOf(repo, 'gemini')[0]?.status, 'fail');
});

test("doctor, opencode: the plugin's place and the fettle it runs; a fettle gone is a failure, a plugin another fettle installed is stale, two places run it twice", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const env = { ...repo.env, XDG_CONFIG_HOME: join(repo.home, '.config') };
  const doctor = () =>
    JSON.parse(cli(repo, ['doctor', '--json'], env).stdout).checks.filter(
      (c: { name: string }) => c.name === 'opencode',
    ) as { status: string; detail: string; fix?: string }[];
  assert.deepEqual(doctor(), [], 'not installed: no opencode line');
  assert.equal(cli(repo, ['install', '--agent', 'opencode'], env).code, 0);
  const path = join(repo.home, '.config', 'opencode', 'plugin', 'fettle.js');
  const [ok] = doctor();
  assert.equal(ok?.status, 'ok');
  assert.match(
    ok?.detail ?? '',
    new RegExp(
      `^plugin installed in ${literal(path)} \\(user; runs .*${literal(process.execPath)} .*/dist/cli\\.js'?\\)$`,
    ),
  );
  const installed = readFileSync(path, 'utf8');
  writeFileSync(path, installed.replace('const TOOLS = ', '// an older plugin\nconst TOOLS = '));
  const [stale] = doctor();
  assert.deepEqual([stale?.status, stale?.fix], ['warn', `Run \`${SELF} install --agent opencode\` again.`]);
  assert.match(stale?.detail ?? '', /is not the one this fettle ships: another fettle version installed it/);
  writeFileSync(
    path,
    installed.replace(/^const FETTLE_COMMAND = .*$/m, 'const FETTLE_COMMAND = ["/nowhere/node", "/nowhere/cli.js"];'),
  );
  const [gone] = doctor();
  assert.equal(gone?.status, 'fail');
  assert.equal(
    gone?.detail,
    `${path}: the plugin runs /nowhere/node, /nowhere/cli.js, which does not exist: opencode's writes are not protected`,
  );
  assert.equal(cli(repo, ['install', '--agent', 'opencode'], env).code, 0);
  const project = repo.path('.opencode/plugin/fettle.js');
  mkdirSync(dirname(project), { recursive: true });
  writeFileSync(
    project,
    readFileSync(path, 'utf8').replace(/^const FETTLE_COMMAND = .*$/m, 'const FETTLE_COMMAND = ["fettle"];'),
  );
  const [bare] = doctor();
  assert.equal(bare?.status, 'warn');
  assert.match(bare?.detail ?? '', /the plugin runs whatever fettle is on PATH, and there is none on PATH here/);
  const [twice] = JSON.parse(cli(repo, ['doctor', '--json'], withFettleOnPath(env, repo.home)).stdout).checks.filter(
    (c: { name: string }) => c.name === 'opencode',
  );
  assert.equal(twice?.status, 'warn');
  assert.match(
    twice?.detail ?? '',
    /^plugin installed in 2 places .*: opencode loads both, so every write runs fettle twice$/,
  );
});
