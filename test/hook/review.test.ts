// Human review mode, end to end: with FETTLE_REVIEW=human a large change goes to Claude Code's own permission
// prompt (`ask`) instead of a `fettle confirm` the model could run. The staged ref is written first; if the user
// allows, the tool writes and PostToolUse marks the change applied; if not, it stays pending.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { literal, SELF } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { fettle, hasTestTree, kinds, ok, openTestTree, statusJson } from '../helpers/stage';
import {
  assertSilent,
  blobAt,
  denied,
  directNote,
  editInput,
  fettleRefs,
  hook,
  hso,
  kindAt,
  landedText,
  newChange,
  notebookInput,
  recordedLine,
  scenario,
  show,
  toolCall,
  type Input,
} from '../helpers/tools';

const HUMAN = { FETTLE_REVIEW: 'human' };
const A30 = { 'a.txt': lines(30) };
const OLD = lines(30);
const NEXT = lines(15, 'LINE') + lines(15, 'line', 16);
const bigEdit = (repo: Repo): Input =>
  editInput(repo.path('a.txt'), lines(15).slice(0, -1), lines(15, 'LINE').slice(0, -1));

/** A PreToolUse `ask`: returns the reason shown to the user. */
const asked = (r: ReturnType<typeof hook>, id: string): string => {
  assert.deepEqual([r.code, hso(r)?.hookEventName, hso(r)?.permissionDecision], [0, 'PreToolUse', 'ask'], show(r));
  const reason = hso(r)?.permissionDecisionReason ?? '';
  assert.match(reason, new RegExp(`\\b${id}\\b`));
  // What a person reviews is exactly the proposed change, not HEAD against it (the file may have had edits).
  assert.ok(reason.includes(` review ${id}\``), reason);
  assert.ok(!reason.includes('git diff HEAD'), reason);
  assert.doesNotMatch(r.stdout, /"allow"/, 'never answers allow');
  return reason;
};

scenario(
  'human review: a large Edit asks; the ref is written as a proposal first; the file is untouched',
  A30,
  (repo) => {
    const known = fettleRefs(repo);
    const pre = hook(repo, 'Edit', bigEdit(repo), { env: HUMAN });
    const id = newChange(repo, known);
    const reason = asked(pre, id);
    assert.match(
      reason,
      /a\.txt \(\+15 -15 to a 30-line file; its 30 changed lines \(added \+ removed\) are more than 40% of the file's 30\)/,
    );
    assert.doesNotMatch(reason, /fettle confirm|confirm [0-9a-z]{8}/, 'no command for the model to run');
    // Read by the person in the prompt, or by the model when nobody can answer (claude -p): right for both.
    assert.match(reason, /so a person must approve it\./);
    assert.match(reason, /Allowing it writes the file; denying it leaves the file as it is\./);
    assert.match(
      reason,
      /If nobody approved it, nothing was written, and fettle drops the change when this turn ends: do not retry it; tell the user that this change to a\.txt needs their approval at a prompt\.$/,
    );
    assert.equal(kindAt(repo, `fettle/${id}`), 'proposal');
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), NEXT);
    assert.equal(
      repo.git('diff', '--name-only', 'HEAD', `fettle/${id}`),
      'a.txt',
      'reviewable with git diff HEAD fettle/<id>',
    );
    assert.equal(repo.read('a.txt').toString(), OLD);
    assert.equal(hasTestTree(repo, 'session-1'), false, 'no test tree until one is asked for');
  },
);

scenario(
  'human review, the user allows: the tool writes, PostToolUse marks it applied and leaves the test tree to gc',
  A30,
  (repo) => {
    const known = fettleRefs(repo);
    const run = toolCall(
      repo,
      'Edit',
      bigEdit(repo),
      () => {
        // The user reviewed it with `fettle test` before allowing: its test tree exists when the tool writes.
        const staged = newChange(repo, known);
        openTestTree(repo, staged);
        assert.ok(hasTestTree(repo, 'session-1'));
        writeFileSync(repo.path('a.txt'), NEXT);
      },
      { env: HUMAN, answer: 'allow' },
    );
    const id = newChange(repo, known);
    asked(run.pre, id);
    recordedLine(run.post, id);
    assert.deepEqual(kinds(repo, `fettle/${id}`), ['applied', 'proposal', 'before']);
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), NEXT);
    assert.equal(blobAt(repo, `fettle/${id}^^`, 'a.txt')?.toString(), OLD);
    assert.ok(hasTestTree(repo, 'session-1'), 'the hook removes no worktree: gc does');
    const status = statusJson(repo);
    assert.deepEqual([status.pending, status.recent.map((c) => [c.id, c.state])], [[], [[id, 'applied']]]);
  },
);

