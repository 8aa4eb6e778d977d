// `fettle install` / `fettle uninstall` end to end: the built CLI as a separate process, HOME in a temp dir,
// the settings files checked byte for byte. The plugin hook file is checked against the same constants.
// Tier: slow, installs into a fresh HOME and settings for each case (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { test } from 'node:test';
import { type ParseError, parse as parseJsonc } from 'jsonc-parser';
import { settingsPath } from '../../src/setup/settings-file';
import {
  BASH_MATCHER,
  HOOK_EVENTS,
  INSTALLED_EVENTS,
  isFettleHandler,
  MATCHER,
  READ_MATCHER,
  STATUS_MESSAGE,
  UNMATCHED_EVENTS,
} from '../../src/core/settings';

/**
 * fettle's groups on an event, by matcher: the write tools and Bash (unless --no-bash) on the tool events, Read
 * too on PreToolUse and PostToolUse with --read; Stop, SessionEnd and UserPromptSubmit have no matcher (they are not about a tool).
 */
const matchersOf = (event: string, o: { read?: boolean; bash?: boolean } = {}): (string | undefined)[] =>
  UNMATCHED_EVENTS.some((e) => e === event)
    ? [undefined]
    : [
        MATCHER,
        ...(o.bash === false ? [] : [BASH_MATCHER]),
        ...(o.read && (event === 'PreToolUse' || event === 'PostToolUse') ? [READ_MATCHER] : []),
      ];
import { CLI, literal, runCli, SELF, withFettleOnPath, writePayload, type Run } from '../helpers/cli';
import { baseEnv, makeRepo, tempDir } from '../helpers/repo';

const ROOT = join(__dirname, '..', '..');

interface Handler {
  type: string;
  command: string;
  timeout?: number;
  statusMessage?: string;
}
interface Group {
  matcher?: string;
  hooks: Handler[];
}
type Settings = { hooks?: Record<string, Group[]> } & Record<string, unknown>;

/** A temp HOME and a working directory inside it. */
const setup = () => {
  const home = tempDir();
  const cwd = join(home, 'work');
  mkdirSync(cwd);
  const env = baseEnv(home);
  const user = join(home, '.claude', 'settings.json');
  const run = (...args: string[]): Run => runCli(args, { cwd, env });
  // As after `npm install -g`: `fettle` on PATH is this CLI, so --scope project may write `fettle hook`.
  const onPath = withFettleOnPath(env, join(home, 'global'));
  const runOnPath = (...args: string[]): Run => runCli(args, { cwd, env: onPath });
  return { home, cwd, env, user, run, onPath, runOnPath };
};

const bytes = (path: string): Buffer => readFileSync(path);
const json = (path: string): Settings => JSON.parse(readFileSync(path, 'utf8')) as Settings;
const write = (path: string, text: string): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
const ok = (r: Run, what = 'command'): Run => {
  assert.equal(r.code, 0, `${what} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
};

/** fettle's handlers, per event. */
const fettleHandlers = (s: Settings, event: string): Handler[] =>
  (s.hooks?.[event] ?? []).flatMap((g) =>
    Array.isArray(g.hooks) ? g.hooks.filter((h) => isFettleHandler(h as never)) : [],
  );

/** The words `sh` makes of a command string. */
const shWords = (command: string): string[] => {
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${command}`]).toString('utf8');
  return out.split('\0').slice(0, -1);
};

/** One agent Write as Claude Code runs it, with each hook command string given to sh -c. */
const shWrite = (
  commands: { pre: string; post: string },
  call: { file: string; content: string; cwd: string },
  env: Record<string, string>,
) => {
  const sh = (command: string, event: 'PreToolUse' | 'PostToolUse') =>
    spawnSync('/bin/sh', ['-c', command], {
      cwd: call.cwd,
      env,
      input: JSON.stringify(writePayload({ ...call, event })),
      encoding: 'utf8',
    });
  const pre = sh(commands.pre, 'PreToolUse');
  assert.equal(pre.status, 0, `PreToolUse exited ${pre.status}: ${pre.stderr}`);
  assert.doesNotMatch(pre.stdout, /"deny"/);
  writeFileSync(call.file, call.content);
  const post = sh(commands.post, 'PostToolUse');
  assert.equal(post.status, 0, `PostToolUse exited ${post.status}: ${post.stderr}`);
  return { pre, post };
};

/** The hook command install must write: absolute node, absolute real path of the built CLI, `hook`. */
const expectedWords = (cli = CLI): string[] => [process.execPath, realpathSync(cli), 'hook'];

/**
 * Asserts `path` holds exactly one fettle group per event on the write tools (plus one on Read for PreToolUse and
 * PostToolUse with `read`), each with one handler running `words`; returns the command.
 */
