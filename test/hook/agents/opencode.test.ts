// fettle's opencode plugin, loaded the way opencode 1.18 loads a plugin file and called the way it calls plugin
// hooks (read in the released client): the module imported from the plugin directory, every export a plugin
// function called with { client, project, worktree, directory, $ } and its options; `config(config)` once with the
// merged config; `tool.execute.before(input, { args })` before a tool runs, where a throw stops the tool and its
// message is the tool's error; `tool.execute.after(input, output)` after it ran, `output.output` being what the model
// reads; `event({ event })` for bus events such as session.idle. The plugin is installed by the built CLI and runs
// the built CLI's hook; the tools' writes are made here as opencode makes them.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { runCli, SELF, literal } from '../../helpers/cli';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { landedText } from '../../helpers/tools';
import { FIRST, SECOND, shellRepo, shellRows, treeOf } from '../../helpers/agent-shell';

type Hook = (input: Record<string, unknown>, output: Record<string, unknown>) => Promise<void>;
type Hooks = Record<string, Hook> & { config?: (c: unknown) => Promise<void>; event?: (e: unknown) => Promise<void> };

/** Installs the plugin for `repo`'s user (XDG_CONFIG_HOME in its temp home) and loads it as opencode does. */
const loadPlugin = async (repo: Repo, env: Record<string, string> = {}, config: unknown = {}) => {
  const xdg = join(repo.home, '.config');
  const installed = runCli(['install', '--agent', 'opencode'], {
    cwd: repo.dir,
    env: { ...repo.env, XDG_CONFIG_HOME: xdg },
  });
  assert.equal(installed.code, 0, installed.stderr);
  const path = join(xdg, 'opencode', 'plugin', 'fettle.js');
  // The plugin's fettle runs with opencode's environment: this process's, here.
  Object.assign(process.env, repo.env, env);
  const module = (await import(`${pathToFileURL(path).href}?${Date.now()}${Math.random()}`)) as Record<string, unknown>;
  const plugins = Object.values(module);
  for (const p of plugins)
    assert.equal(typeof p, 'function', 'opencode refuses a plugin module with a non-function export');
  const input = { client: {}, project: {}, worktree: repo.dir, directory: repo.dir, $: undefined };
  const hooks = (await (plugins[0] as (i: unknown, o: unknown) => Promise<Hooks>)(input, {})) as Hooks;
  await hooks.config?.(config);
  let n = 0;
  /** One tool call: before, then (unless before threw) the tool's write, then after; what the model reads. */
  const tool = async (
    name: string,
    args: Record<string, unknown>,
    write: () => void,
  ): Promise<{ error?: string; output?: string }> => {
    const input = { tool: name, sessionID: 'ses_test', callID: `call_${++n}` };
    try {
      await hooks['tool.execute.before']?.(input, { args });
    } catch (error) {
      return { error: (error as Error).message };
    }
    write();
    const output = { title: '', output: 'Edit applied successfully.', metadata: {} };
    await hooks['tool.execute.after']?.({ ...input, args }, output);
    return { output: output.output };
  };
  const idle = () => hooks.event?.({ event: { id: 'e', type: 'session.idle', properties: { sessionID: 'ses_test' } } });
  return { path, hooks, tool, idle };
};

const message = (repo: Repo, ref: string) => repo.git('log', '-1', '--format=%B', ref);
const refs = (repo: Repo) =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle/')
    .split('\n')
    .filter((r) => /\/[0-9a-z]{8}$/.test(r));

