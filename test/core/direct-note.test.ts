// The one line after a direct write: the file as it landed (size, lines when text), the change as +N -M ~K, or
// why there are no counts, and the undo command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteSize } from '../../src/core/byte-size';
import { renderDirect, shapeOf, type WriteShape } from '../../src/core/direct-note';

// [bytes, as the note says them]
const sizes: [number, string][] = [
  [0, '0 B'],
  [1023, '1023 B'],
  [1024, '1.0 KB'],
  [1229, '1.2 KB'],
  [1024 * 1024 - 1, '1024.0 KB'],
  [1024 * 1024, '1.0 MB'],
  [5 * 1024 * 1024 + 200 * 1024, '5.2 MB'],
];
for (const [bytes, text] of sizes) test(`byteSize(${bytes}) = ${text}`, () => assert.equal(byteSize(bytes), text));

// [label, bytes landed (null: no file), lines modified in place, the shape]
const shapes: [string, Buffer | null, number | undefined, WriteShape][] = [
  ['text', Buffer.from('a\nb\n'), 1, { bytes: 4, lines: 2, modified: 1 }],
  ['text without a final newline', Buffer.from('a\nb'), 0, { bytes: 3, lines: 2, modified: 0 }],
  ['an empty file', Buffer.alloc(0), 0, { bytes: 0, lines: 0, modified: 0 }],
  ['binary: no lines', Buffer.from([0x89, 0, 1, 2]), undefined, { bytes: 4, lines: undefined, modified: undefined }],
  ['UTF-16LE text, lines decoded', Buffer.from('\ufeffa\nb\n', 'utf16le'), 1, { bytes: 10, lines: 2, modified: 1 }],
  [
    'odd-length bytes after FF FE: binary',
    Buffer.from([0xff, 0xfe, 0x61, 0, 0x0a]),
    undefined,
    { bytes: 5, lines: undefined, modified: undefined },
  ],
  ['no file', null, undefined, { bytes: null, lines: undefined, modified: undefined }],
];
for (const [label, landed, modified, shape] of shapes) {
  test(`shapeOf: ${label}`, () => assert.deepEqual(shapeOf(landed, modified), shape));
}

const shape = (bytes: number | null, lines?: number, modified?: number): WriteShape => ({ bytes, lines, modified });
// [label, reason, added, removed, shape, the line]
const notes: [string, string | undefined, number | undefined, number | undefined, WriteShape, string][] = [
  ['a modified line', 'small', 1, 1, shape(1229, 40, 1), '(1.2 KB, 40 lines, +1 -1 ~1)'],
  ['lines added only', 'small', 3, 0, shape(20, 1, 0), '(20 B, 1 line, +3 -0 ~0)'],
  ['a line modified, another added', 'small', 2, 1, shape(5000, 120, 1), '(4.9 KB, 120 lines, +2 -1 ~1)'],
  ['counts without a diff that paired them', 'small', 4, 4, shape(80, 8), '(80 B, 8 lines, +4 -4)'],
  ['a new file', 'new-file', undefined, undefined, shape(11, 1), '(11 B, 1 line, new file)'],
  ['binary content', 'binary', undefined, undefined, shape(3000), '(2.9 KB, binary content, not diffed)'],
  ['over 5 MB', 'oversize', undefined, undefined, shape(6 * 1024 * 1024), '(6.0 MB, over 5 MB, not diffed)'],
  [
    'changed by a tool fettle could not predict',
    'unsure',
    undefined,
    undefined,
    shape(9, 2),
    '(9 B, 2 lines, changed by the tool)',
  ],
  ['no file left', 'small', 0, 2, shape(null, undefined, 0), '(deleted, +0 -2 ~0)'],
];
for (const [label, reason, added, removed, s, counts] of notes) {
  test(`renderDirect: ${label} -> ${counts}`, () =>
    assert.equal(
      renderDirect({
        id: 'abcd1234',
        path: 'src/a.ts',
        fields: { reason, added, removed },
        shape: s,
        invoke: 'fettle',
      }),
      `fettle recorded src/a.ts ${counts} as abcd1234; undo with: fettle rollback abcd1234`,
    ));
}

test('renderDirect: another session changed the file since this one last wrote it -> which, when, its change', () =>
  assert.equal(
    renderDirect({
      id: 'abcd1234',
      path: 'src/a.ts',
      fields: { reason: 'small', added: 1, removed: 1 },
      shape: shape(20, 2, 1),
      invoke: 'fettle',
      since: { session: 'S2', change: 'efgh5678', at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) },
    }),
    'fettle recorded src/a.ts (20 B, 2 lines, +1 -1 ~1) as abcd1234; undo with: fettle rollback abcd1234. Note: another agent session (S2) changed src/a.ts at 2026-01-02T03:04:05Z (change efgh5678) since this session last wrote it; make sure this write kept its work.',
  ));