const AGENT_SHELL = { CLAUDECODE: '1' };

// [what staged it, the env of the confirm]: only a person may apply a change Claude Code asked them about.
for (const [label, mode, env] of [
  ['FETTLE_REVIEW=human', 'acceptEdits', HUMAN],
  ['default mode (asked, model review)', 'default', {}],
] as const) {
  scenario(`${label}: confirm from the agent's shell is refused; a person's terminal applies it`, A30, (repo) => {
    const known = fettleRefs(repo);
    const pre = hook(repo, 'Edit', bigEdit(repo), { env, mode });
    const id = newChange(repo, known);
    asked(pre, id);
    const r = fettle(repo, ['confirm', id], { env: { ...env, ...AGENT_SHELL } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^fettle: Change ${id} to a\\.txt needs a person's approval .*CLAUDECODE=1.*Nothing was written\\.$`,
        'm',
      ),
    );
    assert.match(
      r.stderr,
      new RegExp(
        `A person must run \`${literal(SELF)} confirm ${id}\` in their own terminal, after reviewing it with \`${literal(SELF)} review ${id}\``,
      ),
    );
    const json = JSON.parse(fettle(repo, ['confirm', id, '--json'], { env: { ...env, ...AGENT_SHELL } }).stdout);
    assert.equal(json.error.code, 'E_PERSON_REQUIRED');
    assert.equal(repo.read('a.txt').toString(), OLD);
    assert.deepEqual(
      statusJson(repo).pending.map((c) => [c.id, c.state]),
      [[id, 'pending']],
    );
    ok(fettle(repo, ['confirm', id], { env, terminal: true }));
    assert.equal(repo.read('a.txt').toString(), NEXT);
  });
}

