// Who decided each change (Fettle-Decided-By): the model (a fettle command in the agent's shell, CLAUDECODE=1), a
// person at a terminal, a script (no terminal, no agent seen), a person at the agent's permission prompt (allowed:
// PostToolUse marks it applied; denied: settled at the end), a policy rule, or the thresholds. `show --json` and `log` show it; under FETTLE_REVIEW=human a
// confirm from the agent's shell is refused, for a changeset as for one change.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHook } from '../helpers/cli';
import { lines, tempDir, type Repo } from '../helpers/repo';
import { errorLine, fettle, ok, stageWrite, T0 } from '../helpers/stage';
import { editInput, hook, hso, scenario, show, toolCall } from '../helpers/tools';

const A = { 'a.txt': lines(30), 'b.txt': lines(30) };
const AGENT = { CLAUDECODE: '1' };
const decidedBy = (repo: Repo, id: string): string | null =>
  (JSON.parse(ok(fettle(repo, ['show', id, '--json'])).stdout) as { decidedBy: string | null }).decidedBy;
const bigEdit = (repo: Repo, file: string) =>
  editInput(repo.path(file), lines(15).slice(0, -1), lines(15, 'LINE').slice(0, -1));

scenario(
  'a model confirm, a terminal confirm and a prompt approval are told apart in show --json and log',
  A,
  (repo) => {
    const byModel = stageWrite(repo, 'a.txt', lines(30, 'model'));
    ok(fettle(repo, ['confirm', byModel], { env: AGENT }));
    const byPerson = stageWrite(repo, 'b.txt', lines(30, 'person'));
    ok(fettle(repo, ['confirm', byPerson], { terminal: true }));
    repo.write('d.txt', lines(30));
    const byScript = stageWrite(repo, 'd.txt', lines(30, 'script'));
    ok(fettle(repo, ['confirm', byScript]));
    repo.write('c.txt', lines(30));
    // The default mode asks a person; they allow it, the tool writes, PostToolUse marks it applied.
    const run = toolCall(
      repo,
      'Edit',
      bigEdit(repo, 'c.txt'),
      () => {
        repo.write('c.txt', lines(15, 'LINE') + lines(15, 'line', 16));
      },
      {
        mode: 'default',
        answer: 'allow',
      },
    );
    assert.equal(hso(run.pre)?.permissionDecision, 'ask', show(run.pre));
    const byPrompt = /staged as ([0-9a-z]{8})/.exec(hso(run.pre)?.permissionDecisionReason ?? '')?.[1] as string;
    assert.deepEqual(
      [decidedBy(repo, byModel), decidedBy(repo, byPerson), decidedBy(repo, byScript), decidedBy(repo, byPrompt)],
      ['model', 'person', 'script', 'prompt'],
    );
    const log = ok(fettle(repo, ['log'])).stdout;
    assert.match(log, /^ID .* STATE +DECIDED BY$/m);
    for (const [id, who] of [
      [byModel, 'model'],
      [byPerson, 'person'],
      [byScript, 'script'],
      [byPrompt, 'prompt'],
    ])
      assert.match(log, new RegExp(`^${id} .* applied +${who}$`, 'm'));
    const shown = ok(fettle(repo, ['show', byPrompt])).stdout;
    assert.match(shown, /^Decided: {2}a person, at the agent's permission prompt$/m);
  },
);

scenario('a proposal denied at the prompt is dropped at the end of the session, decided by the prompt', A, (repo) => {
  const pre = hook(repo, 'Edit', bigEdit(repo, 'a.txt'), { mode: 'default' });
  assert.equal(hso(pre)?.permissionDecision, 'ask');
  const id = /staged as ([0-9a-z]{8})/.exec(hso(pre)?.permissionDecisionReason ?? '')?.[1] as string;
  const end = runHook(
    {
      session_id: 'session-1',
      transcript_path: '/nonexistent',
      cwd: repo.dir,
      hook_event_name: 'SessionEnd',
      reason: 'other',
    },
    { cwd: repo.dir, env: { ...repo.env, FETTLE_NOW: String(T0) } },
  );
  assert.equal(end.code, 0, end.stderr);
  const row = JSON.parse(ok(fettle(repo, ['show', id, '--json'])).stdout) as { state: string; decidedBy: string };
  assert.deepEqual([row.state, row.decidedBy], ['discarded', 'prompt']);
});

scenario('discard, rollback and a direct write each say who decided', A, (repo) => {
  const staged = stageWrite(repo, 'a.txt', lines(30, 'x'));
  ok(fettle(repo, ['discard', staged], { env: AGENT }));
  assert.equal(decidedBy(repo, staged), 'model');
  const direct = /as ([0-9a-z]{8});/.exec(
    ok(fettle(repo, ['write', 'b.txt'], { input: lines(30).replace('line 1\n', 'one\n') })).stdout,
  )?.[1] as string;
  assert.equal(decidedBy(repo, direct), 'threshold');
  const undo = /Undo this with `.* rollback ([0-9a-z]{8})`/.exec(
    ok(fettle(repo, ['rollback', direct], { terminal: true })).stdout,
  )?.[1] as string;
  assert.equal(decidedBy(repo, undo), 'person');
  const again = /Undo this with `.* rollback ([0-9a-z]{8})`/.exec(ok(fettle(repo, ['rollback', undo])).stdout)?.[1];
  assert.equal(decidedBy(repo, again as string), 'script');
});

scenario('a direct write a policy rule decided names the rule', A, (repo) => {
  repo.write(
    '.fettle/policy.json',
    JSON.stringify({ version: 1, rules: [{ name: 'lock', path: 'a.txt', action: 'direct' }] }),
  );
  const id = /as ([0-9a-z]{8});/.exec(
    ok(fettle(repo, ['write', 'a.txt'], { input: lines(30, 'all new') })).stdout,
  )?.[1] as string;
  assert.equal(decidedBy(repo, id), 'policy:lock');
});

scenario(
  "FETTLE_REVIEW=human: a confirm from the agent's shell is refused, for a change and a changeset",
  A,
  (repo) => {
    const human = { FETTLE_REVIEW: 'human' };
    const one = stageWrite(repo, 'a.txt', lines(30, 'one'), { env: human });
    const refused = fettle(repo, ['confirm', one], { env: { ...human, ...AGENT } });
    assert.equal(refused.code, 1);
    assert.match(
      errorLine(refused),
      new RegExp(
        `^Change ${one} to a\\.txt needs a person's approval \\(FETTLE_REVIEW=human is set\\), and this command runs in Claude Code's shell \\(CLAUDECODE=1\\)\\. Nothing was written\\.$`,
      ),
    );
    const from = tempDir('fettle-gen-');
    mkdirSync(join(from, 'x'), { recursive: true });
    writeFileSync(join(from, 'b.txt'), lines(30, 'set'));
    writeFileSync(join(from, 'c.txt'), 'new\n');
    const set = /^Staged changeset ([0-9a-z]{8}),/m.exec(
      ok(fettle(repo, ['write', '--from', from, 'b.txt', 'c.txt'], { env: human }), 3).stdout,
    )?.[1] as string;
    const setRefused = fettle(repo, ['confirm', set], { env: { ...human, ...AGENT } });
    assert.equal(setRefused.code, 1);
    assert.match(setRefused.stderr, /needs a person's approval \(FETTLE_REVIEW=human is set\)/);
    assert.equal(repo.read('b.txt').toString(), lines(30), 'nothing of the set was written');
    ok(fettle(repo, ['confirm', set], { env: human, terminal: true }));
    const members = ok(fettle(repo, ['show', set, '--json'])).stdout;
    const changes = (JSON.parse(members) as { changes: { decidedBy: string; state: string }[] }).changes;
    assert.deepEqual(
      changes.map((c) => [c.state, c.decidedBy]),
      [
        ['applied', 'person'],
        ['applied', 'person'],
      ],
    );
  },
);
