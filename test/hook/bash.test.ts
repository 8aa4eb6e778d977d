// What a Bash command changes, recorded, reviewable and undoable like any write: the built CLI as the hook, real
// repositories, the command run by sh between PreToolUse and PostToolUse as the client runs it.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SLACK_NS } from '../../src/core/bash-changes';
import { agentBash, bashHook, changesetOf, fettleIn, openSnapshotFiles, shell } from '../helpers/bash';
import { runCli } from '../helpers/cli';
import { makeRepo, tempDir, userState, type Repo } from '../helpers/repo';

/** Every file of the work tree (not .git): its bytes (hex) and permission bits, or absent. */
const stateOf = (repo: Repo, paths: string[]): Record<string, string> =>
  Object.fromEntries(
    paths.map((p) => {
      const file = repo.path(p);
      if (!existsSync(file)) return [p, 'absent'];
      return [p, `${(statSync(file).mode & 0o777).toString(8)} ${readFileSync(file).toString('hex')}`];
    }),
  );

interface LogRow {
  id: string;
  path: string;
  changeset: string | null;
  tool: string | null;
  command: string | null;
  reason: string | null;
  state: string;
  session: string | null;
  agent?: string;
}
const logOf = (repo: Repo): LogRow[] =>
  (JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: LogRow[] }).changes;

const FIVE = ['one.txt', 'two.txt', 'three.txt', 'four.txt', 'five.sh'];

const fiveFileRepo = (): Repo => {
  const repo = makeRepo({
    'one.txt': 'alpha\nbeta\n',
    'two.txt': 'alpha two\n',
    'three.txt': 'to be removed\n',
    'five.sh': '#!/bin/sh\necho five\n',
  });
  repo.write('two.txt', 'alpha two\nedited by the user, never committed\n'); // dirty before the call
  return repo;
};

const FIVE_COMMAND =
  "sed -i 's/alpha/ALPHA/' one.txt two.txt && rm three.txt && printf 'made by the command\\n' > four.txt && chmod +x five.sh";

