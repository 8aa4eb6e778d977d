// The contract planner (src/core/anchors.ts), pure: edits applied in order to bytes, each anchor matching exactly
// once, in the file's own encoding and line-break style; failures name the edit, the file and where to look.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureText, planContract, type ContractPlan } from '../../src/core/anchors';
import type { Contract, ContractEdit } from '../../src/core/contract';

const contract = (...edits: ContractEdit[]): Contract => ({ version: 1, scope: ['**'], edits, checks: [] });
const run = (files: Record<string, string | Buffer | null>, ...edits: ContractEdit[]): ContractPlan =>
  planContract(
    contract(...edits),
    new Map(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v])),
  );
const after = (p: ContractPlan, file: string): string | null => {
  assert.deepEqual(p.failures, []);
  const found = p.changed.find((c) => c.file === file);
  assert.ok(found, `${file} changed`);
  return found.after === null ? null : found.after.toString('latin1');
};
const R = (file: string, anchor: string, w: string): ContractEdit => ({ op: 'replace', file, anchor, with: w });

// [what, files, edits, the file checked, its bytes after (latin1)]
const cases: [string, Record<string, string | Buffer | null>, ContractEdit[], string, string | null][] = [
  ['replace a unique anchor', { a: 'one\ntwo\nthree\n' }, [R('a', 'two\n', '2\n')], 'a', 'one\n2\nthree\n'],
  [
    'insert after',
    { a: 'x\ny\n' },
    [{ op: 'insert-after', file: 'a', anchor: 'x\n', text: 'mid\n' }],
    'a',
    'x\nmid\ny\n',
  ],
  [
    'insert before',
    { a: 'x\ny\n' },
    [{ op: 'insert-before', file: 'a', anchor: 'y', text: 'pre-' }],
    'a',
    'x\npre-y\n',
  ],
  ['create a file', { n: null }, [{ op: 'create', file: 'n', text: 'new\n' }], 'n', 'new\n'],
  ['delete a file', { a: 'x\n' }, [{ op: 'delete', file: 'a' }], 'a', null],
  [
    "edits apply in order: the second anchors on the first one's text",
    { a: 'v1\n' },
    [R('a', 'v1', 'v2'), R('a', 'v2', 'v3')],
    'a',
    'v3\n',
  ],
  ['create, then edit it', { n: null }, [{ op: 'create', file: 'n', text: 'a\nb\n' }, R('n', 'b', 'B')], 'n', 'a\nB\n'],
  [
    'delete, then create: a new content',
    { a: 'old\n' },
    [
      { op: 'delete', file: 'a' },
      { op: 'create', file: 'a', text: 'new\n' },
    ],
    'a',
    'new\n',
  ],
  [
    'a CRLF file: "\\n" in the anchor matches CRLF, and the text is written CRLF',
    { a: 'a\r\nb\r\nc\r\n' },
    [R('a', 'a\nb\n', 'A\nB\n')],
    'a',
    'A\r\nB\r\nc\r\n',
  ],
  [
    'a CRLF file: an explicit "\\r\\n" is taken as written',
    { a: 'a\r\nb\r\n' },
    [R('a', 'a\r\n', 'x\r\n')],
    'a',
    'x\r\nb\r\n',
  ],
  ['a mostly-LF file keeps LF', { a: 'a\nb\nc\r\n' }, [R('a', 'a\nb\n', 'A\n')], 'a', 'A\nc\r\n'],
  [
    'bytes that are not UTF-8 outside the edit are kept as they are',
    { a: Buffer.from([0xe9, 0x0a, 0x61, 0x0a, 0xff]) },
    [R('a', 'a', 'b')],
    'a',
    '\xe9\nb\n\xff',
  ],
  [
    'a UTF-8 BOM stays',
    { a: '\ufeffkey=1\n' },
    [R('a', 'key=1', 'key=2')],
    'a',
    Buffer.from('\ufeffkey=2\n').toString('latin1'),
  ],
  [
    'a UTF-16LE file: anchor and text in UTF-16',
    { a: Buffer.from('\ufeffhello\r\nworld\r\n', 'utf16le') },
    [R('a', 'world\n', 'there\n')],
    'a',
    Buffer.from('\ufeffhello\r\nthere\r\n', 'utf16le').toString('latin1'),
  ],
];

for (const [what, files, edits, file, expected] of cases) {
  test(`planContract: ${what}`, () => assert.equal(after(run(files, ...edits), file), expected));
}