const assertInstalled = (
  path: string,
  words = expectedWords(),
  options: { read?: boolean; bash?: boolean } = {},
): string => {
  const s = json(path);
  const commands = new Set<string>();
  for (const event of INSTALLED_EVENTS) {
    const ours = (s.hooks?.[event] ?? []).filter((g) => g.hooks.some((h) => isFettleHandler(h as never)));
    const matchers = matchersOf(event, options);
    assert.deepEqual(
      ours.map((g) => g.matcher),
      matchers,
      `${event}: fettle's groups`,
    );
    assert.equal(fettleHandlers(s, event).length, matchers.length, `${event}: one fettle handler per group`);
    for (const group of ours) {
      assert.equal(group.hooks.length, 1);
      const handler = group.hooks[0]!;
      assert.equal(handler.type, 'command');
      assert.equal(handler.statusMessage, STATUS_MESSAGE);
      assert.ok(handler.timeout === undefined || (handler.timeout > 0 && handler.timeout <= 600), 'timeout in seconds');
      assert.deepEqual(shWords(handler.command), words, `${event}: the command runs node on the CLI with "hook"`);
      commands.add(handler.command);
    }
  }
  assert.equal(commands.size, 1, 'the same command on every event');
  return [...commands][0]!;
};

// ---------------------------------------------------------------- user scope and the hook command

test('install (default scope user) writes ~/.claude/settings.json with Write hooks on both events', () => {
  const { home, cwd, user, run } = setup();
  const r = ok(run('install'));
  const command = assertInstalled(user);
  const words = shWords(command);
  assert.ok(isAbsolute(words[0]!) && isAbsolute(words[1]!), 'absolute node and CLI paths');
  assert.match(r.stdout, /Installed/);
  assert.ok(r.stdout.includes(user), 'names the file');
  assert.ok(r.stdout.includes(command), 'prints the hook command');
  const text = readFileSync(user, 'utf8');
  assert.ok(text.startsWith('{\n  "hooks": {\n'), '2-space indent');
  assert.ok(text.endsWith('}\n'), 'one trailing newline');
  assert.deepEqual(Object.keys(json(user)), ['hooks']);
  assert.deepEqual(Object.keys(json(user).hooks!), [...INSTALLED_EVENTS]);
  assert.deepEqual(readdirSync(join(home, '.claude')), ['settings.json'], 'no temp file left next to it');
  assert.deepEqual(readdirSync(cwd), [], 'nothing written in the working directory');
});

test("the installed command string, run by sh -c with a Write payload, is fettle's hook (node not on PATH)", () => {
  const { user, run } = setup();
  ok(run('install'));
  const s = json(user);
  const pre = fettleHandlers(s, 'PreToolUse')[0]!.command;
  const post = fettleHandlers(s, 'PostToolUse')[0]!.command;

  // Claude Code runs the string with sh -c; PATH here holds git only, so node must be spelled out.
  const repo = makeRepo({ 'keep.txt': 'keep\n' });
  const bin = join(repo.home, 'bin-git-only');
  mkdirSync(bin);
  symlinkSync(execFileSync('/bin/sh', ['-c', 'command -v git'], { env: repo.env }).toString().trim(), join(bin, 'git'));
  const env = { ...repo.env, PATH: bin };
  const { post: after } = shWrite(
    { pre, post },
    { file: repo.path('new.txt'), content: 'hello\n', cwd: repo.dir },
    env,
  );
  const out = JSON.parse(after.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'PostToolUse');
  assert.match(out.hookSpecificOutput.additionalContext, /fettle recorded new\.txt/);
});