test("install puts the plugin in opencode's plugin directory with this fettle's command; uninstall removes it", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const env = { ...repo.env, XDG_CONFIG_HOME: join(repo.home, '.config') };
  const path = join(repo.home, '.config', 'opencode', 'plugin', 'fettle.js');
  const first = runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    new RegExp(`^Installed fettle's opencode plugin as ${literal(path)}; it runs ${literal(process.execPath)} `),
  );
  const text = readFileSync(path, 'utf8');
  assert.match(text, /^\/\/ fettle's plugin for opencode:/);
  assert.match(
    text,
    new RegExp(`^const FETTLE_COMMAND = \\["${literal(process.execPath)}","[^"]+/dist/cli\\.js"\\];$`, 'm'),
  );
  assert.match(
    runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env }).stdout,
    /already installed .*; nothing changed\./,
  );
  const removed = runCli(['uninstall', '--agent', 'opencode'], { cwd: repo.dir, env });
  assert.equal(removed.stdout, `Removed fettle's opencode plugin ${path}.\n`);
  assert.equal(existsSync(path), false);
  assert.equal(
    existsSync(join(repo.home, '.config', 'opencode', 'plugin')),
    false,
    'the directory install made goes too',
  );
  mkdirSync(join(repo.home, '.config', 'opencode', 'plugin'), { recursive: true });
  writeFileSync(path, 'export const Mine = async () => ({});\n');
  for (const verb of ['install', 'uninstall']) {
    const r = runCli([verb, '--agent', 'opencode'], { cwd: repo.dir, env });
    assert.equal(r.code !== 0, true, `${verb} refuses a file fettle did not write`);
    assert.match(r.stderr, /is not fettle's opencode plugin; it was left as it was/);
  }
  assert.equal(readFileSync(path, 'utf8'), 'export const Mine = async () => ({});\n');
  const local = runCli(['install', '--agent', 'opencode', '--scope', 'local'], { cwd: repo.dir, env });
  assert.match(local.stderr, /opencode has no local scope/);
  const project = runCli(['install', '--agent', 'opencode', '--scope', 'project'], { cwd: repo.dir, env });
  assert.match(
    project.stderr,
    /--scope project writes .*\.opencode\/plugin\/fettle\.js, which everyone who checks out the project shares/,
  );
});
// [what was there before install, what must be there after uninstall]
const leftAsFound: [string, string[], string[]][] = [
  ['nothing: opencode never ran', [], []],
  ["opencode's config dir with its config", ['opencode/opencode.json'], ['opencode', 'opencode/opencode.json']],
  ['an empty plugin dir of its own', ['opencode/plugin/'], ['opencode', 'opencode/plugin']],
];
for (const [what, before, after] of leftAsFound)
  test(`uninstall leaves opencode's config dir as install found it: ${what}`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const config = join(repo.home, '.config');
    const env = { ...repo.env, XDG_CONFIG_HOME: config };
    for (const entry of before)
      if (entry.endsWith('/')) mkdirSync(join(config, entry), { recursive: true });
      else {
        mkdirSync(join(config, entry, '..'), { recursive: true });
        writeFileSync(join(config, entry), '{}\n');
      }
    assert.equal(runCli(['install', '--agent', 'opencode'], { cwd: repo.dir, env }).code, 0);
    assert.equal(runCli(['uninstall', '--agent', 'opencode'], { cwd: repo.dir, env }).code, 0);
    const left = existsSync(config) ? readdirSync(config, { recursive: true }).map(String).sort() : [];
    assert.deepEqual(left, after);
    assert.equal(existsSync(config), before.length > 0, 'the config dir install made goes too');
  });

test('a small edit is recorded before opencode writes it, and the model is told the change id', async () => {
  const repo = makeRepo({ 'src.ts': lines(30) });
  const { tool } = await loadPlugin(repo);
  const next = lines(30).replace('line 4\n', 'line four\n');
  const r = await tool('edit', { filePath: 'src.ts', oldString: 'line 4\n', newString: 'line four\n' }, () =>
    writeFileSync(repo.path('src.ts'), next),
  );
  assert.equal(r.error, undefined);
  const id = /fettle recorded src\.ts \(.+\) as ([0-9a-z]{8}); undo with: /.exec(r.output ?? '')?.[1];
  assert.ok(id, r.output);
  assert.match(
    r.output ?? '',
    new RegExp(
      `^Edit applied successfully\\.\\n\\nfettle recorded src\\.ts \\(${landedText(next)}, \\+1 -1 ~1\\) as ${id}; undo with: ${literal(SELF)} rollback ${id}$`,
    ),
  );
  const m = message(repo, `refs/fettle/${id}`);
  assert.match(m, /^Fettle-Kind: after$/m);
  assert.match(m, /^Fettle-Tool: edit\nFettle-Agent: opencode\nFettle-Session: ses_test$/m);
  assert.equal(repo.git('show', `refs/fettle/${id}^:src.ts`), lines(30).trimEnd());
});

