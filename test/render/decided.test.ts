// One sentence per outcome for every edge: the same confirm, discard and rollback read alike at a shell and over
// MCP, and differ only in how the next step is named (a command in backticks, or a tool with its arguments).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordFields } from '../../src/core/record-message';
import type { Change } from '../../src/protocol/changes';
import type { RollbackOutcome } from '../../src/protocol/history/rollback';
import type { Confirmed } from '../../src/protocol/review/confirm';
import { confirmedText, discardedText, setLabel } from '../../src/render/decided';
import { shellDialect, toolDialect } from '../../src/render/dialect';
import { rolledBackText } from '../../src/render/rolled-back';

const change = (id: string, path: string, more: Partial<RecordFields> = {}): Change => ({
  id,
  ref: `refs/fettle/${id}`,
  tip: '0'.repeat(40),
  parents: [],
  fields: { kind: 'applied', id, path, added: 3, removed: 1, ...more } as RecordFields,
  state: 'applied',
  at: new Date(0),
});
const confirmed = (c: Change, how: Confirmed['how'] = 'written', conflicts?: number): Confirmed => ({
  change: c,
  path: `/repo/${c.fields.path}`,
  how,
  conflicts,
});
const shell = shellDialect('fettle');
const a = change('aaaa1111', 'a.ts');
const b = change('bbbb2222', 'b.ts', { added: undefined, removed: undefined, reason: 'binary' });

test('a confirm: one change named is a sentence; a set is a list, with the undo in the reader’s dialect', () => {
  assert.equal(
    confirmedText({ confirmed: [confirmed(a)], skipped: [] }, { one: true, label: '' }, shell),
    'Applied aaaa1111 to a.ts (+3 -1).',
  );
  const set = {
    confirmed: [confirmed(a), confirmed(b, 'merged')],
    skipped: [{ ...a, id: 'cccc3333', state: 'discarded' as const }],
  };
  const label = setLabel('set12345', undefined);
  assert.equal(
    confirmedText(set, { one: false, label }, shell),
    [
      'Applied 2 changes of changeset set12345, all or nothing:',
      '  aaaa1111  a.ts  +3 -1',
      '  bbbb2222  b.ts  binary, merged with the edits made on disk since it was staged',
      'Left out 1 already decided: cccc3333 (discarded).',
      'Undo this with `fettle rollback aaaa1111 bbbb2222`.',
    ].join('\n'),
  );
  assert.match(
    confirmedText(set, { one: false, label }, toolDialect),
    /\nUndo this with fettle_rollback with targets \["aaaa1111", "bbbb2222"\]\.$/,
  );
});

test('a confirm with conflicts says where they are marked and how to undo it instead', () => {
  const text = confirmedText(
    { confirmed: [confirmed(a, 'conflicts', 1)], skipped: [] },
    { one: true, label: '' },
    shell,
  );
  assert.match(
    text,
    /1 overlapping region is marked in the file .*\. Resolve it in your editor, or undo this with `fettle rollback aaaa1111`\.$/,
  );
});

test('a discard: a sentence for one, a list for a set, never an undo (nothing was written)', () => {
  assert.equal(
    discardedText({ discarded: [a], skipped: [] }, { one: true, label: '' }),
    'Discarded aaaa1111; a.ts was not touched.',
  );
  assert.equal(
    discardedText({ discarded: [a, b], skipped: [] }, { one: false, label: setLabel(undefined, 's1') }),
    'Discarded 2 changes of session s1; no file was touched:\n  aaaa1111  a.ts\n  bbbb2222  b.ts',
  );
});

test('a rollback names its own undo: the undo record, or the changeset of several', () => {
  const outcome = (done: RollbackOutcome['done'], undoChangeset?: string): RollbackOutcome => ({
    plans: [],
    refusals: [],
    done,
    notKept: [],
    undoChangeset,
  });
  assert.equal(
    rolledBackText(outcome([{ change: a, undoId: 'undo0001', how: 'restored' }]), { one: true, label: '' }, shell),
    'Rolled back aaaa1111: a.ts: restored its previous bytes. Undo this with `fettle rollback undo0001`.',
  );
  const two = outcome(
    [
      { change: a, undoId: 'undo0001', how: 'merged' },
      { change: b, undoId: 'undo0002', how: 'removed' },
    ],
    'undoset1',
  );
  assert.equal(
    rolledBackText(two, { one: false, label: ' of session s1' }, toolDialect),
    [
      'Rolled back 2 changes of session s1:',
      '  aaaa1111  a.ts: undid the change, keeping the edits made since',
      '  bbbb2222  b.ts: removed it (the change had created it)',
      'Undo this with fettle_rollback with targets ["undoset1"].',
    ].join('\n'),
  );
});