test('a CLI at a path with spaces and quotes installs a quoted command that sh runs', () => {
  const { env, user, run } = setup();
  const dist = join(tempDir(), "it's a dir", 'fettle', 'dist');
  mkdirSync(dist, { recursive: true });
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  const copy = join(dist, 'cli.js');
  const r = spawnSync(process.execPath, [copy, 'install'], { cwd: env.HOME, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const command = assertInstalled(user, expectedWords(copy));
  assert.ok(command.includes("'\\''"), 'the quote in the path is escaped for sh');

  const repo = makeRepo();
  const { post } = shWrite(
    { pre: command, post: command },
    { file: repo.path('a.txt'), content: 'a\n', cwd: repo.dir },
    repo.env,
  );
  assert.match(post.stdout, /fettle recorded a\.txt/);

  // Installing from the real CLI afterwards replaces that handler.
  ok(run('install'));
  assertInstalled(user);
  assert.ok(!readFileSync(user, 'utf8').includes('a dir/fettle/dist/cli.js'), 'the old command is gone');
});

test('install started through a relative path or a symlink writes the absolute real path of the CLI', () => {
  const { home, env, user } = setup();
  const rel = spawnSync(process.execPath, [join('dist', 'cli.js'), 'install'], { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(rel.status, 0, rel.stderr);
  assertInstalled(user);
  const link = join(home, 'bin', 'fettle');
  mkdirSync(join(home, 'bin'));
  symlinkSync(CLI, link);
  const other = join(tempDir(), 'settings.json');
  const viaLink = spawnSync(process.execPath, [link, 'install'], {
    cwd: home,
    env: { ...env, CLAUDE_CONFIG_DIR: join(other, '..') },
    encoding: 'utf8',
  });
  assert.equal(viaLink.status, 0, viaLink.stderr);
  assertInstalled(other);
});

// ---------------------------------------------------------------- where the settings file is

test('--scope project writes <cwd>/.claude/settings.json and leaves the user file alone', () => {
  const { home, cwd, runOnPath } = setup();
  const r = ok(runOnPath('install', '--scope', 'project'));
  const path = join(cwd, '.claude', 'settings.json');
  assertInstalled(path, ['fettle', 'hook']);
  assert.ok(r.stdout.includes(path));
  assert.equal(existsSync(join(home, '.claude')), false);
  assert.deepEqual(readdirSync(join(cwd, '.claude')), ['settings.json']);
});

test('--scope project refuses to write a path of this machine into the shared file, and says what to do', () => {
  const { cwd, run } = setup();
  const r = run('install', '--scope', 'project');
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^fettle: --scope project writes .*settings\.json, which everyone who checks out the project shares/,
  );
  assert.match(r.stderr, new RegExp(`Install for this checkout only with \`${literal(SELF)} install --scope local\``));
  // The hook that a fettle on PATH would install is named as such, not re-spelled as this machine's path.
  assert.match(r.stderr, /\(`npm install -g`; the hook then runs 'fettle hook'\)/);
  assert.equal(existsSync(join(cwd, '.claude')), false, 'nothing written');
});

test('--scope project with fettle on PATH writes `fettle hook`, which sh runs from the project', () => {
  const { cwd, onPath, runOnPath } = setup();
  ok(runOnPath('install', '--scope', 'project'));
  const command = assertInstalled(join(cwd, '.claude', 'settings.json'), ['fettle', 'hook']);
  assert.equal(command, 'fettle hook');
  const repo = makeRepo();
  const { post } = shWrite(
    { pre: command, post: command },
    { file: repo.path('a.txt'), content: 'a\n', cwd: repo.dir },
    { ...repo.env, PATH: onPath.PATH ?? '' },
  );
  assert.match(post.stdout, /fettle recorded a\.txt/);
});

test('--scope project with fettle inside the project writes a $CLAUDE_PROJECT_DIR path that runs on any checkout', () => {
  const { env } = setup();
  const project = makeRepo({ 'a.txt': 'a\n' });
  const vendored = join(project.dir, 'node_modules', 'fettle', 'dist');
  mkdirSync(vendored, { recursive: true });
  cpSync(join(ROOT, 'dist'), vendored, { recursive: true });
  const r = spawnSync(process.execPath, [join(vendored, 'cli.js'), 'install', '--scope', 'project'], {
    cwd: project.dir,
    env,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const path = join(project.dir, '.claude', 'settings.json');
  const command = json(path).hooks?.PreToolUse?.[0]?.hooks[0]?.command ?? '';
  assert.equal(command, 'node "$CLAUDE_PROJECT_DIR"/node_modules/fettle/dist/cli.js hook');
  assert.ok(!readFileSync(path, 'utf8').includes(project.dir), 'no path of this machine in the shared file');
  // Another checkout of the same project, elsewhere: the committed command runs its own copy.
  const other = join(tempDir(), 'elsewhere');
  execFileSync('cp', ['-R', project.dir, other]);
  const { post } = shWrite(
    { pre: command, post: command },
    { file: join(other, 'a.txt'), content: 'b\n', cwd: other },
    { ...project.env, CLAUDE_PROJECT_DIR: other },
  );
  assert.match(post.stdout, /fettle recorded a\.txt/);
});

test('install warns, naming the command, when fettle is also installed in another scope or as the plugin', () => {
  const { cwd, user, run, runOnPath } = setup();
  ok(run('install'));
  const local = ok(run('install', '--scope', 'local'));
  assert.equal(
    local.stderr,
    `fettle: warning: fettle is also installed in ${user} (user scope), so every write would run fettle twice. Keep one: \`${SELF} uninstall --scope local\` (the user scope stays: it covers every project of yours, this one included).\n`,
  );
  ok(run('uninstall'));
  write(user, '{"enabledPlugins": {"fettle@tools": true, "other@tools": true}}\n');
  const project = ok(runOnPath('install', '--scope', 'project'));
  assert.match(
    project.stderr,
    /the fettle plugin \(fettle@tools\) is also enabled in .*settings\.json, so every write would run fettle twice/,
  );
  assert.match(project.stderr, /`claude plugin disable fettle@tools`.*`fettle uninstall --scope project`/);
  assert.ok(existsSync(join(cwd, '.claude', 'settings.json')), 'the warning does not stop the install');
});

test('--scope local writes <cwd>/.claude/settings.local.json', () => {
  const { home, cwd, run } = setup();
  ok(run('install', '--scope', 'local'));
  assertInstalled(join(cwd, '.claude', 'settings.local.json'));
  assert.deepEqual(readdirSync(join(cwd, '.claude')), ['settings.local.json']);
  assert.equal(existsSync(join(home, '.claude')), false);
});

test('-C <dir> picks the directory for project and local scope (relative or absolute)', () => {
  const { home, cwd, run, runOnPath } = setup();
  mkdirSync(join(cwd, 'sub'));
  const other = tempDir();
  ok(runOnPath('-C', 'sub', 'install', '--scope', 'project'));
  assertInstalled(join(cwd, 'sub', '.claude', 'settings.json'), ['fettle', 'hook']);
  ok(run('-C', other, 'install', '--scope', 'local'));
  assertInstalled(join(other, '.claude', 'settings.local.json'));
  assert.equal(existsSync(join(cwd, '.claude')), false);
  assert.equal(existsSync(join(home, '.claude')), false);
  ok(runOnPath('-C', 'sub', 'uninstall', '--scope', 'project'));
  ok(run('-C', other, 'uninstall', '--scope', 'local'));
  assert.equal(existsSync(join(cwd, 'sub', '.claude', 'settings.json')), false);
  assert.equal(existsSync(join(other, '.claude', 'settings.local.json')), false);
});

test('CLAUDE_CONFIG_DIR overrides the user settings directory', () => {
  const { home, cwd, env } = setup();
  const config = join(tempDir(), 'claude-config');
  const r = ok(runCli(['install'], { cwd, env: { ...env, CLAUDE_CONFIG_DIR: config } }));
  assertInstalled(join(config, 'settings.json'));
  assert.ok(r.stdout.includes(join(config, 'settings.json')));
  assert.equal(existsSync(join(home, '.claude')), false);
  ok(runCli(['uninstall'], { cwd, env: { ...env, CLAUDE_CONFIG_DIR: config } }));
  assert.equal(existsSync(join(config, 'settings.json')), false);
});

test('uninstall takes hooks out of the chosen scope only', () => {
  const { cwd, user, run, runOnPath } = setup();
  ok(run('install'));
  ok(runOnPath('install', '--scope', 'project'));
  const userBytes = bytes(user);
  ok(run('uninstall', '--scope', 'project'));
  assert.equal(existsSync(join(cwd, '.claude', 'settings.json')), false);
  assert.deepEqual(bytes(user), userBytes);
});

test('an unknown scope is a usage error and writes nothing', () => {
  const { home, cwd, run } = setup();
  const r = run('install', '--scope', 'global');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /global/);
  assert.equal(existsSync(join(home, '.claude')), false);
  assert.equal(existsSync(join(cwd, '.claude')), false);
});

test('the user settings path is never relative to the working directory', () => {
  const cwd = tempDir();
  for (const env of [{}, { HOME: '' }, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '' }] as Record<string, string>[]) {
    const path = settingsPath(cwd, env, 'user');
    assert.ok(isAbsolute(path) && !path.startsWith(cwd), `${JSON.stringify(env)} -> ${path}`);
  }
});

// ---------------------------------------------------------------- round trip with foreign settings

const FOREIGN = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  permissions: { allow: ['Bash(npm test)', 'Read(~/notes/**)'], deny: ['Read(./.env)'], defaultMode: 'acceptEdits' },
  env: { GREETING: 'grüß dich ✓ 日本語 🙂', EMPTY: '' },
  hooks: {
    PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'prettier --check "$CLAUDE_PROJECT_DIR"' }] }],
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: '~/bin/lint.sh', timeout: 30 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
  },
  model: 'opus',
  enabledPlugins: {},
  cleanupPeriodDays: 30,
  includeCoAuthoredBy: false,
};
const { hooks: _h, ...FOREIGN_WITHOUT_HOOKS } = FOREIGN;

