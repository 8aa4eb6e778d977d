// A large write in every permission mode (docs/HOOK.md, "Permission modes"). PreToolUse runs before
// Claude Code's own permission decision, so staging must never turn a write the client would refuse, or ask a
// person about, into one the model can apply with `fettle confirm`: where Claude Code would ask, fettle asks
// (`ask`); where nobody can answer (dontAsk), the write is refused and nothing is staged.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { lines, type Repo } from '../helpers/repo';
import { fettle, ok, statusJson } from '../helpers/stage';
import { editInput, fettleRefs, hook, hso, scenario, show, type Env } from '../helpers/tools';

const A30 = { 'a.txt': lines(30) };
const big = (repo: Repo, file = 'a.txt') =>
  editInput(repo.path(file), lines(15).slice(0, -1), lines(15, 'X').slice(0, -1));
const small = (repo: Repo) => editInput(repo.path('a.txt'), 'line 3\n', 'three\n');

type Answer = 'deny+confirm' | 'ask' | 'refuse' | 'nothing';

/** What a large Edit of a file in the project gets: [mode, FETTLE_REVIEW, answer]. */
const TABLE: [string | undefined, 'model' | 'human', Answer][] = [
  ['default', 'model', 'ask'],
  ['acceptEdits', 'model', 'deny+confirm'],
  ['bypassPermissions', 'model', 'deny+confirm'],
  ['auto', 'model', 'ask'],
  ['dontAsk', 'model', 'refuse'],
  ['plan', 'model', 'nothing'],
  [undefined, 'model', 'deny+confirm'],
  ['someFutureMode', 'model', 'ask'],
  ['default', 'human', 'ask'],
  ['acceptEdits', 'human', 'ask'],
  ['bypassPermissions', 'human', 'ask'],
  ['auto', 'human', 'ask'],
  ['dontAsk', 'human', 'refuse'],
  ['plan', 'human', 'nothing'],
];

/** The answer a PreToolUse gave, checked for its shape. */
const answerOf = (r: ReturnType<typeof hook>): Answer => {
  assert.equal(r.code, 0, show(r));
  assert.doesNotMatch(r.stdout, /"allow"/, 'fettle never answers allow');
  if (r.stdout === '') return 'nothing';
  const d = hso(r);
  const reason = d?.permissionDecisionReason ?? '';
  if (d?.permissionDecision === 'ask') {
    assert.doesNotMatch(reason, /\bconfirm\b/, 'no command the model could run to apply it');
    return 'ask';
  }
  assert.equal(d?.permissionDecision, 'deny', show(r));
  if (/^To apply it, run: .* confirm [0-9a-z]{8}$/m.test(reason)) return 'deny+confirm';
  assert.match(reason, /^fettle refused this write: nothing was written to a\.txt and nothing was staged\./);
  assert.doesNotMatch(reason, /\bconfirm\b|\b[0-9a-z]{8}\b.*staged/, 'nothing to confirm');
  return 'refuse';
};

for (const [mode, review, expected] of TABLE) {
  scenario(`${mode ?? '(no mode)'} mode, FETTLE_REVIEW=${review}: a large Edit gets ${expected}`, A30, (repo) => {
    const env: Env = { FETTLE_REVIEW: review };
    // No mode: the field left out, as an agent that sends none.
    const r = hook(repo, 'Edit', big(repo), { env, mode: mode ?? null });
    assert.equal(answerOf(r), expected);
    assert.equal(repo.read('a.txt').toString(), lines(30), 'PreToolUse never writes the file');
    const refs = fettleRefs(repo);
    assert.equal(refs.length, expected === 'refuse' || expected === 'nothing' ? 0 : 1, refs.join(' '));
    // A small Edit is left to Claude Code's own decision in every mode (recorded, unless plan mode).
    const s = hook(repo, 'Edit', small(repo), { env, mode: mode ?? null, toolUseId: 'toolu_02' });
    assert.deepEqual([s.code, s.stdout], [0, ''], show(s));
  });
}

scenario('acceptEdits: a large Edit outside the project, or under .claude/, is asked about', A30, (repo) => {
  mkdirSync(repo.path('.claude'));
  repo.write('.claude/notes.md', lines(30));
  repo.write('sub/a.txt', lines(30));
  const cases: [string, string, Env, Answer][] = [
    ['in the project', 'sub/a.txt', {}, 'deny+confirm'],
    ['under .claude/', '.claude/notes.md', {}, 'ask'],
    ['outside CLAUDE_PROJECT_DIR', 'a.txt', { CLAUDE_PROJECT_DIR: repo.path('sub') }, 'ask'],
    ['inside CLAUDE_PROJECT_DIR', 'sub/a.txt', { CLAUDE_PROJECT_DIR: repo.path('sub') }, 'deny+confirm'],
  ];
  for (const [label, file, env, expected] of cases) {
    const r = hook(repo, 'Edit', big(repo, file), { env, toolUseId: `toolu_${label.replace(/\W/g, '')}` });
    assert.equal(
      hso(r)?.permissionDecision === 'ask'
        ? 'ask'
        : /confirm [0-9a-z]{8}$/m.test(hso(r)?.permissionDecisionReason ?? '')
          ? 'deny+confirm'
          : 'other',
      expected,
      `${label}: ${show(r)}`,
    );
  }
});

scenario('dontAsk: the refusal names the size and the way on, in plain words', A30, (repo) => {
  const r = hook(repo, 'Edit', big(repo), { mode: 'dontAsk' });
  const reason = hso(r)?.permissionDecisionReason ?? '';
  assert.match(
    reason,
    /\(\+15 -15 to a 30-line file; its 30 changed lines \(added \+ removed\) are more than 40% of the file's 30\)/,
  );
  assert.match(reason, /in dontAsk mode nobody can review a large change/);
  assert.match(reason, /Do not retry the Edit unchanged\.$/);
  assert.deepEqual(statusJson(repo).pending, [], 'nothing waits to be confirmed');
});

scenario('default mode: the asked change is marked for a person in status and its JSON', A30, (repo) => {
  hook(repo, 'Edit', big(repo), { mode: 'default' });
  const [pending] = statusJson(repo).pending;
  assert.equal(pending?.review, 'person');
  assert.match(ok(fettle(repo, ['status'])).stdout, new RegExp(`${pending?.id}.*\\(a person confirms\\)`));
  assert.match(
    repo.git('log', '-1', '--format=%(trailers:key=Fettle-Review,valueonly)', `fettle/${pending?.id}`),
    /^person$/,
  );
});