test('a large write is staged and the tool stopped: the model reads the diff and the commands as the tool error', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const { tool } = await loadPlugin(repo);
  const r = await tool('write', { filePath: repo.path('big.ts'), content: lines(30, 'new') }, () =>
    assert.fail('the tool must not run'),
  );
  const id = /Staged change ([0-9a-z]{8})/.exec(r.error ?? '')?.[1];
  assert.ok(id, r.error);
  assert.match(r.error ?? '', /^fettle held this write for review: nothing was written to big\.ts\./);
  assert.match(r.error ?? '', new RegExp(`To apply it, run: ${literal(SELF)} confirm ${id}\\n`));
  assert.match(r.error ?? '', /Do not retry the write; confirm or discard instead\./);
  assert.match(r.error ?? '', /^\+new 1$/m);
  assert.equal(repo.read('big.ts').toString(), lines(30));
  assert.equal(runCli(['confirm', id as string], { cwd: repo.dir, env: repo.env }).code, 0);
  assert.equal(repo.read('big.ts').toString(), lines(30, 'new'));
});

test('an edit opencode would match loosely is recorded, not predicted; so is each file apply_patch updates', async () => {
  const repo = makeRepo({ 'a.ts': lines(30), 'b.ts': lines(30) });
  const { tool } = await loadPlugin(repo);
  const loose = await tool('edit', { filePath: 'a.ts', oldString: '  line 2', newString: 'line two' }, () =>
    writeFileSync(repo.path('a.ts'), lines(30, 'changed')),
  );
  assert.equal(loose.error, undefined, 'never staged from a guess, however large what lands');
  const [ref] = refs(repo);
  assert.match(message(repo, ref as string), /could not predict the result: oldString is not in the file as given/);
  assert.match(message(repo, ref as string), /^Fettle-Kind: after$/m);
  const patch =
    '*** Begin Patch\n*** Update File: b.ts\n@@\n-line 1\n+line one\n*** Add File: c.ts\n+new\n*** End Patch';
  const r = await tool('apply_patch', { patchText: patch }, () => {
    writeFileSync(repo.path('b.ts'), lines(30).replace('line 1\n', 'line one\n'));
    writeFileSync(repo.path('c.ts'), 'new\n');
  });
  assert.match(
    r.output ?? '',
    new RegExp(
      `^Edit applied successfully\\.\\n\\nfettle recorded b\\.ts \\(${landedText(lines(30).replace('line 1\n', 'line one\n'))}, \\+1 -1 ~1\\) as ([0-9a-z]{8}); undo with: .+ rollback \\1$`,
    ),
  );
  // A file the patch adds is not predicted, and had no previous bytes to keep: it is not recorded (README).
  assert.equal(refs(repo).length, 2);
});

test('opencode asks for edits (permission "ask"): a large write is staged for the person and goes to opencode\'s prompt', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const { tool } = await loadPlugin(repo, {}, { permission: { edit: 'ask' } });
  const r = await tool('write', { filePath: 'big.ts', content: lines(30, 'new') }, () =>
    writeFileSync(repo.path('big.ts'), lines(30, 'new')),
  );
  assert.equal(r.error, undefined, 'opencode asks the person; fettle does not stop the tool');
  const [ref] = refs(repo);
  const m = message(repo, ref as string);
  assert.match(m, /^Fettle-Kind: applied$/m, 'the person allowed it: the proposal is applied');
  assert.match(m, /^Fettle-Review: person$/m);
});

