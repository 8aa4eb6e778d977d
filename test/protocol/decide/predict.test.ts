// What a write tool will leave on disk, predicted in process from the bytes there now: exact, or unsure and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_DIFF_BYTES } from '../../../src/core/content';
import type { EditOp } from '../../../src/core/edits';
import type { WriteCall } from '../../../src/core/tool-call';
import { predict } from '../../../src/protocol/decide/predict';

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
  ['MultiEdit applies its edits in order', edit(op('a', 'b'), op('c', 'd')), 'a c', 'b d'],
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
  ['Edit of a binary file', edit(op('a', 'b')), Buffer.from([0x61, 0, 0x62]), /NUL bytes/],
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
  assert.equal(JSON.parse(result.next.toString()).cells[0].source, 'a = 1\nb = 3\n');
  assert.deepEqual(
    { added: result.counts?.added, removed: result.counts?.removed, oldLines: result.counts?.oldLines },
    { added: 1, removed: 1, oldLines: 2 },
  );
});

// Byte for byte as Claude Code 2.1.330 writes (docs/HOOK.md, "Byte for byte"); each row failed when fettle
// predicted UTF-8 LF text. [label, call, bytes on disk, the bytes the client writes]
const BOM8 = Buffer.from([0xef, 0xbb, 0xbf]);
/** UTF-16LE bytes: a text starting with U+FEFF starts FF FE */
const utf16 = (text: string) => Buffer.from(text, 'utf16le');
const bytes: [string, WriteCall, Buffer, Buffer][] = [
  ['Edit keeps a CRLF file CRLF', edit(op('b', 'B')), Buffer.from('a\r\nb\r\n'), Buffer.from('a\r\nB\r\n')],
  [
    'Edit turns LF in new_string into CRLF in a CRLF file',
    edit(op('b', 'b1\nb2')),
    Buffer.from('a\r\nb\r\n'),
    Buffer.from('a\r\nb1\r\nb2\r\n'),
  ],
  [
    'Edit rewrites a mixed file to its majority style (CRLF)',
    edit(op('a', 'A')),
    Buffer.from('a\r\nb\r\nc\n'),
    Buffer.from('A\r\nb\r\nc\r\n'),
  ],
  [
    'Edit rewrites a mixed file to its majority style (LF; a tie is LF)',
    edit(op('a', 'A')),
    Buffer.from('a\r\nb\n'),
    Buffer.from('A\nb\n'),
  ],
  [
    'Edit matches old_string across a CRLF as LF',
    edit(op('a\nb', 'x')),
    Buffer.from('a\r\nb\r\n'),
    Buffer.from('x\r\n'),
  ],
  [
    'Edit keeps a UTF-8 BOM',
    edit(op('a', 'b')),
    Buffer.concat([BOM8, Buffer.from('a\n')]),
    Buffer.concat([BOM8, Buffer.from('b\n')]),
  ],
  ['Edit of a UTF-16LE file writes UTF-16LE', edit(op('a', 'é')), utf16('\uFEFFa\r\nz\r\n'), utf16('\uFEFFé\r\nz\r\n')],
  [
    'Edit: curly quotes in the file, straight in the call',
    edit(op("it's", 'it is')),
    Buffer.from('it\u2019s\n'),
    Buffer.from('it is\n'),
  ],
  [
    'Write keeps a UTF-8 BOM',
    write('new\n'),
    Buffer.concat([BOM8, Buffer.from('old\n')]),
    Buffer.concat([BOM8, Buffer.from('new\n')]),
  ],
  ['Write keeps its own LF in a CRLF file', write('x\ny\n'), Buffer.from('a\r\n'), Buffer.from('x\ny\n')],
  ['Write to a UTF-16LE file writes UTF-16LE with its BOM', write('new\n'), utf16('\uFEFFold\n'), utf16('\uFEFFnew\n')],
  ['Write of nothing over a BOM file: empty', write(''), Buffer.concat([BOM8, Buffer.from('old\n')]), Buffer.alloc(0)],
];
for (const [label, call, old, next] of bytes) {
  test(`bytes: ${label}`, () => {
    const result = predict(call, disk(old));
    assert.ok(result.exact, result.exact ? '' : result.why);
    assert.deepEqual(result.next, next);
  });
}

// [label, call, bytes on disk]: the client refuses these, so there is nothing to predict.
const refused: [string, WriteCall, Buffer][] = [
  ['Write over a binary file', write('x'), Buffer.from([0x61, 0, 0x62])],
  ['Write over a file that is not UTF-8', write('x'), Buffer.from([0x61, 0xff])],
  ['Write over UTF-16 big-endian', write('x'), Buffer.from([0xfe, 0xff, 0, 0x61])],
  ['Edit of UTF-16LE with an odd byte', edit(op('a', 'b')), Buffer.from([0xff, 0xfe, 0x61, 0, 0x62])],
];
for (const [label, call, old] of refused)
  test(`unsure: ${label}`, () => assert.equal(predict(call, disk(old)).exact, false));

test('a UTF-16 file is decided on its decoded lines, not as binary bytes', () => {
  const result = predict(write('x\ny\n'), disk(utf16('\uFEFFa\nb\nc\n')));
  assert.ok(result.exact);
  assert.deepEqual(
    { added: result.counts?.added, removed: result.counts?.removed, oldLines: result.counts?.oldLines },
    { added: 2, removed: 3, oldLines: 3 },
  );
});
