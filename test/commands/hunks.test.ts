// Hunks as the unit of a decision, end to end through the built CLI against real repositories: `review` numbers
// them, `confirm --hunks` writes exactly the base plus the chosen ones and stages the rest as a change of its own,
// `discard --hunks` drops some and leaves the rest pending, `rollback --hunks` undoes some of a change that landed,
// merged with what the file holds now; the person's words reach the agent session that made the change, once.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHook } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';
import { fails, fettle, keepsUserState, ok, stageWrite, statusJson } from '../helpers/stage';

const SESSION = 's-hunks';
/** Small thresholds, so three separate one-line edits of a 60-line file are staged. */
const ENV = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5', FETTLE_SESSION: SESSION };
const rows = (n: number, word = 'line') => Array.from({ length: n }, (_, k) => `${word} ${k + 1}`);
const BASE = `${rows(60).join('\n')}\n`;
const edited = (at: number[]) =>
  `${rows(60)
    .map((l, k) => (at.includes(k + 1) ? l.toUpperCase() : l))
    .join('\n')}\n`;
/** Hunks 1, 2 and 3 edit lines 3, 30 and 55. */
const PROPOSAL = edited([3, 30, 55]);

const staged = (): { repo: Repo; id: string } => {
  const repo = makeRepo({ 'f.txt': BASE });
  return { repo, id: stageWrite(repo, 'f.txt', PROPOSAL, { env: ENV }) };
};
const pending = (repo: Repo) => statusJson(repo, { env: ENV }).pending;
const run = (repo: Repo, args: string[]) => fettle(repo, args, { env: ENV });

test('review numbers the hunks, and --json lists them in the order printed', () => {
  const { repo, id } = staged();
  const text = ok(run(repo, ['review', id])).stdout;
  assert.deepEqual(
    [...text.matchAll(/^@@ .*(hunk \d of 3)$/gm)].map((m) => m[1]),
    ['hunk 1 of 3', 'hunk 2 of 3', 'hunk 3 of 3'],
  );
  const json = JSON.parse(ok(run(repo, ['review', id, '--json'])).stdout) as { hunks: Record<string, unknown>[] };
  assert.deepEqual(
    json.hunks.map((h) => [h.index, h.oldStart, h.oldLines, h.newStart, h.newLines]),
    [
      [1, 1, 6, 1, 6],
      [2, 27, 7, 27, 7],
      [3, 52, 7, 52, 7],
    ],
  );
  assert.ok(json.hunks.every((h) => typeof h.header === 'string'));
});