scenario('FETTLE_REVIEW=human: even a change the model was told to confirm needs a person', A30, (repo) => {
  const known = fettleRefs(repo);
  denied(hook(repo, 'Edit', bigEdit(repo), { mode: 'acceptEdits' }));
  const id = newChange(repo, known);
  const r = fettle(repo, ['confirm', id], { env: { ...HUMAN, ...AGENT_SHELL } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /needs a person's approval \(FETTLE_REVIEW=human is set\)/);
  // Without FETTLE_REVIEW=human the model reviews it: the agent's shell confirms.
  ok(fettle(repo, ['confirm', id], { env: AGENT_SHELL }));
  assert.equal(repo.read('a.txt').toString(), NEXT);
});

scenario("a change that needs a person can still be discarded from the agent's shell", A30, (repo) => {
  const known = fettleRefs(repo);
  hook(repo, 'Edit', bigEdit(repo), { env: HUMAN });
  const id = newChange(repo, known);
  ok(fettle(repo, ['discard', id], { env: { ...HUMAN, ...AGENT_SHELL } }));
  assert.equal(repo.read('a.txt').toString(), OLD);
});

scenario(
  'human review, the user denies: nothing written, the change stays pending and can still be confirmed',
  A30,
  (repo) => {
    const known = fettleRefs(repo);
    const run = toolCall(repo, 'Edit', bigEdit(repo), () => assert.fail('the tool must not run'), {
      env: HUMAN,
      answer: 'deny',
    });
    const id = newChange(repo, known);
    asked(run.pre, id);
    assert.equal(run.post, undefined);
    assert.equal(repo.read('a.txt').toString(), OLD);
    assert.deepEqual(
      statusJson(repo).pending.map((c) => [c.id, c.state]),
      [[id, 'pending']],
    );
    ok(fettle(repo, ['confirm', id], { terminal: true }));
    assert.equal(repo.read('a.txt').toString(), NEXT);
  },
);

scenario(
  'human review of a notebook: allowed, what the tool wrote is recorded as applied',
  {
    'nb.ipynb': JSON.stringify(
      {
        cells: [
          {
            cell_type: 'code',
            id: 'c1',
            metadata: {},
            outputs: [],
            execution_count: null,
            source: lines(20).split(/(?<=\n)/),
          },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    ),
  },
  (repo) => {
    const landed = JSON.stringify(
      {
        cells: [
          { cell_type: 'code', id: 'c1', metadata: {}, outputs: [], execution_count: null, source: lines(20, 'X') },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    );
    const known = fettleRefs(repo);
    const input = notebookInput(repo.path('nb.ipynb'), { cellId: 'c1', source: lines(20, 'X') });
    const run = toolCall(repo, 'NotebookEdit', input, () => writeFileSync(repo.path('nb.ipynb'), landed), {
      env: HUMAN,
      answer: 'allow',
    });
    const id = newChange(repo, known);
    assert.match(asked(run.pre, id), /nb\.ipynb \(\+20 -20 to a \d+-line file;/);
    assert.match(recordedLine(run.post, id), directNote('nb.ipynb', `${landedText(landed)}, +20 -20 ~20`, id));
    assert.equal(kindAt(repo, `fettle/${id}`), 'applied');
    assert.equal(blobAt(repo, `fettle/${id}`, 'nb.ipynb')?.toString(), landed);
  },
);

scenario('human review leaves small, unsure and plan-mode calls as they are', A30, (repo) => {
  const small = toolCall(
    repo,
    'Edit',
    editInput(repo.path('a.txt'), 'line 1\n', 'one\n'),
    () => writeFileSync(repo.path('a.txt'), OLD.replace('line 1\n', 'one\n')),
    { env: HUMAN },
  );
  assertSilent(small.pre, 'a small change in human review');
  recordedLine(small.post, newChange(repo, []));
  assertSilent(
    hook(repo, 'Edit', editInput(repo.path('a.txt'), 'nowhere', 'x'), { env: HUMAN, toolUseId: 'toolu_02' }),
    'unsure',
  );
  const refs = fettleRefs(repo).length;
  assertSilent(hook(repo, 'Edit', bigEdit(repo), { env: HUMAN, mode: 'plan', toolUseId: 'toolu_03' }), 'plan mode');
  assert.equal(fettleRefs(repo).length, refs, 'plan mode records nothing');
});

scenario(
  'FETTLE_REVIEW=model (the default spelled out): a large change is denied for the model to confirm',
  A30,
  (repo) => {
    assert.match(
      denied(hook(repo, 'Edit', bigEdit(repo), { env: { FETTLE_REVIEW: 'model' } })),
      /^To apply it, run: .* confirm [0-9a-z]{8}$/m,
    );
  },
);

// [event, exit code]: PreToolUse blocks (nothing written); PostToolUse can only warn (the write happened).
for (const [event, code] of [
  ['PreToolUse', 2],
  ['PostToolUse', 1],
] as const) {
  scenario(`FETTLE_REVIEW=other on ${event}: exit ${code}, naming the variable`, A30, (repo) => {
    const r = hook(repo, 'Edit', bigEdit(repo), { event, env: { FETTLE_REVIEW: 'other' } });
    assert.deepEqual([r.code, r.stdout], [code, ''], show(r));
    assert.match(r.stderr, /FETTLE_REVIEW must be 'model' or 'human', got 'other'/);
    if (code === 2) assert.match(r.stderr, /nothing was written/);
    assert.deepEqual(fettleRefs(repo), []);
    assert.equal(repo.read('a.txt').toString(), OLD);
  });
}

test('FETTLE_REVIEW=other: commands refuse with exit 2 naming the variable', () => {
  const r = fettle(makeRepo(A30), ['info'], { env: { FETTLE_REVIEW: 'other' } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^fettle: FETTLE_REVIEW must be 'model' or 'human', got 'other'\./);
});

test('info names every tool fettle handles and the review mode in force', () => {
  const repo = makeRepo(A30);
  const out = ok(fettle(repo, ['info'])).stdout;
  for (const tool of ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Read'])
    assert.match(out, new RegExp(`^  ${tool} +\\S`, 'm'), tool);
  assert.match(out, new RegExp(`\`${literal(SELF)} install --read\``));
  assert.match(out, /^  FETTLE_REVIEW +model \(default\)$/m);
  assert.match(out, /default, auto: Claude Code asks you; dontAsk: a large write is\s+refused\./);
  assert.match(ok(fettle(repo, ['info'], { env: HUMAN })).stdout, /^  FETTLE_REVIEW +human \(from FETTLE_REVIEW\)$/m);
  assert.equal(JSON.parse(ok(fettle(repo, ['info', '--json'], { env: HUMAN })).stdout).review, 'human');
});