const fixtures: [string, string][] = [
  ['2-space indent, trailing newline', JSON.stringify(FOREIGN, null, 2) + '\n'],
  ['4-space indent, trailing newline', JSON.stringify(FOREIGN, null, 4) + '\n'],
  ['2-space indent, no trailing newline', JSON.stringify(FOREIGN, null, 2)],
  ['4-space indent, no trailing newline', JSON.stringify(FOREIGN, null, 4)],
  ['tab indent', JSON.stringify(FOREIGN, null, '\t') + '\n'],
  ['no hooks key at all', JSON.stringify(FOREIGN_WITHOUT_HOOKS, null, 2) + '\n'],
];

for (const [name, original] of fixtures) {
  test(`round trip keeps foreign settings and restores the file byte-exactly: ${name}`, () => {
    const { user, run } = setup();
    write(user, original);
    chmodSync(user, 0o600);
    const source = JSON.parse(original) as Settings;

    ok(run('install'));
    assertInstalled(user);
    const text = readFileSync(user, 'utf8');
    const s = json(user);
    // Every foreign key, in its place; hooks appended when there were none.
    assert.deepEqual(Object.keys(s), source.hooks ? Object.keys(source) : [...Object.keys(source), 'hooks']);
    for (const key of Object.keys(source)) if (key !== 'hooks') assert.deepEqual(s[key], source[key], key);
    // Foreign hooks first, in order, unchanged; ours after them.
    const events = Object.keys(source.hooks ?? {});
    assert.deepEqual(Object.keys(s.hooks!), [...events, ...INSTALLED_EVENTS.filter((e) => !events.includes(e))]);
    for (const event of events) {
      const foreign = source.hooks![event]!;
      assert.deepEqual(s.hooks![event]!.slice(0, foreign.length), foreign, event);
      assert.equal(
        s.hooks![event]!.length,
        foreign.length + (INSTALLED_EVENTS.includes(event as never) ? matchersOf(event).length : 0),
        event,
      );
    }
    // Same style: indent, trailing newline, characters not escaped.
    assert.equal(text.split('\n')[1]!.match(/^\s*/)![0], original.split('\n')[1]!.match(/^\s*/)![0], 'indent');
    assert.equal(text.endsWith('\n'), original.endsWith('\n'), 'trailing newline');
    assert.ok(text.includes('grüß dich ✓ 日本語 🙂'), 'unicode kept as written');
    assert.equal(statSync(user).mode & 0o777, 0o600, 'mode kept');

    const r = ok(run('uninstall'));
    assert.match(r.stdout, /Removed/);
    assert.deepEqual(bytes(user), Buffer.from(original, 'utf8'), 'byte-exact after uninstall');
    assert.equal(statSync(user).mode & 0o777, 0o600, 'mode kept');
  });
}

