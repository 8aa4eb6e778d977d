// applyEdit / applyEdits: the file Claude Code's Edit and MultiEdit leave behind, or "unsure" whenever the
// tool would refuse the call or might change the text in a way fettle does not reproduce.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyEdit, applyEdits, type EditOp } from '../../src/core/edits';

const op = (oldString: string, newString: string, replaceAll = false): EditOp => ({ oldString, newString, replaceAll });
/** `ok:<text>` or `unsure:<why>`, so one table column states the whole expectation. */
const outcome = (r: ReturnType<typeof applyEdit>): string => (r.ok ? `ok:${r.text}` : `unsure:${r.why}`);

// [label, text on disk, edit, expected: exact text, or a pattern the unsure reason must match]
const single: [string, string, EditOp, string | RegExp][] = [
  ['unique match', 'a\nb\nc\n', op('b', 'B'), 'ok:a\nB\nc\n'],
  ['match spanning lines', 'a\nb\nc\n', op('a\nb', 'x'), 'ok:x\nc\n'],
  ['insert by anchoring on a line', 'a\nc\n', op('a\n', 'a\nb\n'), 'ok:a\nb\nc\n'],
  ['delete a whole line, newline included', 'a\nb\nc\n', op('b\n', ''), 'ok:a\nc\n'],
  ['new_string longer than the file', 'x', op('x', 'y'.repeat(50)), `ok:${'y'.repeat(50)}`],
  ['no match', 'a\nb\n', op('z', 'Z'), /not found/],
  ['match differs in case only', 'Hello\n', op('hello', 'bye'), /not found/],
  ['straight quotes where the file has curly ones', 'say \u201chi\u201d\n', op('say "hi"', 'say "bye"'), /not found/],
  ['two matches, replace_all unset', 'x\nx\n', op('x', 'y'), /matches 2 places/],
  ['three matches, replace_all false', 'ab ab ab', op('ab', 'c', false), /matches 3 places/],
  ['empty old_string on an existing file', 'a\n', op('', 'b'), /empty/],
  ['old_string equal to new_string', 'a\n', op('a', 'a'), /same/],
  [
    'replace_all: every occurrence',
    'foo 1\nfoo 2\nbar\nfoo 3\n',
    op('foo', 'baz', true),
    'ok:baz 1\nbaz 2\nbar\nbaz 3\n',
  ],
  ['replace_all with one occurrence', 'foo\n', op('foo', 'bar', true), 'ok:bar\n'],
  ['replace_all with none', 'foo\n', op('qux', 'bar', true), /not found/],
  ['replace_all: occurrences do not overlap', 'aaaa', op('aa', 'b', true), 'ok:bb'],
  ['replace_all: replacement containing the needle', 'a a', op('a', 'aa', true), 'ok:aa aa'],
  ['overlapping occurrences count once, left to right', 'aaa', op('aa', 'b'), 'ok:ba'],
  ['$& in new_string is literal', 'price: X\n', op('X', '$&$&'), 'ok:price: $&$&\n'],
  ['$1 and $$ in new_string are literal', 'v = X\n', op('X', "$1 $$ $' $`"), "ok:v = $1 $$ $' $`\n"],
  ['$& literal with replace_all', 'X X', op('X', '[$&]', true), 'ok:[$&] [$&]'],
  ['regex metacharacters in old_string are literal', 'a.*b\naxxb\n', op('a.*b', 'R'), 'ok:R\naxxb\n'],
  ['CRLF text edited byte for byte', 'a\r\nb\r\n', op('b', 'B'), 'ok:a\r\nB\r\n'],
  ['non-ASCII text', 'caf\u00e9 \u2713\n', op('\u2713', '\u2717'), 'ok:caf\u00e9 \u2717\n'],
];
for (const [label, text, edit, expected] of single) {
  test(`applyEdit: ${label}`, () => {
    const got = outcome(applyEdit(text, edit));
    if (typeof expected === 'string') assert.equal(got, expected);
    else assert.match(got, /^unsure:/), assert.match(got, expected);
  });
}

// [label, text on disk, edits in order, expected]
const multi: [string, string, EditOp[], string | RegExp][] = [
  ['edits apply in order, each to the previous result', 'one\n', [op('one', 'two'), op('two', 'three')], 'ok:three\n'],
  [
    'order matters: the reverse order fails',
    'one\n',
    [op('two', 'three'), op('one', 'two')],
    /^unsure:edit 1: .*not found/,
  ],
  ['independent edits', 'a\nb\nc\n', [op('a', 'A'), op('c', 'C')], 'ok:A\nb\nC\n'],
  ['all or nothing: a failing last edit', 'a\nb\n', [op('a', 'A'), op('z', 'Z')], /^unsure:edit 2: .*not found/],
  [
    'all or nothing: an ambiguous middle edit',
    'a\nx\nx\n',
    [op('a', 'A'), op('x', 'y'), op('A', 'B')],
    /^unsure:edit 2: .*matches 2/,
  ],
  ['an edit made ambiguous by an earlier one', 'a\nb\n', [op('a', 'b'), op('b', 'c')], /^unsure:edit 2: .*matches 2/],
  ['replace_all inside a sequence', 'x x\ny\n', [op('x', 'z', true), op('y', 'w')], 'ok:z z\nw\n'],
  ['one edit: the reason has no edit number', 'a\n', [op('z', 'Z')], /^unsure:old_string was not found/],
  ['$& stays literal across edits', 'X\n', [op('X', '$&'), op('$&', '$1')], 'ok:$1\n'],
];
for (const [label, text, edits, expected] of multi) {
  test(`applyEdits: ${label}`, () => {
    const got = outcome(applyEdits(text, edits));
    if (typeof expected === 'string') assert.equal(got, expected);
    else assert.match(got, expected);
  });
}

// Claude Code's Edit, given an empty new_string and an old_string without its newline, deletes the line's
// newline too when old_string + "\n" is in the file. fettle reproduces that.
test("applyEdit: deleting a line's text without its newline takes the newline too, as the tool does", () => {
  assert.equal(outcome(applyEdit('a\nb\nc\n', op('b', ''))), 'ok:a\nc\n');
});
