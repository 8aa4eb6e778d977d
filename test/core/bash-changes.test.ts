// What a Bash command changed, decided from the snapshot, the status after it and lstat: when a path must be read,
// what it held before, and the change between two sides. Table cases one line each where they fit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changeOf,
  isRacy,
  planAfter,
  renamesOf,
  sideBefore,
  SLACK_NS,
  type Disk,
  type FileStat,
  type PathChange,
  type PathFacts,
  type Side,
} from '../../src/core/bash-changes';
import { renderBashRecorded } from '../../src/core/bash-messages';

const S = 10_000_000_000_000n; // the snapshot began here (ns)
const stat = (o: Partial<FileStat> & { at?: bigint } = {}): FileStat => ({
  size: '10',
  mtimeNs: String(o.at ?? S - 10n * SLACK_NS),
  ctimeNs: String(o.at ?? S - 10n * SLACK_NS),
  ino: '7',
  mode: 0o100644,
  ...o,
});
const file = (o: Partial<FileStat> & { at?: bigint } = {}): Disk => ({ kind: 'file', stat: stat(o) });
const A = { mode: '100644', oid: 'a'.repeat(40) };
const B = { mode: '100644', oid: 'b'.repeat(40) };
const blob = (leaf = A): Side => ({ kind: 'blob', leaf });
const limits = { startNs: S, maxBytes: 100 };
const plan = (f: PathFacts) => planAfter(f, limits);

test('a path the snapshot kept, its stat unchanged and not racy: not read, not changed', () => {
  assert.equal(plan({ pre: { path: 'a', side: blob(), stat: stat() }, disk: file() }), null);
});

test('the same stat, but racy when kept: read again', () => {
  assert.deepEqual(plan({ pre: { path: 'a', side: blob(), stat: stat(), racy: true }, disk: file() }), {
    kind: 'read',
  });
});

test('a changed stat (size, mtime, ctime, inode or mode): read', () => {
  for (const o of [{ size: '11' }, { mtimeNs: '1' }, { ctimeNs: '1' }, { ino: '8' }, { mode: 0o100755 }])
    assert.deepEqual(plan({ pre: { path: 'a', side: blob(), stat: stat() }, disk: file(o) }), { kind: 'read' });
});

test('gone now: absent (unless it was absent before too)', () => {
  assert.deepEqual(plan({ pre: { path: 'a', side: blob(), stat: stat() }, disk: { kind: 'absent' } }), {
    kind: 'known',
    side: { kind: 'absent' },
  });
  assert.equal(plan({ pre: { path: 'a', side: { kind: 'absent' } }, disk: { kind: 'absent' } }), null);
});

test('git compared the file with the index: the index blob, not read', () => {
  const post = { path: 'a', index: B, head: A, matchesIndex: true, untracked: false };
  assert.deepEqual(plan({ post, disk: file({ at: S }) }), { kind: 'index', leaf: B });
});

test('over the size cap: not read, not kept', () => {
  assert.deepEqual(
    plan({ post: { path: 'a', matchesIndex: false, untracked: true }, disk: file({ size: '101', at: S }) }),
    {
      kind: 'known',
      side: { kind: 'unkept', why: 'too-large' },
    },
  );
});

test('a link or a directory where a file was: not kept', () => {
  const disk: Disk = { kind: 'other', stat: stat({ at: S }) };
  assert.deepEqual(plan({ pre: { path: 'a', side: blob(), stat: stat() }, disk }), {
    kind: 'known',
    side: { kind: 'unkept', why: 'not-a-file' },
  });
});

test('not in the snapshot and untouched since well before it (ctime): cannot have changed', () => {
  const post = { path: 'a', matchesIndex: false, untracked: true };
  assert.equal(plan({ post, disk: file() }), null);
  assert.deepEqual(plan({ post, disk: file({ at: S - SLACK_NS / 2n }) }), { kind: 'read' }, 'within the slack: read');
});

test('isRacy: changed within the slack of being looked at, or after', () => {
  assert.equal(isRacy(stat({ at: S - 2n * SLACK_NS }), S), false);
  assert.equal(isRacy(stat({ at: S - SLACK_NS + 1n }), S), true);
  assert.equal(isRacy(stat({ at: S + 5n }), S), true);
});

