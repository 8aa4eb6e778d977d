import assert from 'node:assert/strict';
import { test } from 'node:test';
import { opencodeEdit, opencodeWrite, patchedFiles } from '../../src/core/opencode-tools';

const BOM = '\uFEFF';
const b = (s: string) => Buffer.from(s, 'utf8');
const edit = (oldString: string, newString: string, replaceAll = false) => ({ oldString, newString, replaceAll });

// [label, content, old bytes, bytes written]
const writes: [string, string, Buffer | null, string][] = [
  ['a new file', 'x\r\ny\n', null, 'x\r\ny\n'],
  ['over a file', 'new\n', b('old\n'), 'new\n'],
  ["the file's BOM kept", 'new\n', b(`${BOM}old\n`), `${BOM}new\n`],
  ["the content's BOM kept", `${BOM}new\n`, b('old\n'), `${BOM}new\n`],
  ['one BOM of two', `${BOM}${BOM}new\n`, null, `${BOM}new\n`],
  ['a UTF-16 file written over as UTF-8, no BOM', 'new\n', Buffer.from([0xff, 0xfe, 0x61, 0x00]), 'new\n'],
];
for (const [label, content, old, written] of writes)
  test(`opencode write: ${label}`, () => assert.deepEqual(opencodeWrite(content, old), b(written)));

// [label, file, edit, the result, or why it is unsure]
const edits: [string, string | null, ReturnType<typeof edit>, string | RegExp][] = [
  ['one exact match', 'a\nb\nc\n', edit('b\n', 'B\n'), 'a\nB\nc\n'],
  ['a CRLF file: the strings take its endings', 'a\r\nb\r\nc\r\n', edit('a\nb\n', 'x\ny\n'), 'x\r\ny\r\nc\r\n'],
  ['one CRLF makes the file CRLF', 'a\nb\r\n', edit('a\n', 'A\n'), /not in the file as given/],
  ['replaceAll, every match', 'x.x.x', edit('x', 'y', true), 'y.y.y'],
  ["replaceAll as JavaScript's, $& included", 'ab', edit('a', '[$&]', true), '[a]b'],
  ['the only match, $& as given', 'ab', edit('a', '[$&]'), '[$&]b'],
  ['several matches', 'x.x', edit('x', 'y'), /occurs more than once/],
  ['no exact match', 'a  b\n', edit('a b', 'c'), /not in the file as given/],
  ['the same strings', 'a\n', edit('a', 'a'), /are the same/],
  ['an empty oldString on a file', 'a\n', edit('', 'b'), /empty oldString on an existing file/],
  ['a new file from an empty oldString', null, edit('', `${BOM}new\n`), `${BOM}new\n`],
  ['a missing file', null, edit('a', 'b'), /does not exist/],
  ['the BOM kept', `${BOM}a\n`, edit('a', 'b'), `${BOM}b\n`],
];
for (const [label, file, op, expected] of edits)
  test(`opencode edit: ${label}`, () => {
    const r = opencodeEdit(op, file === null ? null : b(file));
    if (typeof expected === 'string') assert.deepEqual(r, { exact: true, next: b(expected) });
    else assert.match(r.exact ? '' : r.why, expected);
  });

test('opencode edit: a file that is not UTF-8 is unsure', () =>
  assert.deepEqual(opencodeEdit(edit('a', 'b'), Buffer.from([0x61, 0xff])), {
    exact: false,
    why: 'the file is not UTF-8 text',
  }));

test('the files an apply_patch names, once each, in order', () =>
  assert.deepEqual(
    patchedFiles(
      '*** Begin Patch\r\n*** Update File: a.ts\n*** Move to: b/c.ts\n@@\n-x\n+y\n*** Add File: d.ts\n+new\n*** Delete File: a.ts\n*** End Patch',
    ),
    ['a.ts', 'b/c.ts', 'd.ts'],
  ));