// Hand-written files: only what fettle adds changes, and uninstall gives back every byte. [name, text]
const HAND = `{
  // my settings
  "model": "opus", /* fast */
  "hooks": {
    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo hi" } ] } ], // lint
    "Stop": [
      // say it
      { "hooks": [ { "type": "command", "command": "say done" } ] }
    ]
  }
}
`;
const handWritten: [string, string][] = [
  ['compact, on one line', JSON.stringify(FOREIGN)],
  ['compact, then a newline', `${JSON.stringify(FOREIGN_WITHOUT_HOOKS)}\n`],
  ['comments and groups on one line', HAND],
  ['comments, CRLF', HAND.replace(/\n/g, '\r\n')],
  ['comments, no hooks key', '{\n\t// nothing else\n\t"model": "opus"\n}\n'],
];
for (const [name, original] of handWritten) {
  test(`hand-written settings (${name}): install adds only fettle's groups; uninstall restores every byte`, () => {
    const { user, run } = setup();
    write(user, original);
    ok(run('install'));
    const text = readFileSync(user, 'utf8');
    const errors: ParseError[] = [];
    const s = parseJsonc(text, errors) as Settings;
    assert.deepEqual(errors, []);
    for (const event of INSTALLED_EVENTS)
      assert.equal(fettleHandlers(s, event).length, matchersOf(event).length, event);
    for (const comment of original.match(/(?<=\s)\/\/[^\r\n]*|\/\*.*?\*\//g) ?? [])
      assert.ok(text.includes(comment), `comment kept: ${comment}`);
    assert.equal(text.trimEnd().includes('\n'), original.trimEnd().includes('\n'), 'compact stays compact');
    assert.equal(text.includes('\r\n'), original.includes('\r\n'), 'line endings kept');
    const again = bytes(user);
    assert.match(ok(run('install')).stdout, /nothing changed/);
    assert.deepEqual(bytes(user), again, 'a second install changes nothing');
    ok(run('uninstall'));
    assert.equal(readFileSync(user, 'utf8'), original);
  });
}

test('install --read adds a PreToolUse and a PostToolUse group on Read; a plain install takes it out again; uninstall restores the file', () => {
  const { user, run } = setup();
  const original = JSON.stringify(FOREIGN, null, 2) + '\n';
  write(user, original);
  const r = ok(run('install', '--read'));
  assert.ok(r.stdout.includes(READ_MATCHER));
  assertInstalled(user, expectedWords(), { read: true });
  const once = bytes(user);
  assert.match(ok(run('install', '--read')).stdout, /nothing changed/);
  assert.deepEqual(bytes(user), once);
  ok(run('install'));
  assertInstalled(user);
  ok(run('install', '--read'));
  ok(run('uninstall'));
  assert.deepEqual(bytes(user), Buffer.from(original));
});

test('install --no-bash leaves Bash out (the write tools keep their hooks); a plain install adds it back', () => {
  const { user, run } = setup();
  const r = ok(run('install', '--no-bash'));
  assert.doesNotMatch(r.stdout, /Bash/);
  assertInstalled(user, expectedWords(), { bash: false });
  ok(run('install'));
  assertInstalled(user);
  ok(run('install', '--no-bash'));
  assertInstalled(user, expectedWords(), { bash: false });
});

test('a symlinked settings file stays a symlink; its target gets the hooks', () => {
  const { home, user, run } = setup();
  const target = join(home, 'dotfiles', 'claude-settings.json');
  write(target, '{\n  "model": "opus"\n}\n');
  mkdirSync(join(home, '.claude'));
  symlinkSync(target, user);
  ok(run('install'));
  assert.ok(lstatSync(user).isSymbolicLink(), 'still a symlink');
  assertInstalled(target);
  ok(run('uninstall'));
  assert.ok(lstatSync(user).isSymbolicLink(), 'still a symlink');
  assert.equal(readFileSync(target, 'utf8'), '{\n  "model": "opus"\n}\n');
});

test('a CRLF settings file is restored byte-exactly', () => {
  const { user, run } = setup();
  const original = (JSON.stringify(FOREIGN, null, 2) + '\n').replace(/\n/g, '\r\n');
  write(user, original);
  ok(run('install'));
  assert.ok(readFileSync(user, 'utf8').includes('"model": "opus",\r\n'), 'CRLF kept on install');
  ok(run('uninstall'));
  assert.deepEqual(bytes(user), Buffer.from(original));
});

test('a settings file that was {} is restored, not deleted', () => {
  const { user, run } = setup();
  write(user, '{}\n');
  ok(run('install'));
  ok(run('uninstall'));
  assert.equal(existsSync(user), true, 'file still there');
  assert.equal(readFileSync(user, 'utf8'), '{}\n');
});

// ---------------------------------------------------------------- idempotence

test('install twice: the second run changes nothing and says so', () => {
  for (const original of [null, JSON.stringify(FOREIGN, null, 4) + '\n']) {
    const { user, run } = setup();
    if (original !== null) write(user, original);
    ok(run('install'));
    const first = bytes(user);
    const r = ok(run('install'));
    assert.match(r.stdout, /already installed.*nothing changed/);
    assert.doesNotMatch(r.stdout, /Installed/);
    assert.deepEqual(bytes(user), first);
  }
});

test('uninstall twice: the second run changes nothing and says so', () => {
  const { user, run } = setup();
  write(user, JSON.stringify(FOREIGN, null, 2) + '\n');
  ok(run('install'));
  ok(run('uninstall'));
  const first = bytes(user);
  const r = ok(run('uninstall'));
  assert.match(r.stdout, /No fettle hooks.*nothing changed/);
  assert.deepEqual(bytes(user), first);
});

test('uninstall when the settings file does not exist does not create it', () => {
  const { home, user, run } = setup();
  const r = ok(run('uninstall'));
  assert.match(r.stdout, /nothing changed/);
  assert.ok(r.stdout.includes(user));
  assert.equal(existsSync(join(home, '.claude')), false);
});

test('install then uninstall on a missing file removes the file again', () => {
  const { home, user, run } = setup();
  ok(run('install'));
  assert.equal(existsSync(user), true);
  const r = ok(run('uninstall'));
  assert.match(r.stdout, /Removed/);
  assert.equal(existsSync(user), false);
  assert.equal(existsSync(join(home, '.claude')), false, 'the ~/.claude install made goes too');
});

test('uninstall leaves a ~/.claude that was there before install, even when it removes the file', () => {
  const { home, user, run } = setup();
  mkdirSync(join(home, '.claude'));
  ok(run('install'));
  ok(run('uninstall'));
  assert.equal(existsSync(user), false);
  assert.deepEqual(readdirSync(join(home, '.claude')), []);
});

test('uninstall keeps a .claude directory install made once something else was put in it', () => {
  const { cwd, run } = setup();
  ok(run('install', '--scope', 'local'));
  writeFileSync(join(cwd, '.claude', 'notes.md'), 'mine\n');
  ok(run('uninstall', '--scope', 'local'));
  assert.deepEqual(readdirSync(join(cwd, '.claude')), ['notes.md']);
});

test('install is idempotent after a foreign group was added behind ours', () => {
  const { user, run } = setup();
  ok(run('install'));
  const s = json(user);
  s.hooks!.PreToolUse!.push({ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] });
  write(user, JSON.stringify(s, null, 2) + '\n');
  const before = bytes(user);
  const r = ok(run('install'));
  assert.match(r.stdout, /nothing changed/);
  assert.deepEqual(bytes(user), before);
});

// uninstall must not touch a file in which fettle has nothing: [name, text, todo?]
const notOurs: [string, string, string?][] = [
  ['foreign hooks only', JSON.stringify(FOREIGN, null, 2) + '\n'],
  ['{}', '{}\n'],
  ['{ }', '{ }\n'],
  ['"hooks": {}', '{\n  "hooks": {}\n}\n'],
  ['an empty event array', '{\n  "model": "x",\n  "hooks": {\n    "PreToolUse": []\n  }\n}\n'],
  ['a non-array event value', '{\n  "hooks": {\n    "PreToolUse": "x"\n  }\n}\n'],
];
for (const [name, original, todo] of notOurs) {
  test(`uninstall leaves a file without fettle hooks byte-identical: ${name}`, { todo }, () => {
    const { user, run } = setup();
    write(user, original);
    const r = ok(run('uninstall'));
    assert.match(r.stdout, /nothing changed/);
    assert.equal(existsSync(user), true, 'file still there');
    assert.deepEqual(bytes(user), Buffer.from(original));
  });
}

// ---------------------------------------------------------------- refusals

const refused: [string, string, RegExp][] = [
  ['invalid JSON (trailing comma)', '{\n  "model": "opus",\n}\n', /not valid JSON/],
  ['invalid JSON (truncated)', '{\n  "hooks": {\n', /not valid JSON/],
  ['"hooks" is an array', '{\n  "hooks": []\n}\n', /"hooks" is not an object/],
  ['"hooks" is a string', '{\n  "hooks": "x"\n}\n', /"hooks" is not an object/],
  ['"hooks" is null', '{\n  "hooks": null\n}\n', /"hooks" is not an object/],
  ['the top level is an array', '[]\n', /top level is not a JSON object/],
];
for (const [name, original, why] of refused) {
  for (const command of ['install', 'uninstall']) {
    test(`${command} refuses a settings file when ${name}, and changes nothing`, () => {
      const { home, user, run } = setup();
      write(user, original);
      const r = run(command);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.includes(user), 'names the file');
      assert.match(r.stderr, why);
      assert.match(r.stderr, /fettle changed nothing/);
      assert.doesNotMatch(r.stdout, /Installed|Removed/);
      assert.deepEqual(bytes(user), Buffer.from(original), 'byte-identical');
      assert.deepEqual(readdirSync(join(home, '.claude')), ['settings.json'], 'no temp file left');
    });
  }
}

