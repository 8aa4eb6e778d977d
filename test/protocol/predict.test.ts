// What a write tool will leave on disk, predicted in process from the bytes there now: exact, or unsure and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_DIFF_BYTES } from '../../src/core/content';
import type { EditOp } from '../../src/core/edits';
import type { WriteCall } from '../../src/core/tool-call';
import { predict } from '../../src/protocol/predict';

const disk = (text: string | Buffer) => ({ bytes: Buffer.isBuffer(text) ? text : Buffer.from(text), mode: 0o644 });
const op = (oldString: string, newString: string, replaceAll = false): EditOp => ({ oldString, newString, replaceAll });
const edit = (...edits: EditOp[]): WriteCall => ({
  tool: edits.length > 1 ? 'MultiEdit' : 'Edit',
  filePath: 'f',
  edits,
});
const write = (content: string): WriteCall => ({ tool: 'Write', filePath: 'f', content });

// [label, call, bytes on disk (null: no file), the bytes predicted]
const exact: [string, WriteCall, string | null, string][] = [
  ['Write over a file', write('new\n'), 'old\n', 'new\n'],
  ['Write of a new file', write('new\n'), null, 'new\n'],
  ['Write keeps non-ASCII text as UTF-8', write('é\n'), null, 'é\n'],
  ['Edit of a unique match', edit(op('b', 'B')), 'a\nb\nc\n', 'a\nB\nc\n'],
  ['Edit with replace_all', edit(op('x', 'y', true)), 'x x x', 'y y y'],
  ['Edit keeps $ patterns literally', edit(op('a', '$&$&')), 'a', '$&$&'],
  ['Edit with an empty old_string creates a missing file', edit(op('', 'created\n')), null, 'created\n'],
  ['MultiEdit applies its edits in order', edit(op('a', 'b'), op('b', 'c')), 'a', 'c'],
];
for (const [label, call, old, next] of exact) {
  test(`exact: ${label}`, () =>
    assert.deepEqual(predict(call, old === null ? null : disk(old)), { exact: true, next: Buffer.from(next) }));
}

// [label, call, bytes on disk (null: no file), what the reason says]
const unsure: [string, WriteCall, string | Buffer | null, RegExp][] = [
  ['Edit of a missing file', edit(op('a', 'b')), null, /does not exist/],
  ['MultiEdit creating a missing file', edit(op('', 'a'), op('a', 'b')), null, /does not exist/],
  ['Edit with no match', edit(op('absent', 'b')), 'a\n', /./],
  ['Edit with two matches', edit(op('a', 'b')), 'a a', /./],
  ['Edit of a binary file', edit(op('a', 'b')), Buffer.from([0x61, 0, 0x62]), /not UTF-8 text/],
  ['Edit of a file that is not UTF-8', edit(op('a', 'b')), Buffer.from([0x61, 0xff]), /not UTF-8 text/],
  ['Edit of a file over 5 MB', edit(op('a', 'b')), 'a'.padEnd(MAX_DIFF_BYTES + 1, 'x'), /over 5 MB/],
  [
    'NotebookEdit of a missing notebook',
    {
      tool: 'NotebookEdit',
      filePath: 'n.ipynb',
      op: { cellId: 'c', newSource: 'x', cellType: 'code', editMode: 'replace' },
    },
    null,
    /notebook does not exist/,
  ],
];
for (const [label, call, old, why] of unsure) {
  test(`unsure: ${label}`, () => {
    const result = predict(call, old === null ? null : disk(old));
    assert.equal(result.exact, false);
    assert.match((result as { why: string }).why, why);
  });
}

test('a NotebookEdit counts the changed lines of the cell source, not of the JSON', () => {
  const notebook = JSON.stringify(
    { cells: [{ id: 'c1', cell_type: 'code', source: ['a = 1\n', 'b = 2\n'], outputs: [], metadata: {} }] },
    null,
    1,
  );
  const call: WriteCall = {
    tool: 'NotebookEdit',
    filePath: 'n.ipynb',
    op: { cellId: 'c1', newSource: 'a = 1\nb = 3\n', cellType: undefined, editMode: 'replace' },
  };
  const result = predict(call, disk(notebook));
  assert.ok(result.exact);
  assert.deepEqual(JSON.parse(result.next.toString()).cells[0].source, ['a = 1\n', 'b = 3\n']);
  assert.deepEqual(
    { added: result.counts?.added, removed: result.counts?.removed, oldLines: result.counts?.oldLines },
    { added: 1, removed: 1, oldLines: 2 },
  );
});
