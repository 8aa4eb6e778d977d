// Every command fettle prints runs as printed. The scenes below make fettle print what a user and the agent read:
// the hook's deny text and PostToolUse note, the ask prompt, status, rollback's undo, conflicts, expiry, the
// not-found and already-applied hints, doctor's fixes, review's steps, read's next page, install's warning, a
// blocked hook. Every fettle command in that output is collected and run through `sh -c` in a clean environment
// (no `fettle` on PATH, as after a clone or a plugin install): none may exit 127, each must be this fettle, and no
// bare `fettle <subcommand>` may be left for a shell that cannot find it.
// Tier: slow, runs every command fettle prints, each as a person would (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { shellWords } from '../../src/io/self';
import { CLI, literal, mistyped, runCli, type Run, SELF, withFettleOnPath } from '../helpers/cli';
import { lines, makeRepo, tempDir } from '../helpers/repo';
import { directWrite, fettle, stageWrite, T0 } from '../helpers/stage';
import { hook, hso } from '../helpers/tools';

const ROOT = join(__dirname, '..', '..');
const SUBCOMMANDS =
  'hook|write|confirm|discard|rollback|log|show|review|test|gc|read|status|doctor|info|install|uninstall|demo';

interface Printed {
  /** where the output was printed (the shell the reader is in) */
  cwd: string;
  env: Record<string, string>;
  text: string;
  scene: string;
}