test('one Bash call changing five files (sed -i on two, one dirty; rm; a new file; chmod +x) is one changeset of 5; rollback restores all, the rollback of it returns to after the command', () => {
  const repo = fiveFileRepo();
  const before = stateOf(repo, FIVE);
  const user = userState(repo);
  const call = agentBash(repo, FIVE_COMMAND);
  assert.deepEqual([call.pre.code, call.pre.stdout, call.code, call.post.code], [0, '', 0, 0], call.post.stderr);
  const changeset = changesetOf(call.line);
  assert.equal(
    call.line,
    `fettle recorded 5 files changed by this command: 2 modified, 1 created, 1 deleted, 1 mode changed; undo with: ${call.line?.split('undo with: ')[1]}`,
  );
  const after = stateOf(repo, FIVE);
  assert.equal(after['five.sh']?.split(' ')[0], '755');

  const rows = logOf(repo);
  assert.equal(rows.length, 5);
  assert.deepEqual(rows.map((r) => [r.path, r.reason]).sort(), [
    ['five.sh', 'mode'],
    ['four.txt', 'created'],
    ['one.txt', 'modified'],
    ['three.txt', 'deleted'],
    ['two.txt', 'modified'],
  ]);
  for (const r of rows) {
    assert.equal(r.changeset, changeset);
    assert.equal(r.tool, 'Bash');
    assert.equal(r.agent, 'claude', 'Fettle-Agent: log --agent claude lists it');
    assert.equal(r.command, FIVE_COMMAND);
    assert.equal(r.session, 'session-1');
  }
  assert.equal(userState(repo), user, "the user's HEAD, refs, index and config are untouched");

  const back = fettleIn(repo, 'rollback', changeset);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(stateOf(repo, FIVE), before, 'byte for byte and mode for mode');
  const undo = /rollback ([0-9a-z]{8})`\.$/m.exec(back.stdout)?.[1] as string;
  assert.ok(undo, back.stdout);
  const redo = fettleIn(repo, 'rollback', undo);
  assert.equal(redo.code, 0, redo.stderr);
  assert.deepEqual(stateOf(repo, FIVE), after, 'the rollback of the rollback is the state after the command');
  assert.equal(userState(repo), user);
});

test('a dirty or untracked file whose previous bytes existed only on disk is restored exactly (binary too)', () => {
  const repo = makeRepo({ 'tracked.txt': 'committed\n' });
  repo.write('tracked.txt', 'only on disk\r\nwith CRLF and no final newline');
  repo.write('notes/untracked.bin', Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]), 0o755);
  const paths = ['tracked.txt', 'notes/untracked.bin'];
  const before = stateOf(repo, paths);
  const call = agentBash(
    repo,
    'printf x > tracked.txt && printf y > notes/untracked.bin && chmod -x notes/untracked.bin',
  );
  assert.match(call.line ?? '', /2 files changed by this command: 2 modified/);
  assert.equal(fettleIn(repo, 'rollback', changesetOf(call.line)).code, 0);
  assert.deepEqual(stateOf(repo, paths), before);
});

test("git mv by the agent, then rollback: the old path back, the new one gone, the user's index as the rollback found it", () => {
  const repo = makeRepo({ 'a.txt': 'moved around\n', 'keep.txt': 'k\n' });
  const call = agentBash(repo, 'git mv a.txt b.txt');
  assert.match(call.line ?? '', /1 renamed \(a\.txt -> b\.txt\)/);
  const indexFile = repo.path('.git/index');
  const index = readFileSync(indexFile);
  const staged = repo.git('diff', '--cached', '--name-status');
  const back = fettleIn(repo, 'rollback', changesetOf(call.line));
  assert.equal(back.code, 0, back.stderr);
  assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), 'moved around\n');
  assert.equal(existsSync(repo.path('b.txt')), false);
  assert.deepEqual(readFileSync(indexFile), index, 'fettle never writes the index');
  assert.equal(
    repo.git('diff', '--cached', '--name-status'),
    staged,
    'the move stays staged: git restore --staged undoes it',
  );
});

test('a read-only command records nothing and starts no git process; any other command does', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('a.txt', 'dirty\n');
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  const log = join(bin, 'git.log');
  const real = execFileSync('/bin/sh', ['-c', 'command -v git'], { env: repo.env }).toString().trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const env = { ...repo.env, PATH: `${bin}:${repo.env.PATH}` };
  const readers = [
    'ls -la',
    'cat a.txt | wc -l',
    'git log --oneline -3 2>/dev/null',
    'grep -rn x . && git status --short',
  ];
  for (const command of readers) {
    for (const event of ['PreToolUse', 'PostToolUse'] as const) {
      const r = bashHook({ command, cwd: repo.dir, event, toolUseId: `toolu_${command.length}` }, env);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], command);
    }
  }
  assert.equal(existsSync(log), false, 'no git process for a read-only command');
  assert.deepEqual(openSnapshotFiles(repo), []);
  const call = agentBash(repo, 'touch b.txt', { env });
  assert.match(readFileSync(log, 'utf8'), /status --porcelain=v2/, 'the shim sees a scanned command');
  assert.match(call.line ?? '', /created b\.txt/);
});

test('a command that changes nothing gets no line and leaves no record', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('dirty.txt', 'untracked\n');
  const call = agentBash(repo, 'node -e 0 && true');
  assert.deepEqual([call.post.code, call.post.stdout], [0, '']);
  assert.deepEqual(logOf(repo), []);
  assert.deepEqual(openSnapshotFiles(repo), [], 'the snapshot goes with the call');
});

test('a failed command that still changed files is recorded (PostToolUseFailure), and its line says so to the model', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const call = agentBash(repo, 'echo half > a.txt && false');
  assert.notEqual(call.code, 0);
  const out = call.post.json?.hookSpecificOutput;
  assert.equal(out?.hookEventName, 'PostToolUseFailure');
  assert.match(out?.additionalContext ?? '', /modified a\.txt; undo with/);
  const [row] = logOf(repo);
  const shown = fettleIn(repo, 'show', row?.id as string);
  assert.match(shown.stdout, /The command failed: Exit code 1\./);
});

test('ignored files are not recorded; files outside the repository are out of reach; a shell outside any repository records nothing', () => {
  const repo = makeRepo({ '.gitignore': 'node_modules/\n*.log\n', 'a.txt': 'a\n' });
  const outside = join(repo.home, 'outside.txt');
  writeFileSync(outside, 'outside\n');
  const call = agentBash(
    repo,
    `mkdir -p node_modules/x && echo m > node_modules/x/i.js && echo l > debug.log && echo o >> '${outside}' && echo b > a.txt`,
  );
  assert.match(call.line ?? '', /1 file changed by this command: modified a\.txt/);
  assert.deepEqual(
    logOf(repo).map((r) => r.path),
    ['a.txt'],
  );
  const away = tempDir();
  const elsewhere = agentBash(repo, 'echo x > y.txt', { cwd: away });
  assert.deepEqual([elsewhere.pre.code, elsewhere.post.code, elsewhere.post.stdout], [0, 0, '']);
  assert.deepEqual(openSnapshotFiles(repo), []);
});

test('show, review and log present a Bash change with its command line', () => {
  const repo = makeRepo({ 'a.txt': 'one\n' });
  const command = 'printf "two\\n" > a.txt # a comment with "quotes"';
  const call = agentBash(repo, command);
  const changeset = changesetOf(call.line);
  const [row] = logOf(repo);
  assert.equal(row?.command, command);
  const shown = fettleIn(repo, 'show', row?.id as string);
  assert.match(shown.stdout, /^Tool: {5}Bash \(tool use toolu_bash_1\)$/m);
  assert.ok(shown.stdout.includes(`Command:  ${command}`), shown.stdout);
  assert.match(shown.stdout, /^-one$/m);
  assert.match(shown.stdout, /^\+two$/m);
  const set = fettleIn(repo, 'show', changeset);
  assert.ok(set.stdout.includes(`Command:  ${command}`), set.stdout);
  const review = fettleIn(repo, 'review', changeset);
  assert.ok(review.stdout.includes(`Command: ${command}`), review.stdout);
  const message = repo.git('log', '-1', '--format=%B', `refs/fettle/${row?.id}`);
  assert.match(message, /^fettle: Bash modified a\.txt \(\+1 -1\)$/m);
  assert.ok(message.includes(`Fettle-Command: ${JSON.stringify(command)}`), 'quoted, one line');
  assert.match(message, /^Fettle-Tool: Bash$/m);
});

test('FETTLE_BASH=off: nothing is kept or recorded; an invalid value blocks the command and names the variable', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const off = agentBash(repo, 'echo b > a.txt', { env: { FETTLE_BASH: 'off' } });
  assert.deepEqual([off.pre.code, off.post.code, off.post.stdout], [0, 0, '']);
  assert.deepEqual(logOf(repo), []);
  const bad = bashHook({ command: 'echo c > a.txt', cwd: repo.dir }, { ...repo.env, FETTLE_BASH: 'maybe' });
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^fettle blocked this command because its configuration is invalid; nothing ran\. FETTLE_BASH must be 'on' or 'off'/,
  );
  const limit = bashHook({ command: 'echo c > a.txt', cwd: repo.dir }, { ...repo.env, FETTLE_BASH_MAX_FILES: '0' });
  assert.equal(limit.code, 2);
  assert.match(limit.stderr, /FETTLE_BASH_MAX_FILES must be a whole number of at least 1/);
});

test('a retried PreToolUse (the same tool_use_id) keeps one snapshot; the command is recorded once', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const first = bashHook({ command: 'echo b > a.txt', cwd: repo.dir }, repo.env);
  shell('echo b > a.txt', repo.dir, repo.env);
  const again = bashHook({ command: 'echo b > a.txt', cwd: repo.dir }, repo.env);
  assert.deepEqual([first.code, again.code], [0, 0]);
  const post = bashHook({ command: 'echo b > a.txt', cwd: repo.dir, event: 'PostToolUse' }, repo.env);
  assert.match(post.stdout, /modified a\.txt/);
  assert.equal(logOf(repo).length, 1);
  const late = bashHook({ command: 'echo b > a.txt', cwd: repo.dir, event: 'PostToolUse' }, repo.env);
  assert.deepEqual([late.code, late.stdout], [0, '']);
});

test("a dirty file unchanged since the last command's snapshot is not read and stored again by the next process: its pack is freshened", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('u.txt', `${'untracked bytes\n'.repeat(1000)}`);
  // Not racy: changed (mtime and ctime) more than the slack before the snapshot, so its stat can vouch for it later.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(SLACK_NS / 1_000_000n) + 200);
  const u = repo.git('hash-object', 'u.txt');
  const packDir = join(repo.dir, '.git', 'objects', 'pack');
  const packs = () => readdirSync(packDir).filter((f) => f.endsWith('.idx'));
  const holds = (idx: string) =>
    execFileSync('git', ['show-index'], { input: readFileSync(join(packDir, idx)), encoding: 'utf8' });
  assert.equal(bashHook({ command: 'echo b > a.txt', cwd: repo.dir, toolUseId: 'toolu_1' }, repo.env).code, 0);
  const [first] = packs();
  assert.match(holds(first as string), new RegExp(u), 'the snapshot stored the untracked file');
  const long = new Date('2020-01-01T00:00:00Z');
  utimesSync(join(packDir, (first as string).replace(/idx$/, 'pack')), long, long);
  shell('echo b > a.txt', repo.dir, repo.env); // a.txt is dirty now: the next snapshot stores it
  assert.equal(bashHook({ command: 'echo c > a.txt', cwd: repo.dir, toolUseId: 'toolu_2' }, repo.env).code, 0);
  const added = packs().filter((p) => p !== first);
  assert.equal(added.length, 1, 'the next snapshot stored the dirty a.txt');
  assert.doesNotMatch(holds(added[0] as string), new RegExp(u), 'u.txt was not stored again');
  const pack = join(packDir, (first as string).replace(/idx$/, 'pack'));
  assert.ok(statSync(pack).mtimeMs > Date.now() - 60_000, 'the pack holding it was freshened');
});

test('fuzzed Bash payloads (no command, a huge command, bytes that are not UTF-8) fail open with a one-line notice and write nothing', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('a.txt', 'dirty\n');
  const base = (event: string, command: unknown) =>
    JSON.stringify({
      session_id: 's',
      cwd: repo.dir,
      hook_event_name: event,
      tool_name: 'Bash',
      tool_input: command === undefined ? { description: 'x' } : { command },
      tool_use_id: 'toolu_fuzz',
    });
  const notUtf8 = (event: string) => {
    const [a = '', b = ''] = base(event, 'rm a.txt @@').split('@@');
    return Buffer.concat([Buffer.from(a), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(b)]);
  };
  const inputs: [string, (event: string) => string | Buffer, RegExp][] = [
    ['no command', (e) => base(e, undefined), /Bash command is missing or not a string/],
    ['a command that is a number', (e) => base(e, 42), /Bash command is missing or not a string/],
    ['a 2 MB command', (e) => base(e, `echo ${'x'.repeat(2 * 1024 * 1024)} > a.txt`), /characters long/],
    ['bytes that are not UTF-8', notUtf8, /not valid UTF-8/],
    ['a lone surrogate', (e) => base(e, 'rm a.txt \ud800'), /not valid UTF-8/],
  ];
  const tree = () => [readFileSync(repo.path('a.txt'), 'hex'), repo.git('for-each-ref', 'refs/fettle')].join();
  const start = tree();
  for (const [label, input, why] of inputs) {
    for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']) {
      const r = runCli(['hook'], { cwd: repo.dir, env: repo.env, input: input(event) });
      assert.equal(r.code, 1, `${label} ${event}: fails open (exit 1)\n${r.stderr}`);
      assert.equal(r.stdout, '', label);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, `${label}: one line`);
      assert.match(r.stderr, /^fettle: /);
      assert.match(r.stderr, why, label);
      assert.match(r.stderr, /This tool call was not protected by fettle\.$/m);
    }
  }
  assert.equal(tree(), start, 'nothing written: no file, no ref');
  assert.deepEqual(openSnapshotFiles(repo), []);
});
