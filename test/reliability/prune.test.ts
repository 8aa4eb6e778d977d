// `git gc --prune=now` deletes every tmp_* file in the pack directory however new (git documents the race with
// writers), so it can delete the pack fettle is writing before it is renamed into place. fettle writes it
// again once; a second loss still fails closed. The prune is injected at the one point it matters (the
// `pack.temp-synced` failpoint's `vanish`), so the race is met every run, not one run in two hundred.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { agentWrite, count, repoWith, reportAs, scenario, show, text } from './harness';
import { checkInvariants, expectOutcome, track, userState } from './invariants';

reportAs('prune');

const HEAD = text(20, 'head');
const DIRTY = text(20, 'dirty'); // only on disk: the record is the only other place these bytes can be
const NEXT = DIRTY.replace('dirty 1\n', 'dirty 1 edited\n');

scenario(
  'a prune deletes the temporary pack of a write once: written again, the write goes through',
  undefined,
  async () => {
    const repo = repoWith({ 'a.txt': HEAD });
    repo.write('a.txt', DIRTY);
    const before = userState(repo);
    const t = track(repo.path('a.txt'), [NEXT]);
    const run = await agentWrite({ file: repo.path('a.txt'), content: NEXT, cwd: repo.dir }, repo.env, {
      failpoints: 'pack.temp-synced=vanish@1',
    });
    count('faults');
    expectOutcome(run.pre, { exit: [0], hook: true });
    assert.ok(run.written && run.post, `the write went through\n${show(run.pre)}`);
    expectOutcome(run.post, { exit: [0], hook: true });
    checkInvariants(repo, before, { files: [t], litter: 'none' });
  },
);

scenario('a prune that deletes it again: the write is blocked, one line, nothing changed', undefined, async () => {
  const repo = repoWith({ 'a.txt': HEAD });
  repo.write('a.txt', DIRTY);
  const before = userState(repo);
  const t = track(repo.path('a.txt'), []);
  const run = await agentWrite({ file: repo.path('a.txt'), content: NEXT, cwd: repo.dir }, repo.env, {
    failpoints: 'pack.temp-synced=vanish',
  });
  count('faults');
  expectOutcome(run.pre, { exit: [2], hook: true });
  assert.match(run.pre.stderr, /^fettle blocked this write because it could not save the previous content/);
  assert.match(run.pre.stderr, /temporary pack .* deleted .* twice/, show(run.pre));
  assert.equal(run.written, false);
  checkInvariants(repo, before, { files: [t], litter: 'none' });
});
