// The interactive review's walk, key by key: one line per case, the keys pressed and what was decided.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commented, decided, press, startWalk, summaryLines, type Walk, type WalkItem } from '../../src/core/hunk-walk';

const items: WalkItem[] = [
  { change: 'aaaa1111', path: 'a.ts', hunk: 1, count: 3 },
  { change: 'aaaa1111', path: 'a.ts', hunk: 2, count: 3 },
  { change: 'aaaa1111', path: 'a.ts', hunk: 3, count: 3 },
  { change: 'bbbb2222', path: 'b.png', hunk: 0, count: 1 },
];
const keys = (...ks: string[]): Walk => ks.reduce(press, startWalk(items));
const short = (w: Walk) => decided(w).map((d) => `${d.change}:+${d.keep.join(',')}-${d.drop.join(',')}`);

const cases: [string, string[], string[], Walk['state']][] = [
  ['y n y y', ['y', 'n', 'y', 'y'], ['aaaa1111:+1,3-2', 'bbbb2222:+0-'], 'summary'],
  ['a keeps the rest of the change', ['n', 'a', 'n'], ['aaaa1111:+2,3-1', 'bbbb2222:+-0'], 'summary'],
  ['d drops the rest of the change', ['d', 'y'], ['aaaa1111:+-1,2,3', 'bbbb2222:+0-'], 'summary'],
  ['f leaves the rest pending', ['y', 'f', 'n'], ['aaaa1111:+1-', 'bbbb2222:+-0'], 'summary'],
  ['l leaves one pending', ['l', 'y', 'l', 'l'], ['aaaa1111:+2-'], 'summary'],
  ['k goes back and changes an answer', ['y', 'k', 'n', 'q'], ['aaaa1111:+-1'], 'summary'],
  ['q stops early', ['y', 'q'], ['aaaa1111:+1-'], 'summary'],
  ['an unknown key asks again', ['x', 'y'], ['aaaa1111:+1-'], 'asking'],
  ['Ctrl-C aborts', ['y', '\u0003'], ['aaaa1111:+1-'], 'aborted'],
  ['? shows help without answering', ['?'], [], 'help'],
];
for (const [name, ks, want, state] of cases)
  test(`walk: ${name}`, () => {
    const w = keys(...ks);
    assert.deepEqual(short(w), want);
    assert.equal(w.state, state);
  });

test('a comment is kept per hunk, and an empty one removes it', () => {
  let w = press(keys('y'), 'c');
  assert.equal(w.state, 'comment');
  w = commented(w, '  use the helper  ');
  assert.deepEqual([...w.comments], [['aaaa1111#2', 'use the helper']]);
  w = commented(press(w, 'c'), '');
  assert.equal(w.comments.size, 0);
  assert.equal(w.state, 'asking');
});

test('the summary says what each change gets', () =>
  assert.deepEqual(summaryLines(keys('y', 'n', 'l', 'n')), [
    '  a.ts (aaaa1111): keep 1; discard 2',
    '  b.png (bbbb2222): discard it whole',
  ]));

test('nothing to ask is a summary at once', () => assert.equal(startWalk([]).state, 'summary'));
