// `fettle hook --agent cursor`, end to end, with the payloads of Cursor's documented hooks schema (Cursor does
// not run here): afterFileEdit recorded when the edit can be undone to find the previous bytes, said plainly
// when not; beforeSubmitPrompt answered as Cursor wants; any other event fails open with one line.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { runCli, SELF, type Run } from '../../helpers/cli';
import { lines, makeRepo, type Repo } from '../../helpers/repo';

const base = (repo: Repo, event: string) => ({
  hook_event_name: event,
  conversation_id: 'cursor-conversation-1',
  generation_id: 'gen-1',
  workspace_roots: [repo.dir],
  cursor_version: '2.0.77',
});

const hook = (repo: Repo, input: unknown, args = ['hook', '--agent', 'cursor']): Run =>
  runCli(args, { cwd: repo.dir, env: repo.env, input: JSON.stringify(input) });
const log = (repo: Repo) => JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes;
const show = (r: Run) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

test('afterFileEdit whose edits can be undone: recorded as a direct change by cursor; rollback restores the bytes', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  writeFileSync(repo.path('a.txt'), lines(30).replace('line 3\n', 'LINE 3\n').replace('line 9\n', 'LINE 9\n'));
  const edits = [
    { old_string: 'line 3\n', new_string: 'LINE 3\n' },
    { old_string: 'line 9\n', new_string: 'LINE 9\n' },
  ];
  const r = hook(repo, { ...base(repo, 'afterFileEdit'), file_path: repo.path('a.txt'), edits });
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '{}', ''], show(r));
  const [change] = log(repo);
  assert.deepEqual(
    [change.path, change.tier, change.state, change.agent, change.added],
    ['a.txt', 'direct', 'applied', 'cursor', 2],
  );
  assert.equal(runCli(['rollback', change.id], { cwd: repo.dir, env: repo.env }).code, 0);
  assert.equal(repo.read('a.txt').toString(), lines(30));
});

test('afterFileEdit of a new file: recorded, and rollback removes it', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  writeFileSync(repo.path('n.txt'), 'new\n');
  const r = hook(repo, {
    ...base(repo, 'afterFileEdit'),
    file_path: repo.path('n.txt'),
    edits: [{ old_string: '', new_string: 'new\n' }],
  });
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(
    log(repo).map((c: { path: string; reason: string }) => `${c.path} ${c.reason}`),
    ['n.txt new-file'],
  );
});

// [label, what is on disk, edits]
const UNKNOWN: [string, string, { old_string: string; new_string: string }[]][] = [
  ['what it wrote occurs twice', 'x\nx\n', [{ old_string: 'y\n', new_string: 'x\n' }]],
  ['the file no longer holds what it wrote', 'z\n', [{ old_string: 'y\n', new_string: 'x\n' }]],
  ['it removed text', 'a\n', [{ old_string: 'b\n', new_string: '' }]],
];
for (const [label, disk, edits] of UNKNOWN)
  test(`afterFileEdit when ${label}: nothing recorded, one line says why (exit 1)`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    writeFileSync(repo.path('a.txt'), disk);
    const r = hook(repo, { ...base(repo, 'afterFileEdit'), file_path: repo.path('a.txt'), edits });
    assert.equal(r.code, 1, show(r));
    assert.match(
      r.stderr,
      /^fettle: could not tell what a\.txt held before Cursor's edit \(.+\); this edit was not recorded\.\n$/,
    );
    assert.deepEqual(log(repo), []);
  });

test('beforeSubmitPrompt: answered {"continue":true}; another event Cursor sends (a Claude Code hook it runs) fails open with one line', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const prompt = hook(repo, { ...base(repo, 'beforeSubmitPrompt'), prompt: 'do it' });
  assert.deepEqual([prompt.code, prompt.stdout], [0, '{"continue":true}'], show(prompt));
  // An event fettle registers no hook on (Cursor's newer preToolUse), even with --agent cursor.
  const input = {
    ...base(repo, 'preToolUse'),
    tool_name: 'Write',
    tool_input: { file_path: repo.path('a.txt'), content: 'x' },
  };
  const pre = hook(repo, input);
  assert.equal(pre.code, 1, show(pre));
  assert.match(
    pre.stderr,
    /^fettle: Cursor sent "preToolUse", which fettle does not handle; .* This call was not protected by fettle\.\n$/,
  );
  // Cursor running Claude Code's hooks (`fettle hook`, no --agent): told apart as Cursor's, and let through.
  const claudes = hook(repo, input, ['hook']);
  assert.equal(claudes.code, 1, show(claudes));
  assert.match(
    claudes.stderr,
    /^fettle: this hook input comes from Cursor, but its hook runs fettle without --agent cursor, which answers Claude Code only; this tool call was not protected by fettle\. Run `.+ install --agent cursor`\.\n$/,
  );
  assert.equal(repo.read('a.txt').toString(), 'a\n');
  assert.deepEqual(log(repo), []);
});

test('policy: an afterFileEdit of a path under an ignore rule is not recorded; under a block rule it is recorded and reported; each record names what decided it', () => {
  const rules = [
    { path: 'dist/', action: 'ignore' },
    { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
  ];
  const repo = makeRepo({
    '.fettle/policy.json': JSON.stringify({ version: 1, rules }),
    'dist/app.js': 'old\n',
    '.env': 'KEY=1\n',
    'a.txt': 'a\n',
  });
  const edit = (path: string, from: string, to: string) => {
    writeFileSync(repo.path(path), repo.read(path).toString().replace(from, to));
    return hook(repo, {
      ...base(repo, 'afterFileEdit'),
      file_path: repo.path(path),
      edits: [{ old_string: from, new_string: to }],
    });
  };
  const ignored = edit('dist/app.js', 'old', 'new');
  assert.deepEqual([ignored.code, ignored.stdout, ignored.stderr], [0, '{}', ''], show(ignored));
  assert.deepEqual(log(repo), [], 'nothing recorded under the ignore rule');
  const blocked = edit('.env', 'KEY=1', 'KEY=2');
  assert.deepEqual([blocked.code, blocked.stdout], [1, '{}'], 'a notice (exit 1): the edit stands');
  const [env] = log(repo);
  assert.deepEqual([env.path, env.decidedBy], ['.env', 'policy:no-env']);
  assert.equal(
    blocked.stderr,
    `fettle: Cursor edited .env, which policy rule no-env (".env*" in .fettle/policy.json) blocks the agent from writing; Cursor runs no hook before an edit, so fettle could not stop it. It is recorded: undo it with \`${SELF} rollback ${env.id}\`.\n`,
  );
  const plain = edit('a.txt', 'a', 'b');
  assert.deepEqual([plain.code, plain.stderr], [0, ''], show(plain));
  assert.equal(log(repo)[0].decidedBy, 'threshold');
});
