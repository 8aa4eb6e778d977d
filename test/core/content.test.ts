import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyContent, countLines, countLinesIn, MAX_DIFF_BYTES } from '../../src/core/content';

const b = (s: string) => Buffer.from(s, 'utf8');

// [label, bytes, expected kind]
const kinds: [string, Buffer, string][] = [
  ['empty', Buffer.alloc(0), 'text'],
  ['ascii text', b('hello\nworld\n'), 'text'],
  ['multi-byte utf8', b('héllo → 世界 😀\n'), 'text'],
  ['CRLF text', b('a\r\nb\r\n'), 'text'],
  ['NUL byte', Buffer.from([0x61, 0x00, 0x62]), 'binary'],
  ['NUL byte at 7999', Buffer.concat([Buffer.alloc(7999, 0x61), Buffer.from([0])]), 'binary'],
  ['invalid utf8 (lone 0xff)', Buffer.from([0x61, 0xff, 0x62]), 'binary'],
  ['truncated utf8 sequence', Buffer.from([0x61, 0xe2, 0x82]), 'binary'],
  ['latin1 é', Buffer.from('caf\xe9', 'latin1'), 'binary'],
  ['utf8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('x')]), 'text'],
  ['exactly 5 MB of text', Buffer.alloc(MAX_DIFF_BYTES, 0x61), 'text'],
  ['5 MB + 1 byte', Buffer.alloc(MAX_DIFF_BYTES + 1, 0x61), 'oversize'],
  ['over 5 MB with a NUL', Buffer.alloc(MAX_DIFF_BYTES + 10, 0), 'oversize'],
];

for (const [label, bytes, expected] of kinds) {
  test(`classifyContent: ${label} -> ${expected}`, () => assert.equal(classifyContent(bytes), expected));
}

test('MAX_DIFF_BYTES is 5 MB', () => assert.equal(MAX_DIFF_BYTES, 5 * 1024 * 1024));

// [text, lines as a unified diff counts them]
const counts: [string, number][] = [
  ['', 0],
  ['a', 1],
  ['a\n', 1],
  ['a\nb', 2],
  ['a\nb\n', 2],
  ['\n', 1],
  ['\n\n', 2],
  ['a\r\nb\r\n', 2],
  ['a\rb', 1],
];

for (const [text, expected] of counts) {
  test(`countLines(${JSON.stringify(text)}) = ${expected}, from the string and from its bytes`, () =>
    assert.deepEqual([countLines(text), countLinesIn(Buffer.from(text))], [expected, expected]));
}