test('confirm --hunks 1,3 writes exactly the base plus hunks 1 and 3; hunk 2 stays pending as a new change', () => {
  const { repo, id } = staged();
  keepsUserState(repo, () => {
    const r = ok(run(repo, ['confirm', id, '--hunks', '1,3']));
    assert.match(r.stdout, new RegExp(`^Applied hunks 1, 3 \\(of 3\\) of change ${id} to f\\.txt \\(\\+2 -2\\)\\.`));
    assert.match(
      r.stdout,
      /Hunk 2 stays pending as change ([0-9a-z]{8}): `.* review \1`\. Undo this with `.* rollback/,
    );
  });
  assert.equal(repo.read('f.txt').toString(), edited([3, 55]));
  const [rest] = pending(repo);
  assert.ok(rest && rest.id !== id);
  assert.equal(repo.git('show', '-s', '--format=%(trailers:key=Fettle-Split-From,valueonly)', `fettle/${rest.id}`), id);
  assert.equal(repo.git('show', '-s', '--format=%(trailers:key=Fettle-Hunks,valueonly)', `fettle/${id}`), '1,3 of 3');
  // What is left is exactly hunk 2, over what was written.
  ok(run(repo, ['confirm', rest.id]));
  assert.equal(repo.read('f.txt').toString(), PROPOSAL);
});

test('confirm --hunks merges with edits made on disk since, and the rest still applies on top', () => {
  const { repo, id } = staged();
  repo.write('f.txt', BASE.replace('line 40\n', 'mine 40\n'));
  ok(run(repo, ['confirm', id, '--hunks', '2']));
  assert.equal(repo.read('f.txt').toString(), edited([30]).replace('line 40\n', 'mine 40\n'));
  const [rest] = pending(repo);
  ok(run(repo, ['confirm', rest?.id ?? '']));
  assert.equal(repo.read('f.txt').toString(), PROPOSAL.replace('line 40\n', 'mine 40\n'));
});

test('discard --hunks 2 drops hunk 2 and leaves 1 and 3 pending; the file is not touched', () => {
  const { repo, id } = staged();
  const r = ok(run(repo, ['discard', id, '--hunks', '2']));
  assert.match(
    r.stdout,
    new RegExp(`^Dropped hunk 2 \\(of 3\\) of change ${id}; f\\.txt was not touched\\. Hunks 1, 3`),
  );
  assert.equal(repo.read('f.txt').toString(), BASE);
  const [rest] = pending(repo);
  ok(run(repo, ['confirm', rest?.id ?? '']));
  assert.equal(repo.read('f.txt').toString(), edited([3, 55]));
});

test('every hunk named decides the whole change', () => {
  const { repo, id } = staged();
  assert.match(ok(run(repo, ['confirm', id, '--hunks', '1-3'])).stdout, /every hunk was named/);
  assert.equal(repo.read('f.txt').toString(), PROPOSAL);
  assert.deepEqual(pending(repo), []);
});

const refusals: [string, string[], RegExp, number][] = [
  ['a hunk past the last', ['--hunks', '4'], /has 3 hunks, so there is no hunk 4/, 2],
  ['a malformed list', ['--hunks', '1;2'], /'1;2' is not a hunk number/, 2],
  ['with --all', ['--all', '--hunks', '1'], /name exactly one change id/, 2],
];
for (const [name, args, want, code] of refusals)
  test(`confirm --hunks refuses ${name}, and nothing is written`, () => {
    const { repo, id } = staged();
    fails(run(repo, ['confirm', ...(args.includes('--all') ? [] : [id]), ...args]), want, code);
    assert.equal(repo.read('f.txt').toString(), BASE);
    assert.equal(pending(repo).length, 1);
  });

test('confirm --hunks from the agent shell under FETTLE_REVIEW=human is refused: a person decides', () => {
  const { repo, id } = staged();
  const r = fettle(repo, ['confirm', id, '--hunks', '1'], { env: { ...ENV, FETTLE_REVIEW: 'human', CLAUDECODE: '1' } });
  fails(r, /needs a person's approval/, 1);
  assert.equal(repo.read('f.txt').toString(), BASE);
});

test("discard --reason: the words reach the session's next prompt, once", () => {
  const { repo, id } = staged();
  ok(run(repo, ['discard', id, '--hunks', '2', '--reason', 'keep line 30 as it is']));
  assert.match(
    repo.git('log', '-1', '--format=%B', `refs/fettle/feedback/${SESSION}`),
    /Why they dropped f\.txt \(change .*, hunk 2\): "keep line 30 as it is"/,
  );
  const prompt = { session_id: SESSION, hook_event_name: 'UserPromptSubmit', prompt: 'go on', cwd: repo.dir };
  const first = runHook(prompt, { cwd: repo.dir, env: repo.env });
  assert.equal(first.code, 0, first.stderr);
  const context = JSON.parse(first.stdout).hookSpecificOutput.additionalContext as string;
  assert.match(context, /keep line 30 as it is/);
  assert.match(context, /of the 3 hunks of change .*, they dropped hunk 2; the others are still pending/);
  assert.equal(runHook(prompt, { cwd: repo.dir, env: repo.env }).stdout, '', 'delivered once');
});

test('rollback --hunks 2 undoes hunk 2 of a landed change only, merged with edits since; the change stays in effect', () => {
  const { repo, id } = staged();
  ok(run(repo, ['confirm', id]));
  repo.write('f.txt', PROPOSAL.replace('line 10\n', 'mine 10\n'));
  const r = ok(run(repo, ['rollback', id, '--hunks', '2']));
  assert.match(
    r.stdout,
    new RegExp(`^Rolled back hunk 2 \\(of 3\\) of ${id}: f\\.txt: .*keeping the edits made since`),
  );
  assert.equal(repo.read('f.txt').toString(), edited([3, 55]).replace('line 10\n', 'mine 10\n'));
  const undo = /rollback ([0-9a-z]{8})`\.$/.exec(r.stdout.trim())?.[1] ?? '';
  assert.equal(repo.git('show', '-s', '--format=%(trailers:key=Fettle-Hunks,valueonly)', `fettle/${undo}`), '2 of 3');
  // The rest of the change is still in effect: a rollback of all of it undoes hunks 1 and 3 too.
  ok(run(repo, ['rollback', undo]));
  assert.equal(repo.read('f.txt').toString(), PROPOSAL.replace('line 10\n', 'mine 10\n'));
});
