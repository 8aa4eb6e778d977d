// How Claude Code reads a file to change it and writes it back: encoding, BOM, line-ending style.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeText, isCrlfStyle, readTextFile, sniffText, writtenBytes } from '../../src/core/text-file';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

// [label, bytes, encoding or the refusal's words]
const sniffs: [string, Buffer, string | RegExp][] = [
  ['plain UTF-8', b('a\n'), 'utf8'],
  ['UTF-8 with a BOM', b([0xef, 0xbb, 0xbf], 'a'), 'utf8'],
  ['empty', b(), 'utf8'],
  ['UTF-16LE by its BOM', b([0xff, 0xfe, 0x61, 0]), 'utf16le'],
  ['UTF-16LE with an odd byte', b([0xff, 0xfe, 0x61]), /odd number/],
  ['UTF-16BE', b([0xfe, 0xff, 0, 0x61]), /big-endian/],
  ['a NUL early', b('a', [0], 'b'), /NUL/],
  ['a NUL past 8,000 bytes is text', b('a'.repeat(8000), [0]), 'utf8'],
  ['invalid UTF-8', b([0x61, 0xc3]), /not UTF-8/],
];
for (const [label, bytes, expected] of sniffs) {
  test(`sniffText: ${label}`, () => {
    const s = sniffText(bytes);
    if (typeof expected === 'string') assert.deepEqual(s, { text: true, encoding: expected });
    else assert.ok(!s.text && expected.test(s.why));
  });
}

// [label, decoded text, CRLF style]
const styles: [string, string, boolean][] = [
  ['all LF', 'a\nb\n', false],
  ['all CRLF', 'a\r\nb\r\n', true],
  ['more CRLF', 'a\r\nb\r\nc\n', true],
  ['a tie is LF', 'a\r\nb\n', false],
  ['no line break', 'abc', false],
  ['only the first 4,096 characters count', `${'a\n'.repeat(2048)}${'b\r\n'.repeat(3000)}`, false],
  ['a lone CR is neither', 'a\rb\r\nc', true],
];
for (const [label, text, crlf] of styles) test(`isCrlfStyle: ${label}`, () => assert.equal(isCrlfStyle(text), crlf));

test('readTextFile: CRLF read as LF, the BOM kept in the text, the style remembered', () => {
  assert.deepEqual(readTextFile(b([0xef, 0xbb, 0xbf], 'a\r\nb\r\n')), {
    encoding: 'utf8',
    text: '\uFEFFa\nb\n',
    crlf: true,
  });
  const utf16 = Buffer.concat([b([0xff, 0xfe]), Buffer.from('x\r\ny\n', 'utf16le')]);
  assert.deepEqual(readTextFile(utf16), { encoding: 'utf16le', text: '\uFEFFx\ny\n', crlf: false });
});

test('encodeText: in CRLF style every line break is CRLF, lone CRs stay', () => {
  assert.equal(encodeText('a\nb\r\nc\rd', 'utf8', true).toString(), 'a\r\nb\r\nc\rd');
  assert.equal(encodeText('a\nb\r\n', 'utf8', false).toString(), 'a\nb\r\n');
  assert.deepEqual(encodeText('\uFEFFa', 'utf16le', false), Buffer.from([0xff, 0xfe, 0x61, 0]));
});

test('writtenBytes: a new file is UTF-8; an old BOM is put back unless the content has one', () => {
  assert.deepEqual(writtenBytes('é', null), Buffer.from('é'));
  assert.deepEqual(writtenBytes('x', b([0xef, 0xbb, 0xbf], 'y')), b([0xef, 0xbb, 0xbf], 'x'));
  assert.deepEqual(writtenBytes('\uFEFFx', b([0xef, 0xbb, 0xbf], 'y')), b([0xef, 0xbb, 0xbf], 'x'));
  assert.deepEqual(writtenBytes('x', b('y')), b('x'));
  assert.deepEqual(writtenBytes('', b([0xef, 0xbb, 0xbf], 'y')), b());
  assert.ok(!Buffer.isBuffer(writtenBytes('x', b([0]))));
});