/** Every fettle command in `text` spelled with `prefix`: to the closing backtick, ')' or the end of the line. */
const commandsIn = (text: string, prefix: string): string[] => {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    for (let at = line.indexOf(prefix); at >= 0; at = line.indexOf(prefix, at + prefix.length)) {
      const rest = line.slice(at);
      const end = rest.search(/`|\)$| {3}\(/);
      found.push((end < 0 ? rest : rest.slice(0, end)).trim());
    }
  }
  return found;
};

/** A printed command made runnable: placeholders filled as a reader would. */
const filled = (command: string, id: string): string =>
  command
    .replace(/<id>/g, id)
    .replace(/<command\.*>/g, 'true')
    .replace(/ \[remote\]/g, ' /nonexistent-remote')
    .replace(/<name>/g, 'x');

const texts = (r: Run): string => `${r.stdout}\n${r.stderr}`;

/** Every scene, printing into `out`; returns an id that exists, for placeholders. */
const scenes = (out: Printed[]): string => {
  const repo = makeRepo({ 'a.txt': lines(40), 'b.txt': lines(40), 'c.txt': lines(40), 'nb.md': lines(3) });
  const at = (scene: string, r: Run | string, where: Partial<Printed> = {}) =>
    out.push({ scene, cwd: repo.dir, env: repo.env, text: typeof r === 'string' ? r : texts(r), ...where });

  // The hook: a large Write denied with its commands, a small one noted with its undo.
  const pre = hook(repo, 'Write', { file_path: repo.path('a.txt'), content: lines(40, 'new') });
  at('hook deny', hso(pre)?.permissionDecisionReason ?? '');
  const staged = /Staged change ([0-9a-z]{8})/.exec(hso(pre)?.permissionDecisionReason ?? '')?.[1] ?? '';
  const small = { file_path: repo.path('b.txt'), content: lines(40).replace('line 2\n', 'two\n') };
  hook(repo, 'Write', small);
  repo.write('b.txt', small.content);
  at('PostToolUse note', hso(hook(repo, 'Write', small, { event: 'PostToolUse' }))?.additionalContext ?? '');
  // Asked of a person (FETTLE_REVIEW=human).
  const ask = hook(
    repo,
    'Write',
    { file_path: repo.path('c.txt'), content: lines(40, 'asked') },
    {
      env: { FETTLE_REVIEW: 'human' },
      toolUseId: 'toolu_ask',
    },
  );
  at('ask prompt', hso(ask)?.permissionDecisionReason ?? '');

  at('status', fettle(repo, ['status']));
  at('status from elsewhere, with -C', fettle(repo, ['-C', repo.dir, 'status'], { cwd: repo.home }), {
    cwd: repo.home,
  });
  at('review', fettle(repo, ['review', staged]));
  at('review, expired', fettle(repo, ['review', staged], { now: 1_750_000_000 + 3600 }));
  at('confirm, expired', fettle(repo, ['confirm', staged], { now: 1_750_000_000 + 3600 }));
  at(
    'confirm, agent shell, person review',
    fettle(repo, ['confirm', staged], { env: { CLAUDECODE: '1', FETTLE_REVIEW: 'human' } }),
  );
  repo.write('a.txt', lines(40).replace('line 30\n', 'mine 30\n'));
  at('confirm, conflict', fettle(repo, ['confirm', staged]));
  at('confirm --with-conflicts', fettle(repo, ['confirm', staged, '--with-conflicts']));
  at('confirm, already applied', fettle(repo, ['confirm', staged]));
  at('confirm, mistyped id', fettle(repo, ['confirm', mistyped(staged)]));
  const direct = directWrite(repo, 'nb.md', 'one\n');
  at('rollback', fettle(repo, ['rollback', direct]));
  at('rollback, nothing named', fettle(repo, ['rollback']));
  at('log --turn without a session', fettle(repo, ['rollback', '--turn', 'x']));
  const other = stageWrite(repo, 'b.txt', lines(40, 'other'));
  at('discard', fettle(repo, ['discard', other]));
  at('discard again', fettle(repo, ['discard', other]));
  at('doctor', fettle(repo, ['doctor']));
  at('info', fettle(repo, ['info']));
  at('read, next page', fettle(repo, ['read', 'a.txt', '--limit', '5']));
  at('unknown command', fettle(repo, ['stauts']));
  at('blocked hook: invalid configuration', hook(repo, 'Write', small, { env: { FETTLE_WRITE_FLOOR: 'x' } }).stderr);
  const home = repo.home;
  at('install, twice in two scopes', runCli(['install'], { cwd: repo.dir, env: repo.env }));
  at('install, twice in two scopes', runCli(['install', '--scope', 'local'], { cwd: repo.dir, env: repo.env }));
  at('install --scope project, refused', runCli(['install', '--scope', 'project'], { cwd: repo.dir, env: repo.env }));
  at('doctor, two scopes', fettle(repo, ['doctor'], { cwd: home }), { cwd: home });
  return staged;
};

/** The words of a command, checked to be this fettle: node and the CLI, or `fettle` where `fettle` is this one. */
const isThisFettle = (command: string, fettleOnPath: boolean): boolean => {
  const [first, second] = shellWords(command);
  if (fettleOnPath) return first === 'fettle';
  return first === process.execPath && second !== undefined && realpathSync(second) === realpathSync(CLI);
};

const runs = (command: string, p: Printed): ReturnType<typeof spawnSync> =>
  spawnSync('sh', ['-c', command], { cwd: p.cwd, env: p.env, encoding: 'utf8', input: '' });

/**
 * `fettle review --web` serves its page until the person is done: it runs (with no browser opened) until it has
 * printed the page's address, then is stopped, as a person closing it would.
 */
const serves = (command: string, p: Printed): boolean => {
  if (!/ review --web\b/.test(command)) return false;
  // exec: the timeout's SIGTERM must reach the server, not only the shell
  const r = spawnSync('sh', ['-c', `exec ${command} --no-open`], {
    cwd: p.cwd,
    env: p.env,
    encoding: 'utf8',
    input: '',
    timeout: 15_000,
  });
  assert.match(
    String(r.stdout),
    /^fettle review: http:\/\/127\.0\.0\.1:\d+\/\?token=/m,
    `${p.scene}: ${command}: ${r.stderr}`,
  );
  return true;
};

test('every command fettle prints runs as printed, from a shell with no fettle on PATH', () => {
  const printed: Printed[] = [];
  const id = scenes(printed);
  const seen = new Set<string>();
  for (const p of printed) {
    // install --scope project's refusal names the hook a fettle on PATH would install, `fettle hook`, as such: a
    // hook command, not one for this shell.
    const text = p.text.replace('the hook then runs: fettle hook)', 'the hook then runs: <hook>)');
    const bare = new RegExp(`(^|[^\\w/'-])fettle (${SUBCOMMANDS})\\b`).exec(text);
    assert.equal(bare, null, `${p.scene}: a bare \`fettle\` no shell here can find:\n${p.text}`);
    for (const command of commandsIn(p.text, SELF)) {
      assert.ok(isThisFettle(command, false), `${p.scene}: ${command}`);
      const runnable = filled(command, id);
      if (seen.has(`${p.cwd} ${runnable}`)) continue;
      seen.add(`${p.cwd} ${runnable}`);
      if (serves(runnable, p)) continue;
      const r = runs(runnable, p);
      assert.notEqual(r.status, 127, `${p.scene}: \`${runnable}\` was not found: ${r.stderr}`);
      assert.ok(r.status !== null && r.status <= 3, `${p.scene}: \`${runnable}\` exited ${r.status}: ${r.stderr}`);
      assert.doesNotMatch(String(r.stderr), /not found|No such file/, `${p.scene}: ${runnable}`);
    }
  }
  assert.ok(seen.size >= 25, `${seen.size} distinct commands ran: the scenes print fewer than they should`);
});

test('with this fettle on PATH, the commands are printed as plain `fettle …`, and run', () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const env = { ...withFettleOnPath(repo.env, repo.home), FETTLE_NOW: String(T0) };
  const pre = hook(repo, 'Write', { file_path: repo.path('a.txt'), content: lines(40, 'new') }, { env });
  const reason = hso(pre)?.permissionDecisionReason ?? '';
  const confirm = /^To apply it, run: (.+)$/m.exec(reason)?.[1] ?? assert.fail(reason);
  assert.match(confirm, /^fettle confirm [0-9a-z]{8}$/);
  const status = runCli(['status'], { cwd: repo.dir, env });
  assert.match(status.stdout, /apply with `fettle confirm <id>`, drop with `fettle discard <id>`/);
  const r = spawnSync('sh', ['-c', confirm], { cwd: repo.dir, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Applied /);
});

test('a fettle of another install earlier on PATH is not this one: the commands name this one in full', () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const elsewhere = tempDir();
  const env = withFettleOnPath(repo.env, elsewhere);
  // Another `fettle` (a different program) shadows the name.
  const shadow = join(elsewhere, 'shadow');
  spawnSync('sh', [
    '-c',
    `mkdir -p '${shadow}' && printf '#!/bin/sh\\nexit 9\\n' > '${shadow}/fettle' && chmod +x '${shadow}/fettle'`,
  ]);
  const shadowed = { ...env, PATH: `${shadow}${delimiter}${env.PATH}` };
  const r = runCli(['status'], { cwd: repo.dir, env: shadowed });
  assert.doesNotMatch(r.stdout, /`fettle /);
  const id = directWrite(repo, 'a.txt', lines(40).replace('line 1\n', 'x\n'), { env: shadowed });
  const undo = runCli(['rollback', id], { cwd: repo.dir, env: shadowed });
  assert.match(undo.stdout, new RegExp(`Undo this with \`${literal(SELF)} rollback [0-9a-z]{8}\``));
});

