// What Claude Code's Read shows of a file: the lines a call asks for, whether its response is a text file and the
// whole of it, and whether the text it returned shows given bytes (core/client-read.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readWindow, showsBytes, showsWhole, shownFile } from '../../src/core/client-read';

const B = (s: string) => Buffer.from(s);
const ten = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n';

// [label, offset, limit, file, what is asked for]
const windows: [string, number | undefined, number | undefined, string, string][] = [
  ['no offset, no limit', undefined, undefined, ten, 'whole'],
  ['offset 0 is line 1', 0, undefined, ten, 'whole'],
  ['a limit covering the file', 1, 10, ten, 'whole'],
  ['a limit short of the file', 1, 9, ten, '1+9'],
  ['an offset', 3, undefined, ten, '3+8'],
  ['offset and limit', 3, 2, ten, '3+2'],
  ['past the end', 11, undefined, ten, 'past'],
  ['a file over the 2,000-line page', undefined, undefined, 'x\n'.repeat(2001), '1+2000'],
  ['an empty file', undefined, undefined, '', 'whole'],
];
for (const [label, offset, limit, file, want] of windows) {
  test(`readWindow: ${label}`, () => {
    const r = readWindow({ offset, limit }, B(file));
    assert.equal(r.kind === 'window' ? `${r.window.offset}+${r.window.limit}` : r.kind, want);
  });
}

// [label, what the tool returned, the bytes on disk, shows them]
const shows: [string, string, Buffer, boolean][] = [
  ['the text, last newline not shown', 'a\nb', B('a\nb\n'), true],
  ['the text exactly', 'a\nb', B('a\nb'), true],
  ['CRLF shown as LF', 'a\nb', B('a\r\nb\r\n'), true],
  ['a byte-order mark not shown', 'a', B('\uFEFFa\n'), true],
  ['other text', 'a\nc', B('a\nb\n'), false],
  ['a line more on disk', 'a', B('a\nb\n'), false],
  ['not UTF-8', 'caf\uFFFD', Buffer.from('caf\xe9', 'latin1'), false],
];
for (const [label, content, bytes, want] of shows) {
  test(`showsBytes: ${label}`, () => assert.equal(showsBytes(content, bytes), want));
}

const file = (f: Record<string, unknown>) => ({ type: 'text', file: { content: 'a', startLine: 1, ...f } });
// [label, tool_response, a text file shown, the whole of it]
const responses: [string, unknown, boolean, boolean][] = [
  ['a whole text file', file({ numLines: 3, totalLines: 3 }), true, true],
  ['a page of it', file({ numLines: 3, totalLines: 9 }), true, false],
  ['lines from 4', file({ startLine: 4, numLines: 6, totalLines: 9 }), true, false],
  ['cut by the token cap', file({ numLines: 3, totalLines: 3, truncatedByTokenCap: true }), false, false],
  ['an image', { type: 'image', file: { base64: '' } }, false, false],
  ['no response', undefined, false, false],
  ['content not a string', file({ content: 1, numLines: 1, totalLines: 1 }), false, false],
];
for (const [label, response, text, whole] of responses) {
  test(`shownFile: ${label}`, () => {
    const shown = shownFile(response);
    assert.deepEqual([shown !== null, shown !== null && showsWhole(shown)], [text, whole]);
  });
}
