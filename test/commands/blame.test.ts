// `fettle blame <file>`: the columns a person reads, a file git does not track, a file that is not there, and bytes
// that are not UTF-8 compared as bytes.
// Tier: slow, agent writes and blames through the built CLI, each a process (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { agentWrite, runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

const blame = (repo: Repo, ...args: string[]) => runCli(['blame', ...args], { cwd: repo.dir, env: repo.env });

test('each line: the agent with its session, tool and change; the commit with its author and date; or not committed', () => {
  const repo = makeRepo({ 'a.txt': 'one\ntwo\n' });
  const w = agentWrite(
    { cwd: repo.dir, file: repo.path('a.txt'), content: 'one\nagent\ntwo\n' },
    repo.env,
    writeFileSync,
  );
  assert.ok(w.written);
  writeFileSync(repo.path('a.txt'), 'one\nagent\ntwo\nmine\n');
  const r = blame(repo, 'a.txt');
  assert.equal(r.code, 0, r.stderr);
  const commit = repo.git('rev-parse', '--short=8', 'HEAD');
  const change = /Write (\w{8})/.exec(r.stdout)?.[1] ?? '';
  const who = [
    `${commit} Test User 2023-11-14`,
    `claude s:session- Write ${change}`,
    `${commit} Test User 2023-11-14`,
    '(not committed)',
  ];
  const width = Math.max(...who.map((w) => w.length));
  const text = ['one', 'agent', 'two', 'mine'];
  assert.equal(r.stdout, who.map((w, i) => `${w.padEnd(width)} ${i + 1}) ${text[i]}\n`).join(''));
});

test('a file git does not track: the agent lines are the agent’s, the rest not committed; bytes compare as bytes', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const w = agentWrite({ cwd: repo.dir, file: repo.path('new.txt'), content: 'x\ny\n' }, repo.env, writeFileSync);
  assert.ok(w.written);
  // A byte that is not UTF-8 and decodes to U+FFFD, as the agent's line would be by its text.
  writeFileSync(repo.path('new.txt'), Buffer.concat([Buffer.from('x\ny\n'), Buffer.from([0xff, 0x0a])]));
  const r = blame(repo, 'new.txt', '--json');
  assert.equal(r.code, 0, r.stderr);
  const lines = JSON.parse(r.stdout).lines as { by: string; agent?: string; git: unknown }[];
  assert.deepEqual(
    lines.map((l) => [l.by, l.agent ?? null, l.git]),
    [
      ['agent', 'claude', null],
      ['agent', 'claude', null],
      ['person', null, null],
    ],
  );
});

test('a file that is not there is E_NOT_FOUND', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = blame(repo, 'nope.txt', '--json');
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, 'E_NOT_FOUND');
});
