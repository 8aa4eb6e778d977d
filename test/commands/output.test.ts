// Output like git's: review and show through a pager on a terminal ($PAGER, else less -FRX; never the
// repository's core.pager), colour by NO_COLOR / FORCE_COLOR / TERM=dumb, -C in every subcommand's help,
// --json on every command that prints data, aligned `info`.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, runCli } from '../helpers/cli';
import { lines, makeRepo, tempDir } from '../helpers/repo';
import { fettle, ok, stageWrite } from '../helpers/stage';

const ESC = '\u001b[';

/** `fettle args` with its stdout on a terminal (util-linux `script` gives it a pseudo-terminal). */
const onTerminal = (cwd: string, env: Record<string, string>, args: string[]) => {
  const line = [process.execPath, CLI, ...args].map((w) => `'${w}'`).join(' ');
  return spawnSync('script', ['-qec', line, '/dev/null'], { cwd, env, encoding: 'utf8' });
};

const hasScript = spawnSync('script', ['--version']).status === 0;

for (const command of ['review', 'show']) {
  test(`${command} on a terminal goes through $PAGER, never the repository's core.pager`, {
    skip: !hasScript && 'no `script` to make a terminal',
  }, () => {
    const repo = makeRepo({ 'a.txt': lines(30) });
    const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
    const dir = tempDir();
    const evil = join(dir, 'core-pager-ran');
    repo.git('config', 'core.pager', `touch '${evil}'; cat`);
    const paged = join(dir, 'paged');
    const r = onTerminal(repo.dir, { ...repo.env, PAGER: `cat > '${paged}'`, FETTLE_NOW: '1750000000' }, [command, id]);
    assert.equal(r.status, 0, r.stdout);
    const text = readFileSync(paged, 'utf8');
    assert.match(text, new RegExp(`fettle: stage a\\.txt|change ${id}`));
    assert.match(text, /new 30/);
    assert.ok(text.includes(ESC), 'coloured on a terminal');
    assert.equal(existsSync(evil), false, 'core.pager never runs');
    // PAGER empty or `cat`: no pager, straight to the terminal.
    const direct = onTerminal(repo.dir, { ...repo.env, PAGER: '' }, [command, id]);
    assert.match(direct.stdout, /new 30/);
  });
}

test('without a terminal there is no pager and no colour, unless FORCE_COLOR', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
  const marker = join(tempDir(), 'paged');
  const plain = ok(fettle(repo, ['show', id], { env: { PAGER: `touch '${marker}'` } }));
  assert.equal(existsSync(marker), false, 'no pager when stdout is not a terminal');
  assert.ok(!plain.stdout.includes(ESC));
  // [env, coloured?]
  const cases: [Record<string, string>, boolean][] = [
    [{ FORCE_COLOR: '1' }, true],
    [{ FORCE_COLOR: '0' }, false],
    [{ FORCE_COLOR: 'false' }, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true],
  ];
  for (const [env, coloured] of cases)
    for (const command of ['show', 'review'])
      assert.equal(ok(fettle(repo, [command, id], { env })).stdout.includes(ESC), coloured, JSON.stringify(env));
  assert.ok(!ok(fettle(repo, ['show', id, '--json'], { env: { FORCE_COLOR: '1' } })).stdout.includes(ESC));
});

test('on a terminal, NO_COLOR and TERM=dumb turn colour off', { skip: !hasScript && 'no `script`' }, () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
  for (const env of [{ NO_COLOR: '1' }, { TERM: 'dumb' }] as Record<string, string>[]) {
    const r = onTerminal(repo.dir, { ...repo.env, PAGER: '', ...env }, ['show', id]);
    assert.match(r.stdout, /new 30/);
    assert.ok(!r.stdout.includes(ESC), JSON.stringify(env));
  }
});