test('FETTLE_REVIEW=human with opencode writing edits unasked: a large write is refused, nothing staged', async () => {
  const repo = makeRepo({ 'big.ts': lines(30) });
  const { tool } = await loadPlugin(repo, { FETTLE_REVIEW: 'human' });
  const r = await tool('write', { filePath: 'big.ts', content: lines(30, 'new') }, () =>
    assert.fail('the tool must not run'),
  );
  assert.match(r.error ?? '', /^fettle refused this write: nothing was written to big\.ts and nothing was staged\./);
  assert.match(r.error ?? '', /set opencode's edit permission to "ask"/);
  assert.deepEqual(refs(repo), []);
  delete process.env.FETTLE_REVIEW;
});

test('a tool that never wrote leaves its record open until the turn ends; session.idle settles it', async () => {
  const repo = makeRepo({ 'a.ts': lines(30) });
  const { hooks, idle } = await loadPlugin(repo);
  await hooks['tool.execute.before']?.(
    { tool: 'edit', sessionID: 'ses_test', callID: 'call_x' },
    { args: { filePath: 'a.ts', oldString: 'line 1\n', newString: 'line one\n' } },
  );
  assert.equal(refs(repo).length, 1, 'the previous bytes are recorded before the tool runs');
  await idle();
  assert.deepEqual(refs(repo), [], 'nothing was written: the record is dropped');
});

test('a fettle that cannot run does not stop opencode (fail open), and opencode is told nothing false', async () => {
  const repo = makeRepo({ 'a.ts': lines(30) });
  const { path } = await loadPlugin(repo);
  const broken = join(repo.home, 'broken.js');
  writeFileSync(
    broken,
    readFileSync(path, 'utf8').replace(
      /^const FETTLE_COMMAND = .*$/m,
      "const FETTLE_COMMAND = ['/nonexistent/fettle'];",
    ),
  );
  const module = (await import(pathToFileURL(broken).href)) as Record<
    string,
    (i: unknown, o: unknown) => Promise<Hooks>
  >;
  const hooks = await (Object.values(module)[0] as (i: unknown, o: unknown) => Promise<Hooks>)(
    { directory: repo.dir, client: {} },
    {},
  );
  await hooks['tool.execute.before']?.(
    { tool: 'write', sessionID: 's', callID: 'c' },
    { args: { filePath: 'a.ts', content: 'x' } },
  );
  const output = { output: 'Wrote file successfully.' };
  await hooks['tool.execute.after']?.({ tool: 'write', sessionID: 's', callID: 'c', args: {} }, output);
  assert.equal(output.output, 'Wrote file successfully.');
});

test('a policy rule decides for opencode as for Claude Code: block stops the tool, ignore lets it write unrecorded', async () => {
  const repo = makeRepo({ '.env': 'A=1\n', 'gen/out.txt': lines(30) });
  const rules = [
    { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
    { path: 'gen/**', action: 'ignore' },
  ];
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules }));
  const { tool } = await loadPlugin(repo);
  const blocked = await tool('write', { filePath: repo.path('.env'), content: 'A=2\n' }, () =>
    assert.fail('the tool must not run'),
  );
  assert.match(
    blocked.error ?? '',
    /^fettle blocked this write: nothing was written to \.env\. Policy rule .*no-env.* blocks it: Secrets are edited by hand\./,
  );
  assert.equal(repo.read('.env').toString(), 'A=1\n');
  const ignored = await tool('write', { filePath: repo.path('gen/out.txt'), content: lines(30, 'new') }, () =>
    repo.write('gen/out.txt', lines(30, 'new')),
  );
  assert.equal(ignored.error, undefined);
  assert.equal(repo.read('gen/out.txt').toString(), lines(30, 'new'));
  assert.deepEqual(refs(repo), [], 'nothing recorded for either');
});

test("opencode's bash: each user message a turn, one changeset per command (workdir its directory), the model told; rollback --turn 1 restores the tree byte for byte", async () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  const { tool, hooks } = await loadPlugin(repo);
  const say = (text: string) =>
    hooks['chat.message']?.({ sessionID: 'ses_test' }, { message: { role: 'user' }, parts: [{ type: 'text', text }] });
  const bash = (command: string, cwd = repo.dir) =>
    tool('bash', { command, description: 'x', ...(cwd === repo.dir ? {} : { workdir: cwd }) }, () =>
      execFileSync('/bin/sh', ['-c', command], { cwd, env: repo.env }),
    );
  await say('one');
  const first = await bash(FIRST);
  assert.match(
    first.output ?? '',
    /\n\nfettle recorded 3 files changed by this command: 1 modified, 1 created, 1 deleted; undo with: .+ rollback [0-9a-z]{8}$/,
  );
  await say('two');
  assert.match((await bash(SECOND, repo.path('sub'))).output ?? '', /created sub\/here\.txt; undo with/);
  assert.equal((await bash('ls -la')).output, 'Edit applied successfully.', 'a reader records nothing');
  assert.deepEqual(shellRows(repo), [
    'a.txt modified bash opencode ses_test 1',
    'b.txt deleted bash opencode ses_test 1',
    'c.txt created bash opencode ses_test 1',
    'sub/here.txt created bash opencode ses_test 2',
  ]);
  const back = runCli(['rollback', '--turn', '1'], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(treeOf(repo), start);
});
