// Format 2 policy rules on the hook path (docs/POLICY.md, "Rules over content, tools and the session"): a rule
// over the lines a write adds blocks it and the agent reads every matching rule's message in one answer; a rule
// on the Bash command line denies the command before it runs; the session's state log (reads, commands, writes)
// decides "edit *.xyz only after reading docs/filexyz.md" and "only after running the tests since the last
// write"; an `ask` rule asks a person, and the write they allow is recorded.
// Tier: slow, end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bashHook } from '../helpers/bash';
import { lines, type Repo } from '../helpers/repo';
import { denied, editInput, fettleRefs, hook, hso, readInput, scenario, show, toolCall } from '../helpers/tools';

const writePolicy = (repo: Repo, rules: unknown[]) =>
  repo.write('.fettle/policy.json', JSON.stringify({ version: 2, rules }));
const RULES = [
  { name: 'no-console', path: 'src/**', added: 'console\\.log', action: 'block', message: 'Use the logger.' },
  { name: 'no-debugger', added: '\\bdebugger\\b', action: 'block', message: 'No debugger statements.' },
  { name: 'todo', added: 'TODO', action: 'note', message: 'File an issue for each TODO.' },
  { name: 'no-force', tool: 'Bash', command: 'git push .*--force', action: 'block', message: 'Never force-push.' },
  { name: 'xyz-doc', path: '*.xyz', notRead: 'docs/filexyz.md', action: 'block', message: 'Read docs/filexyz.md.' },
  { name: 'release', path: 'release/**', notRanSinceWrite: 'npm test', action: 'ask', message: 'Tests not run.' },
];
const FILES = { 'src/a.ts': lines(20), 'file.xyz': lines(5), 'docs/filexyz.md': 'doc\n', 'release/notes': lines(5) };

scenario('lines a write adds: every matching rule speaks in one deny, the first block decides', FILES, (repo) => {
  writePolicy(repo, RULES);
  const edit = editInput(repo.path('src/a.ts'), 'line 3\n', 'console.log(1); debugger; // TODO\n');
  const reason = denied(hook(repo, 'Edit', edit));
  assert.match(reason, /^fettle blocked this write: nothing was written to src\/a\.ts\. Policy rule no-console /);
  assert.match(reason, /blocks it: Use the logger\. No debugger statements\. File an issue for each TODO\. Do not/);
  assert.equal(repo.read('src/a.ts').toString(), lines(20), 'nothing written');
  const clean = toolCall(
    repo,
    'Edit',
    editInput(repo.path('src/a.ts'), 'line 3\n', 'log.info(1)\n'),
    () => {
      repo.write('src/a.ts', lines(20).replace('line 3\n', 'log.info(1)\n'));
    },
    { toolUseId: 'toolu_02' },
  );
  assert.equal(clean.ran, true, show(clean.pre));
});

scenario('a Bash command a rule names is denied before it runs; others run', FILES, (repo) => {
  writePolicy(repo, RULES);
  const pre = bashHook({ command: 'git push origin main --force', cwd: repo.dir }, repo.env);
  assert.match(denied(pre), /^fettle blocked this command; nothing ran\. Policy rule no-force .* Never force-push\./);
  const other = bashHook({ command: 'git push origin main', cwd: repo.dir }, repo.env);
  assert.notEqual(hso(other)?.permissionDecision, 'deny', show(other));
});

scenario('editing file.xyz needs docs/filexyz.md read first in the session (the state log)', FILES, (repo) => {
  writePolicy(repo, RULES);
  const edit = editInput(repo.path('file.xyz'), 'line 2\n', 'two\n');
  assert.match(denied(hook(repo, 'Edit', edit)), /Policy rule xyz-doc .* Read docs\/filexyz\.md\./);
  hook(repo, 'Read', readInput(repo.path('docs/filexyz.md')));
  const write = () => {
    repo.write('file.xyz', lines(5).replace('line 2\n', 'two\n'));
  };
  const run = toolCall(repo, 'Edit', edit, write, { toolUseId: 'toolu_02' });
  assert.equal(run.ran, true, show(run.pre));
  const log = join(repo.dir, '.git', 'fettle', 'state', 'session-1.jsonl');
  const entries = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { t: string; p?: string });
  assert.deepEqual(
    entries.map((e) => [e.t, e.p]),
    [
      ['Read', 'docs/filexyz.md'],
      ['Edit', 'file.xyz'],
    ],
  );
  assert.equal(statSync(log).mode & 0o077, 0, "the log is as private as fettle's folder");
});

scenario(
  'an ask rule asks a person until the tests ran since the last write; an allowed write is recorded',
  FILES,
  (repo) => {
    writePolicy(repo, RULES);
    const edit = editInput(repo.path('release/notes'), 'line 1\n', 'one\n');
    const write = () => {
      repo.write('release/notes', lines(5).replace('line 1\n', 'one\n'));
    };
    const asked = toolCall(repo, 'Edit', edit, write, { answer: 'allow' });
    assert.equal(hso(asked.pre)?.permissionDecision, 'ask', show(asked.pre));
    assert.match(hso(asked.pre)?.permissionDecisionReason ?? '', /^fettle: policy rule release .* Tests not run\.$/);
    assert.equal(fettleRefs(repo).length, 1, 'the previous bytes were recorded before the person was asked');
    bashHook({ command: 'npm test', cwd: repo.dir, event: 'PostToolUse' }, repo.env);
    const again = hook(repo, 'Edit', editInput(repo.path('release/notes'), 'line 2\n', 'two\n'), { toolUseId: 't2' });
    assert.equal(hso(again)?.permissionDecision, undefined, show(again));
  },
);