test('an anchor matching twice fails with the lines of both matches, and nothing changes', () => {
  const p = run({ a: 'x = 1\ny = 2\nx = 1\n' }, R('a', 'x = 1', 'x = 3'));
  assert.deepEqual(p.changed, []);
  assert.deepEqual(p.failures, [
    { edit: 0, op: 'replace', file: 'a', kind: 'several', matches: { lines: [1, 3], count: 2 } },
  ]);
  assert.equal(
    failureText(p.failures[0]!, contract(R('a', 'x = 1', 'x = 3'))),
    'edit 1 (replace a): the anchor "x = 1" matches 2 times (lines 1, 3); it must match exactly once. Make it longer, so it names one place.',
  );
});

test('overlapping occurrences count: "aa" in "aaa" matches twice', () => {
  assert.equal(run({ a: 'aaa' }, R('a', 'aa', 'b')).failures[0]?.kind, 'several');
});

test('a UTF-16 match must fall on a character: a match across two characters does not count', () => {
  // "\u6100\u0062": bytes 00 61 62 00; the UTF-16 anchor "a" is 61 00, found only at an odd offset
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('\u6100\u0062', 'utf16le')]);
  assert.equal(run({ a: bytes }, R('a', 'a', 'x')).failures[0]?.kind, 'none');
});

test('an anchor matching nothing names the nearest lines, with their numbers', () => {
  const file = 'import a from "a";\nexport const loadConfig = () => 1;\nexport const other = 2;\n';
  const edit = R('a', 'export const loadConfg = () => 1;', 'x');
  const p = run({ a: file }, edit);
  assert.deepEqual(p.failures[0]?.nearest, [
    { line: 2, text: 'export const loadConfig = () => 1;' },
    { line: 3, text: 'export const other = 2;' },
  ]);
  assert.equal(
    failureText(p.failures[0]!, contract(edit)),
    'edit 1 (replace a): the anchor "export const loadConfg = () => 1;" matches nothing. Nearest lines:\n    line 2: "export const loadConfig = () => 1;"\n    line 3: "export const other = 2;"',
  );
});

// [what, the file's line, the anchor, where the whitespace differs]
const spaces: [string, string, string, string][] = [
  ['a trailing space', 'let a = 1;', 'let a = 1; ', 'at the end'],
  ['a tab for spaces', '    go();', '\tgo();', 'at the start'],
  ['two spaces for one', 'if (x) y();', 'if (x)  y();', 'inside'],
];
for (const [what, line, anchor, where] of spaces)
  test(`an anchor that differs from a line only in whitespace (${what}) says so, quoting both`, () => {
    const edit = R('a', anchor, 'x');
    const p = run({ a: `first();\n${line}\n` }, edit);
    const [q, qa] = [JSON.stringify(line), JSON.stringify(anchor)];
    assert.equal(
      failureText(p.failures[0]!, contract(edit)),
      `edit 1 (replace a): the anchor ${qa} matches nothing. Nearest lines:\n    line 2: ${q}, which differs only in whitespace (${where}) from the anchor's ${qa}`,
    );
  });

test('a CRLF anchor in an LF file matches nothing', () => {
  assert.equal(run({ a: 'a\nb\n' }, R('a', 'a\r\nb', 'x')).failures[0]?.kind, 'none');
});

test('a missing file, an existing one to create: failures that say so', () => {
  const p = run({ a: null, b: 'x' }, R('a', 'x', 'y'), { op: 'create', file: 'b', text: 'y' });
  assert.deepEqual(
    p.failures.map((f) => f.kind),
    ['missing', 'exists'],
  );
  const c = contract(R('a', 'x', 'y'), { op: 'create', file: 'b', text: 'y' });
  assert.equal(failureText(p.failures[0]!, c), 'edit 1 (replace a): a does not exist (at this point of the contract).');
  assert.equal(
    failureText(p.failures[1]!, c),
    'edit 2 (create b): b already exists; change it with replace or insert edits, or delete it first.',
  );
});

test("a file's edits stop at its first failure; the other files are still tried and reported", () => {
  const p = run({ a: 'x\n', b: 'y\n' }, R('a', 'nope', '1'), R('a', 'x', '2'), R('b', 'nope', '3'));
  assert.deepEqual(
    p.failures.map((f) => [f.edit, f.file]),
    [
      [0, 'a'],
      [2, 'b'],
    ],
  );
});

test('edits that cancel out leave the file out of the changes', () => {
  assert.deepEqual(run({ a: 'x\n' }, R('a', 'x', 'y'), R('a', 'y', 'x')).changed, []);
});