test('install refuses a PreToolUse or PostToolUse that is not an array; uninstall leaves it alone', () => {
  for (const event of HOOK_EVENTS) {
    const { user, run } = setup();
    const original = `{\n  "hooks": {\n    "${event}": {\n      "matcher": "Write"\n    }\n  }\n}\n`;
    write(user, original);
    const r = run('install');
    assert.equal(r.code, 1);
    assert.ok(r.stderr.includes(user));
    assert.ok(r.stderr.includes(`"hooks.${event}" is not an array`), r.stderr);
    assert.match(r.stderr, /fettle changed nothing/);
    assert.deepEqual(bytes(user), Buffer.from(original));
    ok(run('uninstall'));
    assert.deepEqual(bytes(user), Buffer.from(original));
  }
});

// ---------------------------------------------------------------- older installs

test('a fettle handler with an older command path is replaced on install, not duplicated', () => {
  const { user, run } = setup();
  const old = { type: 'command', command: "'/old/node' '/old/fettle/dist/cli.js' hook" };
  const foreign = { type: 'command', command: 'prettier --check .' };
  const original = {
    model: 'opus',
    hooks: {
      PreToolUse: [
        { matcher: 'Write', hooks: [foreign] },
        { matcher: 'Write', hooks: [old] },
      ],
      PostToolUse: [{ matcher: 'Write', hooks: [foreign, old] }],
    },
  };
  write(user, JSON.stringify(original, null, 2) + '\n');
  const r = ok(run('install'));
  assert.match(r.stdout, /Installed/);
  assertInstalled(user);
  const text = readFileSync(user, 'utf8');
  assert.ok(!text.includes('/old/'), 'the old command is gone');
  const s = json(user);
  const foreignGroups = (event: string) =>
    s.hooks![event]!.filter((g) => !g.hooks.some((h) => isFettleHandler(h as never)));
  assert.deepEqual(foreignGroups('PreToolUse'), [{ matcher: 'Write', hooks: [foreign] }]);
  assert.deepEqual(
    foreignGroups('PostToolUse'),
    [{ matcher: 'Write', hooks: [foreign] }],
    'the foreign handler stays in its group',
  );
  assert.equal(s.model, 'opus');
  ok(run('uninstall'));
  assert.deepEqual(json(user), {
    model: 'opus',
    hooks: {
      PreToolUse: [{ matcher: 'Write', hooks: [foreign] }],
      PostToolUse: [{ matcher: 'Write', hooks: [foreign] }],
    },
  });
});