test('doctor colours its marks as show does: on a terminal unless NO_COLOR, or with FORCE_COLOR; never in --json', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  // [on a terminal, env, coloured?]
  const cases: [boolean, Record<string, string>, boolean][] = [
    [false, {}, false],
    [false, { FORCE_COLOR: '1' }, true],
    [true, {}, true],
    [true, { NO_COLOR: '1' }, false],
    [true, { TERM: 'dumb' }, false],
  ];
  for (const [terminal, env, coloured] of cases) {
    if (terminal && !hasScript) continue;
    const out = terminal
      ? onTerminal(repo.dir, { ...repo.env, ...env }, ['doctor']).stdout
      : fettle(repo, ['doctor'], { env }).stdout;
    assert.match(out, / node +Node v\d/, out);
    assert.equal(out.includes(`${ESC}32mok`), coloured, `${terminal ? 'terminal' : 'pipe'} ${JSON.stringify(env)}`);
  }
  assert.ok(!fettle(repo, ['doctor', '--json'], { env: { FORCE_COLOR: '1' } }).stdout.includes(ESC));
});

/** Subcommands as `fettle --help` lists them. */
const subcommands = (): string[] => {
  const help = runCli(['--help'], { cwd: tempDir(), env: { PATH: process.env.PATH ?? '' } }).stdout;
  const section = help.slice(help.indexOf('Commands:'));
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1] as string).filter((c) => c !== 'help');
};

test("every subcommand's --help shows -C <dir>; every command that prints data takes --json", () => {
  const commands = subcommands();
  assert.ok(commands.length >= 17, commands.join(' '));
  const withoutJson: string[] = [];
  for (const command of commands) {
    const r = runCli([command, '--help'], { cwd: tempDir(), env: { PATH: process.env.PATH ?? '' } });
    assert.equal(r.code, 0, command);
    assert.match(r.stdout, /^ {2}-C <dir> +run as if fettle was started in <dir>$/m, command);
    if (!/^ {2}--json\b/m.test(r.stdout)) withoutJson.push(command);
  }
  // hook answers Claude Code in its own JSON; mcp speaks JSON-RPC; test prints its command's output; demo is a
  // narration; policy is a group, whose `check` takes --json; trace is a group, whose `export` prints only JSON.
  assert.deepEqual(withoutJson.sort(), ['demo', 'hook', 'mcp', 'policy', 'test', 'trace']);
  assert.match(runCli(['policy', 'check', '--help'], { cwd: tempDir(), env: {} }).stdout, /^ {2}--json\b/m);
});

test("info's settings line up in one column", () => {
  const out = ok(fettle(makeRepo({ 'a.txt': 'a\n' }), ['info'])).stdout;
  // The settings run to the first blank line; the policy in force follows them.
  const rows = out.slice(out.indexOf('In force:\n')).split('\n\n')[0]?.split('\n').slice(1) ?? [];
  assert.equal(rows.length, 15, rows.join('\n'));
  const columns = new Set(rows.map((r) => /^ {2}\S+(?: \S+)*? {2,}/.exec(r)?.[0].length));
  assert.equal(columns.size, 1, rows.join('\n'));
});

test('write --json: what happened, the id, and the commands to run next', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const small = JSON.parse(
    ok(fettle(repo, ['write', 'a.txt', '--json'], { input: lines(30).replace('line 3\n', 'x\n') })).stdout,
  );
  assert.deepEqual(Object.keys(small), ['kind', 'id', 'path', 'file', 'added', 'removed', 'reason', 'undo']);
  assert.equal(small.kind, 'written');
  const staged = fettle(repo, ['write', 'a.txt', '--json'], { input: lines(30, 'new') });
  assert.equal(staged.code, 3);
  const json = JSON.parse(staged.stdout);
  assert.equal(json.kind, 'staged');
  assert.match(json.confirm, new RegExp(` confirm ${json.id}$`));
  const same = JSON.parse(ok(fettle(repo, ['write', 'a.txt', '--json'], { input: repo.read('a.txt') })).stdout);
  assert.deepEqual(same, { kind: 'noop', path: 'a.txt', file: repo.path('a.txt') });
});
