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
  [
    'straight quotes find curly ones; new_string curls',
    'say \u201chi\u201d\n',
    op('say "hi"', 'say "bye"'),
    'ok:say \u201cbye\u201d\n',
  ],
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
  [
    "an edit of an earlier edit's new text is refused",
    'one\n',
    [op('one', 'two'), op('two', 'three')],
    /^unsure:edit 2: .*earlier edit/,
  ],
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
  [
    'an edit made ambiguous by an earlier one',
    'a\nb\nab\n',
    [op('a\n', 'x\n'), op('b', 'c')],
    /^unsure:edit 2: .*matches 2/,
  ],
  ['replace_all inside a sequence', 'x x\ny\n', [op('x', 'z', true), op('y', 'w')], 'ok:z z\nw\n'],
  ['one edit: the reason has no edit number', 'a\n', [op('z', 'Z')], /^unsure:old_string was not found/],
  ['$& stays literal across edits', 'X Y\n', [op('X', '$&'), op('Y', '$1')], 'ok:$& $1\n'],
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

// The client's matching and replacing, case by case (docs/HOOK.md, "Byte for byte"). [label, text, edit, expected]
const client: [string, string, EditOp, string | RegExp][] = [
  [
    'curly doubles: opening after a space, closing otherwise',
    'x = \u201ca\u201d\n',
    op('x = "a"', 'y = "b" ("c")'),
    'ok:y = \u201cb\u201d (\u201cc\u201d)\n',
  ],
  [
    'curly singles: an apostrophe in a word is a right quote',
    'it\u2019s \u2018q\u2019\n',
    op("it's 'q'", "don't 'r'"),
    'ok:don\u2019t \u2018r\u2019\n',
  ],
  [
    'a curly match with replace_all replaces that spelling only',
    '\u201ca\u201d \u201da\u201c \u201ca\u201d',
    op('"a"', '"b"', true),
    'ok:\u201cb\u201d \u201da\u201c \u201cb\u201d',
  ],
  ['an exact match wins over a curly one', '"a" \u201ca\u201d', op('"a"', '"b"'), 'ok:"b" \u201ca\u201d'],
  ['\\u escapes in old_string match the characters', 'caf\u00e9\n', op('caf\\u00e9', 'th\\u00e9'), 'ok:th\u00e9\n'],
  [
    "characters in old_string match the file's \\u escapes",
    's = "caf\\u00e9"\n',
    op('caf\u00e9', 'th\u00e9'),
    'ok:s = "th\\u00e9"\n',
  ],
  [
    "an unknown character becomes an escape in the file's case",
    's = "\\u00C9"\n',
    op('\u00c9', '\u00c9\u00e8'),
    'ok:s = "\\u00C9\\u00E8"\n',
  ],
  ['an escaped backslash is not an escape', 'a\\\\u00e9\n', op('a\u00e9', 'b'), /not found/],
  ['empty new_string deletes the line', 'a\nb\nc\n', op('b', ''), 'ok:a\nc\n'],
  ['empty new_string, last line without newline', 'a\nb', op('b', ''), 'ok:a\n'],
  ['empty new_string with replace_all: only matches followed by a newline', 'x\nx x\n', op('x', '', true), 'ok:x '],
  ['empty old_string on a whitespace-only file replaces it', ' \n\n', op('', 'new\n'), 'ok:new\n'],
  ['empty old_string keeps a BOM', '\uFEFF\n', op('', 'new'), 'ok:\uFEFFnew'],
  ['an edit that changes nothing is refused', '\u201ca\u201d', op('"a"', '\u201ca\u201d'), /changes nothing/],
  ['old_string of an unpaired surrogate is matched as is', 'a\uD800b', op('\uD800', 'x'), 'ok:axb'],
  ['regex characters in an escape-matched old_string', 'x.\\u00e9*\n', op('x.\u00e9*', 'y'), 'ok:y\n'],
];
for (const [label, text, edit, expected] of client) {
  test(`as the client: ${label}`, () => {
    const got = outcome(applyEdit(text, edit));
    if (typeof expected === 'string') assert.equal(got, expected);
    else assert.match(got, expected);
  });
}
