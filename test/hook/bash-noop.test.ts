// What a Bash command that changes nothing costs (docs/PERFORMANCE.md, "Bash commands"): one `git status` before
// and one after, and no file of fettle's written by its PostToolUse beyond removing the call's own snapshot and
// marker. Through the command hook and through the resident server.
// Tier: slow, waits out the racy window and starts a resident server (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SLACK_NS } from '../../src/core/bash-changes';
import { bashPayload, bashHook, openSnapshotFiles, shell } from '../helpers/bash';
import { makeRepo, tempDir, type Repo } from '../helpers/repo';
import { callResident, setUpResident } from '../helpers/resident';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A work tree in use (tracked files modified, untracked ones). */
const repoInUse = (): Repo => {
  const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'src/c.txt': 'c\n' });
  repo.write('a.txt', 'a, modified\n');
  repo.write('src/c.txt', 'c, modified\n');
  repo.write('new.txt', 'untracked\n');
  return repo;
};

/** Both tests' repositories, made at once and then left older than the racy window (one wait for both). */
const repos = (async () => {
  const made = [repoInUse(), repoInUse()] as const;
  await sleep(Number(SLACK_NS / 1_000_000n) + 200);
  return made;
})();

/** The git command of a line the shim logged: what follows the options before it. */
const commandOf = (line: string): string | undefined => {
  const words = line.split(' ');
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '-c') i++;
    else if (!words[i]?.startsWith('-')) return words[i];
  }
  return undefined;
};

const fettleDir = (repo: Repo, name: string): string => join(repo.dir, '.git', 'fettle', name);
const filesIn = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);
const stamp = (file: string): string => {
  const s = statSync(file, { bigint: true });
  return `${s.ino} ${s.mtimeNs}`;
};

test('a command that changes nothing leaves no marker and does not write the stat cache again', async () => {
  const [repo] = await repos;
  const noOp = (id: string) => {
    for (const event of ['PreToolUse', 'PostToolUse'] as const) {
      if (event === 'PostToolUse') assert.equal(shell('node -e 0', repo.dir, repo.env).status, 0);
      const r = bashHook({ command: 'node -e 0', cwd: repo.dir, event, toolUseId: id }, repo.env);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `${event} ${id}`);
    }
  };
  noOp('toolu_noop_1');
  const [cache] = filesIn(fettleDir(repo, 'bash-cache'));
  assert.ok(cache, 'the first snapshot keeps the dirty files in the stat cache');
  const before = stamp(join(fettleDir(repo, 'bash-cache'), cache));
  noOp('toolu_noop_2');
  assert.equal(stamp(join(fettleDir(repo, 'bash-cache'), cache)), before, 'the cache held this already');
  assert.deepEqual(filesIn(fettleDir(repo, 'bash-flight')), [], 'no marker of a call that changed nothing');
  assert.deepEqual(openSnapshotFiles(repo), []);
  // A call that changes files still says so, and its marker stays for the calls it overlapped.
  bashHook({ command: 'echo x > b.txt', cwd: repo.dir, event: 'PreToolUse', toolUseId: 'toolu_w' }, repo.env);
  assert.equal(shell('echo x > b.txt', repo.dir, repo.env).status, 0);
  const post = bashHook(
    { command: 'echo x > b.txt', cwd: repo.dir, event: 'PostToolUse', toolUseId: 'toolu_w' },
    repo.env,
  );
  assert.match(post.json?.hookSpecificOutput?.additionalContext ?? '', /modified b\.txt/);
  assert.equal(filesIn(fettleDir(repo, 'bash-flight')).length, 1);
});

test('through the resident server, a command that changes nothing runs one git status before and one after, and no other git', async () => {
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  const log = join(bin, 'git.log');
  const real = execFileSync('/bin/sh', ['-c', 'command -v git']).toString().trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const PATH = `${bin}:${process.env.PATH}`;
  const setup = setUpResident({ PATH });
  const [, repo] = await repos;
  const env = { ...repo.env, PATH };
  const call = (id: string): void => {
    for (const event of ['PreToolUse', 'PostToolUse'] as const) {
      const input = JSON.stringify(bashPayload({ command: 'node -e 0', cwd: repo.dir, event, toolUseId: id }));
      const r = callResident(setup, input, { cwd: repo.dir, env });
      assert.deepEqual([r.code, r.stdout.trim(), r.stderr], [0, '', ''], `${event} ${id}`);
    }
  };
  call('toolu_first'); // the server finds the repository and reads the dirty files once
  writeFileSync(log, '');
  call('toolu_second');
  const commands = readFileSync(log, 'utf8').split('\n').filter(Boolean).map(commandOf);
  assert.deepEqual(commands, ['status', 'status']);
});