test("the plugin's hook prints its launcher's path, which runs in the agent's Bash and in the person's shell", () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  // As Claude Code runs the plugin's hook: CLAUDE_PLUGIN_ROOT set, the plugin's bin/ not on the hook's PATH.
  const env = { ...repo.env, CLAUDE_PLUGIN_ROOT: ROOT };
  const launcher = join(realpathSync(ROOT), 'bin', 'fettle');
  const pre = hook(repo, 'Write', { file_path: repo.path('a.txt'), content: lines(40, 'new') }, { env });
  const reason = hso(pre)?.permissionDecisionReason ?? '';
  const discard = /^To drop it, run: (.+)$/m.exec(reason)?.[1] ?? assert.fail(reason);
  assert.match(discard, new RegExp(`^${literal(launcher)} discard [0-9a-z]{8}$`));
  // The person's shell: no fettle on PATH (the plugin's bin/ is the agent's alone). It runs as printed.
  const person = spawnSync('sh', ['-c', discard], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });
  assert.equal(person.status, 0, person.stderr);
  assert.match(person.stdout, /^Discarded [0-9a-z]{8}; a\.txt was not touched\./);
  // The agent's Bash: the plugin's bin/ on PATH (Claude Code adds it), no other fettle.
  const bash = { ...repo.env, FETTLE_NOW: String(T0), PATH: `${join(ROOT, 'bin')}${delimiter}${repo.env.PATH}` };
  const again = hook(
    repo,
    'Write',
    { file_path: repo.path('a.txt'), content: lines(40, 'again') },
    { env, toolUseId: 'toolu_again' },
  );
  const confirm = /^To apply it, run: (.+)$/m.exec(hso(again)?.permissionDecisionReason ?? '')?.[1] ?? '';
  const r = spawnSync('sh', ['-c', confirm], { cwd: repo.dir, env: bash, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Applied [0-9a-z]{8} to a\.txt/);
  // From bin/fettle in the agent's Bash, the commands it prints are plain `fettle`: that shell finds it.
  const id = directWrite(repo, 'a.txt', lines(40, 'again').replace('again 1\n', 'x\n'));
  const rolled = spawnSync('sh', ['-c', `fettle rollback ${id}`], { cwd: repo.dir, env: bash, encoding: 'utf8' });
  assert.match(rolled.stdout, /Undo this with `fettle rollback [0-9a-z]{8}`/);
});

test("with fettle on PATH as well (npm install -g . in the plugin's clone), the plugin's hook prints plain `fettle`", () => {
  const repo = makeRepo({ 'a.txt': lines(40) });
  const env = { ...withFettleOnPath(repo.env, repo.home), CLAUDE_PLUGIN_ROOT: ROOT };
  const pre = hook(repo, 'Write', { file_path: repo.path('a.txt'), content: lines(40, 'new') }, { env });
  assert.match(hso(pre)?.permissionDecisionReason ?? '', /^To drop it, run: fettle discard [0-9a-z]{8}$/m);
});
