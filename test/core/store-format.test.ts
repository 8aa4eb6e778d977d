// Reading a store format stamp, pure: the version its first line names, or null when it names none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { glimpse, parseStamp, STORE_FORMAT, stampText } from '../../src/core/store-format';

// [what the stamp holds, the version read]
const stamps: [string, number | null][] = [
  ['1\n', 1],
  ['1', 1],
  ['2\n', 2],
  [' 12 \r\n', 12],
  ['3\nfeatures: later ones\n', 3],
  ['999999999\n', 999_999_999],
  ['', null],
  ['\n1\n', null],
  ['0\n', null],
  ['01\n', null],
  ['-1\n', null],
  ['1.5\n', null],
  ['two\n', null],
  ['1 2\n', null],
  ['1000000000\n', null],
  ['{"format":2}', null],
];
for (const [text, version] of stamps)
  test(`parseStamp(${JSON.stringify(text)}) is ${version}`, () => assert.equal(parseStamp(text), version));

test('the stamp this fettle writes reads back as its own format', () =>
  assert.equal(parseStamp(stampText()), STORE_FORMAT));

// [what the stamp holds, as a message shows it]
const glimpses: [string, string][] = [
  ['', 'nothing'],
  ['two\n', '"two\\n"'],
  ['x'.repeat(50), `"${'x'.repeat(40)}…"`],
];
for (const [text, shown] of glimpses)
  test(`glimpse(${JSON.stringify(text)})`, () => assert.equal(glimpse(text), shown));
