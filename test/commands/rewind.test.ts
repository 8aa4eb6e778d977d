// `fettle rewind`, with hand-fed hook payloads: a Claude Code session of two turns (its prompts sent with the path
// of a transcript written in the client's shapes), then what --dry-run, --json, --files and --conversation do.
// The refusals: rewind-refusals.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { makeRepo } from '../helpers/repo';
import { A0, A1, files, LATER, rewind, S, twoTurns } from '../helpers/rewind';

test('one session: --dry-run (JSON and text) and --conversation change nothing; both, then --files, rewind', () => {
  const repo = twoTurns();
  const dry = rewind(repo, '--turn', '2', '--dry-run', '--json');
  assert.equal(dry.code, 0, dry.stderr);
  const out = JSON.parse(dry.stdout);
  assert.deepEqual(out.files.files.map((f: { path: string }) => f.path).sort(), ['a.txt', 'b.txt']);
  assert.equal(out.session, S);
  const plan = out.conversation;
  assert.deepEqual([plan.rewound, plan.resumeAt, plan.prompt, plan.clientVersion], [true, 'a1', 'two', '2.1.330']);
  const line = `claude --resume ${S} --fork-session --session-id ${plan.fork} --resume-session-at a1 -p two`;
  assert.equal(plan.command, line);

  const text = rewind(repo, '--turn', '1', '--dry-run').stdout;
  assert.match(text, /^Dry run: rewinding session sess-rewind-1 to where turn 1 began; nothing was changed\./);
  assert.match(text, /rolling back would change 2 files/);
  assert.match(text, /keeps nothing, as turn 1 began the conversation/);
  assert.match(text, /\n {2}claude --session-id [0-9a-f-]{36} -p one\n/);

  const only = JSON.parse(rewind(repo, '--turn', '2', '--conversation', '--json').stdout);
  assert.deepEqual([only.files, only.conversation.rewound], [null, true]);
  assert.deepEqual(files(repo), LATER);

  const both = rewind(repo, '--turn', '2');
  assert.equal(both.code, 0, both.stderr);
  assert.deepEqual(files(repo), [A1, '']);
  assert.match(both.stdout, /^Rewound session sess-rewind-1 to where turn 2 began\.\nFiles: Rolled back 2 changes/);
  assert.match(both.stdout, /--resume-session-at a1 -p two\n/);
  const undo = /Undo this with `[^`]* rollback (\S+)`/.exec(both.stdout)?.[1] as string;
  assert.equal(runCli(['rollback', undo], { cwd: repo.dir, env: repo.env }).code, 0);
  assert.deepEqual(files(repo), LATER);

  const filesOnly = JSON.parse(rewind(repo, '--turn', '2', '--files', '--json').stdout);
  assert.deepEqual([filesOnly.conversation, filesOnly.files.changes.length], [null, 2]);
  assert.deepEqual(files(repo), [A1, '']);
});

const USAGE: [string, string[], RegExp][] = [
  ['no turn', [], /needs --turn <n>/],
  ['a turn that is no number', ['--turn', 'x'], /--turn takes a turn number/],
  ['two scopes', ['--turn', '1', '--files', '--conversation'], /one of --files, --conversation and --both/],
];
test('usage errors', () => {
  const repo = makeRepo({ 'a.txt': A0 });
  for (const [what, args, message] of USAGE) {
    const r = rewind(repo, ...args);
    assert.deepEqual([what, r.code], [what, 2]);
    assert.match(r.stderr, message);
  }
});
