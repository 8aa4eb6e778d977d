// The page's drafts: each checked as it arrives, kept per hunk or change, and turned into one decision set whose
// comments on dropped hunks are the reasons they were dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDraft, Drafts } from '../../src/web/drafts';

const id = 'abcd1234';
const bad: [string, unknown, RegExp][] = [
  ['not an object', 'x', /is not an object/],
  ['no change id', { kind: 'hunk', change: '../x', hunk: 1, decision: 'keep' }, /names no change id/],
  ['hunk 0', { kind: 'hunk', change: id, hunk: 0, decision: 'keep' }, /names no hunk number/],
  ['an unknown decision', { kind: 'hunk', change: id, hunk: 1, decision: 'maybe' }, /decides nothing/],
  ['a whole change kept', { kind: 'whole', change: id, decision: 'keep' }, /decides nothing/],
  ['a comment without text', { kind: 'comment', change: id }, /has no text/],
  ['lines out of order', { kind: 'comment', change: id, text: 'x', lines: { from: 5, to: 2 } }, /lines out of order/],
  ['a huge comment', { kind: 'comment', change: id, text: 'x'.repeat(5000) }, /over 4000 characters/],
  ['an unknown kind', { kind: 'push', change: id }, /neither a hunk/],
];
for (const [name, value, want] of bad)
  test(`a draft refused: ${name}`, () => assert.throws(() => checkDraft(value), want));

test('drafts become one decision set: kept and dropped hunks, whole changes, comments as reasons', () => {
  const d = new Drafts();
  d.put({ kind: 'hunk', change: id, hunk: 1, decision: 'keep' });
  d.put({ kind: 'hunk', change: id, hunk: 2, decision: 'discard' });
  d.put({ kind: 'hunk', change: id, hunk: 3, decision: 'keep' });
  d.put({ kind: 'hunk', change: id, hunk: 3, decision: 'pending' });
  d.put({ kind: 'whole', change: 'wxyz9876', decision: 'confirm' });
  d.put({ kind: 'comment', change: id, hunk: 2, text: 'not this' });
  d.put({ kind: 'comment', change: id, hunk: 1, lines: { from: 3, to: 4 }, text: 'nice' });
  d.put({ kind: 'comment', change: id, hunk: 1, lines: { from: 9, to: 9 }, text: 'gone' });
  d.put({ kind: 'comment', change: id, hunk: 1, lines: { from: 9, to: 9 }, text: '' });
  const set = d.decisionSet(false);
  assert.deepEqual(set.choices, [
    { id: 'wxyz9876', verdict: 'confirm' },
    { id, keep: [1], drop: [2] },
  ]);
  assert.deepEqual(
    set.feedback?.map((f) => [f.kind, f.hunk, f.text]),
    [
      ['dropped', 2, 'not this'],
      ['comment', 1, 'nice'],
    ],
  );
  d.clear();
  assert.throws(() => d.decisionSet(false), /Nothing to apply/);
});

test('a whole decision replaces hunk decisions of the change, and the other way round', () => {
  const d = new Drafts();
  d.put({ kind: 'hunk', change: id, hunk: 1, decision: 'keep' });
  d.put({ kind: 'whole', change: id, decision: 'discard' });
  assert.deepEqual(d.decisionSet(false).choices, [{ id, verdict: 'discard' }]);
  d.put({ kind: 'hunk', change: id, hunk: 2, decision: 'keep' });
  assert.deepEqual(d.decisionSet(true), { choices: [{ id, keep: [2], drop: [] }], feedback: [], withConflicts: true });
});