// ---------------------------------------------------------------- the plugin

/** The plugin's handler for what `install --read` adds: a shell test first, so no Node starts unless opted in. */
const PLUGIN_READ =
  '[ "$FETTLE_PLUGIN_READ" = on ] && exec node "${CLAUDE_PLUGIN_ROOT}/dist/cli.js" hook; exec cat >/dev/null';

test('hooks/hooks.json registers the same events, matchers and handlers as install --read, via ${CLAUDE_PLUGIN_ROOT}', () => {
  const plugin = JSON.parse(readFileSync(join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as {
    description?: string;
    hooks: Record<string, Group[]>;
  };
  assert.equal(typeof plugin.description, 'string');
  const { user, run } = setup();
  ok(run('install'));
  const plain = json(user);
  ok(run('install', '--read'));
  const installed = json(user);
  assert.deepEqual(Object.keys(plugin.hooks).sort(), Object.keys(installed.hooks ?? {}).sort());
  for (const [event, groups] of Object.entries(plugin.hooks)) {
    assert.deepEqual(
      groups.map((g) => g.matcher),
      (installed.hooks?.[event] ?? []).map((g) => g.matcher),
      event,
    );
    const always = (plain.hooks?.[event] ?? []).map((g) => g.matcher);
    groups.forEach((group, n) => {
      assert.equal(group.hooks.length, 1, event);
      const handler = group.hooks[0]!;
      // What a plain install registers always runs; what only --read adds runs when FETTLE_PLUGIN_READ=on.
      const command = always.includes(group.matcher) ? 'node "${CLAUDE_PLUGIN_ROOT}/dist/cli.js" hook' : PLUGIN_READ;
      assert.equal(handler.command, command, `${event} ${group.matcher}`);
      assert.ok(isFettleHandler(handler as never), 'uninstall would recognise it');
      // Apart from how the CLI is found, the plugin's handler is install's.
      const { command: _a, ...pluginRest } = handler;
      const { command: _b, ...installRest } = fettleHandlers(installed, event)[n]!;
      assert.deepEqual(pluginRest, installRest, event);
    });
  }
});

test("the plugin's Read hooks start no Node unless FETTLE_PLUGIN_READ=on; then a re-read is answered", () => {
  const repo = makeRepo({ 'a.txt': 'one\n' });
  const file = repo.path('a.txt');
  const input = (event: string, response?: unknown) =>
    JSON.stringify({
      hook_event_name: event,
      session_id: 'plugin-session',
      cwd: repo.dir,
      tool_name: 'Read',
      tool_input: { file_path: file },
      ...(response ? { tool_response: response } : {}),
    });
  const plugin = JSON.parse(readFileSync(join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as {
    hooks: Record<string, Group[]>;
  };
  const commandOf = (event: string) => plugin.hooks[event]?.find((g) => g.matcher === 'Read')?.hooks[0]?.command ?? '';
  const sh = (event: string, env: Record<string, string>, response?: unknown) =>
    spawnSync('/bin/sh', ['-c', commandOf(event)], {
      cwd: repo.dir,
      env,
      input: input(event, response),
      encoding: 'utf8',
    });
  // No dist/ there: had Node run, the hook would fail.
  const off = sh('PreToolUse', { ...repo.env, CLAUDE_PLUGIN_ROOT: join(tempDir(), 'no-plugin') });
  assert.deepEqual([off.status, off.stdout, off.stderr], [0, '', '']);
  const on = { ...repo.env, CLAUDE_PLUGIN_ROOT: ROOT, FETTLE_PLUGIN_READ: 'on' };
  assert.deepEqual([sh('PreToolUse', on).status, sh('PreToolUse', on).stdout], [0, '']);
  const shown = { type: 'text', file: { filePath: file, content: 'one\n', numLines: 1, startLine: 1, totalLines: 1 } };
  assert.equal(sh('PostToolUse', on, shown).status, 0);
  assert.match(sh('PreToolUse', on).stdout, /"permissionDecision":"deny".*unchanged since your read/);
});

test('the hooks.json command, with ${CLAUDE_PLUGIN_ROOT} substituted (path with a space), runs the hook', () => {
  const plugin = JSON.parse(readFileSync(join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as {
    hooks: Record<string, Group[]>;
  };
  const pluginRoot = join(tempDir(), 'plugin cache', 'fettle');
  mkdirSync(join(pluginRoot, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(pluginRoot, 'dist'), { recursive: true });
  const repo = makeRepo({ 'a.txt': 'one\n' });
  const commandOf = (event: string) =>
    plugin.hooks[event]![0]!.hooks[0]!.command.split('${CLAUDE_PLUGIN_ROOT}').join(pluginRoot);
  const env = { ...repo.env, CLAUDE_PLUGIN_ROOT: pluginRoot };
  const { post } = shWrite(
    { pre: commandOf('PreToolUse'), post: commandOf('PostToolUse') },
    { file: repo.path('a.txt'), content: 'two\n', cwd: repo.dir },
    env,
  );
  assert.match(post.stdout, /fettle recorded a\.txt/);
});

test('.claude-plugin/plugin.json names the plugin, and the package ships the plugin files', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { name?: unknown };
  assert.equal(manifest.name, 'fettle');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  for (const entry of ['.claude-plugin', 'hooks', 'dist']) assert.ok(pkg.files.includes(entry), entry);
});
