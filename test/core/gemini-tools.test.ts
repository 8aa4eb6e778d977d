// core/gemini-tools.ts: Gemini CLI 0.61's write_file and replace, byte for byte, or unsure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { predictReplace, predictWriteFile } from '../../src/core/gemini-tools';

const b = (s: string) => Buffer.from(s, 'utf8');
const bytes = (p: ReturnType<typeof predictReplace>) => (p.exact ? p.next.toString('utf8') : `unsure: ${p.why}`);

// [label, path, content, old bytes, result]
const WRITES: [string, string, string, string | null, string][] = [
  ['a new file, as given', 'a.txt', 'x\ny\n', null, 'x\ny\n'],
  ['an LF file keeps the content as given', 'a.txt', 'x\r\ny\n', 'old\n', 'x\r\ny\n'],
  ['a file holding one CRLF: every ending CRLF', 'a.txt', 'x\ny\r\n', 'a\r\nb\n', 'x\r\ny\r\n'],
  ['an empty file: as a new one', 'a.txt', 'x\n', '', 'x\n'],
  ['escape sequences Gemini may rewrite: unsure', 'a.txt', 'say \\"hi\\"', null, 'unsure'],
  ['escape sequences in a JSON file are never rewritten', 'a.json', '{"a": "\\n"}', null, '{"a": "\\n"}'],
];
for (const [label, path, content, old, result] of WRITES)
  test(`write_file: ${label}`, () => {
    const out = bytes(predictWriteFile(path, content, old === null ? null : b(old)));
    if (result === 'unsure') assert.match(out, /^unsure: /);
    else assert.equal(out, result);
  });

// [label, old_string, new_string, allow_multiple, old bytes, result]
const REPLACES: [string, string, string, boolean, string | null, string][] = [
  ['once', 'b', 'B', false, 'a\nb\nc\n', 'a\nB\nc\n'],
  ['`$` taken literally', 'b', '$&$1', false, 'a\nb\n', 'a\n$&$1\n'],
  ['a CRLF file: edited on LF, written back CRLF', 'b\nc', 'B\nC', false, 'a\r\nb\r\nc\r\n', 'a\r\nB\r\nC\r\n'],
  ['the final newline kept', 'c\n', 'C', false, 'a\nc\n', 'a\nC\n'],
  ['no final newline added', 'c', 'C\n', false, 'a\nc', 'a\nC'],
  ['every match with allow_multiple', 'x', 'y', true, 'x x\n', 'y y\n'],
  ['a new file from an empty old_string', '', 'new\n', false, null, 'new\n'],
  ['twice without allow_multiple: unsure', 'x', 'y', false, 'x x\n', 'unsure'],
  ['not there as it is (looser matches): unsure', ' b ', 'B', false, 'a\nb\n', 'unsure'],
  ['the same strings: unsure', 'b', 'b', false, 'b\n', 'unsure'],
  ['an existing file with an empty old_string: unsure', '', 'x', false, 'a\n', 'unsure'],
  ['a missing file: unsure', 'a', 'b', false, null, 'unsure'],
  ['not UTF-8: unsure', 'a', 'b', false, '\u0000', 'unsure'],
];
for (const [label, oldString, newString, allowMultiple, old, result] of REPLACES)
  test(`replace: ${label}`, () => {
    const before = old === '\u0000' ? Buffer.from([0xff, 0x61]) : old === null ? null : b(old);
    const out = bytes(predictReplace({ oldString, newString, allowMultiple }, before));
    if (result === 'unsure') assert.match(out, /^unsure: /);
    else assert.equal(out, result);
  });
