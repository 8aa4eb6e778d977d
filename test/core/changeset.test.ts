// The pure parts of changesets: what a name means, which changes a decision of several takes and why it
// refuses, and how a confirm brings one file to its proposal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  fileVerdict,
  planSet,
  resolveName,
  type Candidate,
  type FileFacts,
  type FileVerdict,
} from '../../src/core/changeset';

const changes = [
  { id: 'aaaa0001', changeset: 'set00001' },
  { id: 'aaaa0002', changeset: 'set00001' },
  { id: 'aaaa0003' },
  // a changeset id that is also a change id: the change wins
  { id: 'bbbb0001', changeset: 'aaaa0003' },
];

for (const [name, expected] of [
  ['aaaa0003', { kind: 'change', id: 'aaaa0003' }],
  ['set00001', { kind: 'changeset', id: 'set00001', members: ['aaaa0001', 'aaaa0002'] }],
  ['aaaa0009', { kind: 'unknown', near: 'aaaa0001' }],
  ['set00002', { kind: 'unknown', near: 'set00001' }],
  ['zzzzzzzz', { kind: 'unknown', near: undefined }],
] as const) {
  test(`resolveName('${name}') is ${expected.kind}`, () => assert.deepEqual(resolveName(name, changes), expected));
}

const c = (id: string, over: Partial<Candidate> = {}): Candidate => ({
  id,
  path: `${id}.txt`,
  state: 'pending',
  staged: true,
  named: true,
  personOnly: false,
  ...over,
});
const ids = (list: Candidate[]) => list.map((x) => x.id);

test('planSet takes pending changes in lock order: by path, then id', () => {
  const plan = planSet('discard', [c('b', { path: 'z.txt' }), c('c', { path: 'y.txt' }), c('a', { path: 'y.txt' })]);
  assert.deepEqual(ids(plan.take), ['a', 'c', 'b']);
});

// [decision, candidate, taken, skipped, refusal]
for (const [d, over, taken, skipped, why] of [
  ['confirm', {}, true, false, undefined],
  ['confirm', { state: 'expired' }, false, false, 'expired'],
  ['discard', { state: 'expired' }, true, false, undefined],
  ['confirm', { state: 'applied' }, false, false, 'applied'],
  ['discard', { state: 'discarded' }, false, false, 'discarded'],
  ['confirm', { state: 'applied', staged: false }, false, false, 'not-staged'],
  ['confirm', { state: 'incomplete', staged: false }, false, false, 'not-staged'],
  ['confirm', { state: 'applied', named: false }, false, true, undefined],
  ['discard', { state: 'discarded', named: false }, false, true, undefined],
  ['confirm', { personOnly: true }, true, false, 'person'],
  ['discard', { personOnly: true }, true, false, undefined],
] as const) {
  test(`planSet ${d} of a ${JSON.stringify(over)} change: ${why ?? (taken ? 'taken' : 'skipped')}`, () => {
    const plan = planSet(d, [c('x', over)]);
    assert.equal(plan.take.length, taken ? 1 : 0);
    assert.equal(plan.skipped.length, skipped ? 1 : 0);
    assert.deepEqual(
      plan.refusals.map((r) => r.why),
      why ? [why] : [],
    );
  });
}

test('planSet refuses a confirm of two changes of one path, naming both, and allows their discard', () => {
  const two = [c('b', { path: 'f.txt' }), c('a', { path: 'f.txt' })];
  const plan = planSet('confirm', two);
  assert.deepEqual(
    plan.refusals.map((r) => [r.why, r.change.id, r.other?.id]),
    [['same-path', 'b', 'a']],
  );
  assert.deepEqual(planSet('discard', two).refusals, []);
});

test('planSet counts a change once, named on its own over being a member', () => {
  const plan = planSet('confirm', [c('x', { named: false, state: 'applied' }), c('x', { state: 'applied' })]);
  assert.deepEqual(
    plan.refusals.map((r) => r.why),
    ['applied'],
  );
  assert.deepEqual(plan.skipped, []);
});

const facts = (over: Partial<FileFacts>): FileFacts => ({
  disk: 'base',
  baseExists: true,
  writable: true,
  text: true,
  ...over,
});

for (const [over, expected] of [
  [{}, { how: 'written' }],
  [{ disk: 'proposal' }, { how: 'already-on-disk' }],
  [{ disk: 'proposal', writable: false }, { how: 'already-on-disk' }],
  [{ writable: false }, { refuse: 'unwritable' }],
  [{ disk: 'not-a-file' }, { refuse: 'not-a-file' }],
  [{ disk: 'absent' }, { refuse: 'deleted' }],
  [{ disk: 'other', baseExists: false }, { refuse: 'created' }],
  [{ disk: 'other', text: false }, { refuse: 'binary' }],
  [{ disk: 'other' }, { merge: true }],
  [{ disk: 'other', merge: { clean: true, conflicts: 0 } }, { how: 'merged' }],
  [
    { disk: 'other', merge: { clean: false, conflicts: 2 } },
    { refuse: 'conflict', conflicts: 2 },
  ],
  // A staged deletion: over its base it is removed; gone already, nothing to do; edited since, refused.
  [{ removes: true }, { how: 'written' }],
  [{ removes: true, disk: 'proposal' }, { how: 'already-on-disk' }],
  [{ removes: true, disk: 'other' }, { refuse: 'edited' }],
  [{ removes: true, writable: false }, { refuse: 'unwritable' }],
] as [Partial<FileFacts>, FileVerdict][]) {
  test(`fileVerdict(${JSON.stringify(over)}) is ${JSON.stringify(expected)}`, () =>
    assert.deepEqual(fileVerdict(facts(over)), expected));
}