// sideBefore: [label, facts, side]
const befores: [string, PathFacts, Side][] = [
  ['the snapshot kept it', { pre: { path: 'a', side: blob(B) }, disk: { kind: 'absent' } }, blob(B)],
  ['clean before, HEAD moved: the old HEAD', { oldHead: B, disk: { kind: 'absent' } }, blob(B)],
  ['clean before, not in the old HEAD', { oldHead: null, disk: { kind: 'absent' } }, { kind: 'absent' }],
  [
    'clean before: HEAD as the status after shows it',
    { post: { path: 'a', head: A, matchesIndex: false, untracked: false }, disk: { kind: 'absent' } },
    blob(A),
  ],
  [
    'untracked after, not before: nothing',
    { post: { path: 'a', matchesIndex: false, untracked: true }, disk: { kind: 'absent' } },
    { kind: 'absent' },
  ],
  [
    'added to the index by the command, not in HEAD: nothing',
    {
      post: { path: 'a', head: { mode: '000000', oid: '0'.repeat(40) }, matchesIndex: true, untracked: false },
      disk: { kind: 'absent' },
    },
    { kind: 'absent' },
  ],
];
for (const [label, facts, side] of befores)
  test(`sideBefore: ${label}`, () => assert.deepEqual(sideBefore(facts), side));

// changeOf: [before, after, action or null, kept]
const X: Side = { kind: 'unkept', why: 'too-large' };
const NONE: Side = { kind: 'absent' };
const changes: [Side, Side, PathChange['action'] | null, boolean][] = [
  [blob(A), blob(A), null, true],
  [blob(A), blob(B), 'modified', true],
  [blob(A), blob({ ...A, mode: '100755' }), 'mode', true],
  [NONE, blob(A), 'created', true],
  [blob(A), NONE, 'deleted', true],
  [NONE, NONE, null, true],
  [blob(A), X, 'modified', false],
  [X, NONE, 'deleted', false],
  [NONE, X, 'created', false],
];
for (const [before, after, action, kept] of changes)
  test(`changeOf(${before.kind}, ${after.kind}) = ${action}`, () => {
    const c = changeOf('p', before, after);
    assert.equal(c?.action ?? null, action);
    if (c) assert.equal(c.kept, kept);
  });

test('renamesOf pairs a deleted and a created file of the same blob, each once', () => {
  const all = [
    changeOf('a', blob(A), NONE),
    changeOf('b', NONE, blob(A)),
    changeOf('c', blob(B), NONE),
    changeOf('d', NONE, blob(A)),
  ].filter((c): c is PathChange => c !== null);
  assert.deepEqual(renamesOf(all), [{ from: 'a', to: 'b' }]);
});

const line = (changes: (PathChange | null)[], o: { recorded?: number; overlapped?: boolean } = {}) => {
  const list = changes.filter((c): c is PathChange => c !== null);
  return renderBashRecorded({
    changeset: 'cs123456',
    changes: list,
    recorded: o.recorded ?? list.length,
    overlapped: o.overlapped ?? false,
    invoke: 'fettle',
  });
};

test('the line: counts by kind, and how to undo', () => {
  assert.equal(
    line([
      changeOf('a', blob(A), blob(B)),
      changeOf('b', blob(B), blob(A)),
      changeOf('c', blob(A), NONE),
      changeOf('d', NONE, blob(B)),
    ]),
    'fettle recorded 4 files changed by this command: 2 modified, 1 created, 1 deleted; undo with: fettle rollback cs123456',
  );
});

test('the line: one file is named; a rename is one file', () => {
  assert.equal(
    line([changeOf('src/a.ts', blob(A), blob(B))]),
    'fettle recorded 1 file changed by this command: modified src/a.ts; undo with: fettle rollback cs123456',
  );
  assert.equal(
    line([changeOf('a', blob(A), NONE), changeOf('b', NONE, blob(A))]),
    'fettle recorded 1 file changed by this command: 1 renamed (a -> b); undo with: fettle rollback cs123456',
  );
});

test('the line: files not kept are named and not restorable; nothing to undo when none was kept', () => {
  assert.equal(
    line([changeOf('big.bin', blob(A), X), changeOf('a', blob(A), blob(B))]),
    'fettle recorded 2 files changed by this command: 2 modified; big.bin was not kept (too large or not a regular file), so it cannot be restored; undo with: fettle rollback cs123456',
  );
  assert.doesNotMatch(line([changeOf('big.bin', blob(A), X)]), /undo/);
});

test('the line: past the file limit, the rest is only listed; another call at the same time is said', () => {
  const many = ['a', 'b', 'c'].map((p) => changeOf(p, blob(A), blob(B)));
  assert.match(
    line(many, { recorded: 2 }),
    /^fettle recorded 2 of the 3 files this command changed \(FETTLE_BASH_MAX_FILES=2\)/,
  );
  assert.match(line(many, { recorded: 2 }), /the other 1 are only listed by name in the record and cannot be restored/);
  assert.match(line(many, { overlapped: true }), /another Bash call ran at the same time/);
});
