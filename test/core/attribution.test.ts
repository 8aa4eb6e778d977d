// Line origins carried through a file's contents (core/attribution.ts) and the note that keeps them with a commit
// (core/attribution-note.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentOrigin, addedLines, carry, linesOf, toRanges, walkSteps } from '../../src/core/attribution';
import { decodeNote, encodeNote, parseRewrites } from '../../src/core/attribution-note';

const L = (text: string) => text.split('');

// [bytes, lines]
const splits: [string, string[]][] = [
  ['', []],
  ['a', ['a']],
  ['a\n', ['a']],
  ['a\nb', ['a', 'b']],
  ['a\n\n', ['a', '']],
  ['\xff\n', ['\xff']],
];
for (const [bytes, lines] of splits)
  test(`linesOf(${JSON.stringify(bytes)})`, () => assert.deepEqual(linesOf(Buffer.from(bytes, 'latin1')), lines));

test('linesOf keeps bytes that are not UTF-8 apart: two invalid sequences stay two different lines', () =>
  assert.notEqual(linesOf(Buffer.from([0xc3, 0x0a]))[0], linesOf(Buffer.from([0xc4, 0x0a]))[0]));

// [from, to, result]: `from` lines carry their own letter as origin; new lines get '*'
const carries: [string, string, string][] = [
  ['abc', 'abc', 'abc'],
  ['abc', 'aXbc', 'a*bc'],
  ['abc', 'ac', 'ac'],
  ['abc', 'aYc', 'a*c'],
  ['', 'xy', '**'],
  ['abc', '', ''],
  ['abcdef', 'abXdeYf', 'ab*de*f'],
];
for (const [from, to, result] of carries)
  test(`carry ${from || '-'} -> ${to || '-'} = ${result || '-'}`, () =>
    assert.equal(carry(L(from), L(from), L(to), '*').join(''), result));

const o = (agent: string, change: string): AgentOrigin => ({ agent, change });

test('walkSteps: each step gives its lines its origin; edits between steps and lines before the first have none', () => {
  const steps = [
    { before: L('ab'), after: L('aXb'), origin: o('claude', 'c1') },
    // a person typed P between the two steps; codex rewrote X
    { before: L('aXbP'), after: L('aYbP'), origin: o('codex', 'c2') },
  ];
  const got = walkSteps(steps, L('aYbPZ')).map((x) => x?.change ?? '-');
  assert.deepEqual(got, ['-', 'c2', '-', '-', '-']);
});

test('walkSteps: a line an agent wrote keeps its origin through later steps that leave it alone', () => {
  const steps = [
    { before: [], after: L('ab'), origin: o('gemini', 'g1') },
    { before: L('ab'), after: L('abc'), origin: o('claude', 'c1') },
  ];
  assert.deepEqual(
    walkSteps(steps, L('abc')).map((x) => x?.change),
    ['g1', 'g1', 'c1'],
  );
});

test('walkSteps with no steps attributes nothing', () => assert.deepEqual(walkSteps([], L('ab')), [null, null]));

// [parent, commit, added (0-based)]
const added: [string, string, number[]][] = [
  ['abc', 'abc', []],
  ['abc', 'abXc', [2]],
  ['', 'ab', [0, 1]],
  ['abc', 'aYc', [1]],
];
for (const [parent, lines, want] of added)
  test(`addedLines ${parent || '-'} -> ${lines}`, () => assert.deepEqual(addedLines(L(parent), L(lines)), want));

// [numbers, ranges]
const ranges: [number[], [number, number][]][] = [
  [[], []],
  [[1], [[1, 1]]],
  [
    [3, 1, 2, 7],
    [
      [1, 3],
      [7, 7],
    ],
  ],
  [[4, 4], [[4, 4]]],
];
for (const [numbers, want] of ranges)
  test(`toRanges ${numbers.join(',') || '-'}`, () => assert.deepEqual(toRanges(numbers), want));

test('a note round-trips: paths and values with spaces, quotes and = are quoted, ranges grouped per agent call', () => {
  const claude: AgentOrigin = { agent: 'claude', session: 'a b', turn: 3, tool: 'Edit', change: 'k3x9q2mz' };
  const codex: AgentOrigin = { agent: 'codex', session: 's="1"', tool: 'apply_patch', change: 'p0p0p0p0' };
  const attribution = new Map([
    [
      'src/a b.ts',
      new Map([
        [1, claude],
        [2, claude],
        [3, claude],
        [9, codex],
        [12, claude],
      ]),
    ],
    [' lead', new Map([[1, codex]])],
  ]);
  const text = encodeNote(attribution) ?? '';
  assert.equal(
    text,
    [
      'fettle-attribution v1',
      'file " lead"',
      '1 codex session="s=\\"1\\"" tool=apply_patch change=p0p0p0p0',
      'file src/a b.ts',
      '1-3,12 claude session="a b" turn=3 tool=Edit change=k3x9q2mz',
      '9 codex session="s=\\"1\\"" tool=apply_patch change=p0p0p0p0',
      '',
    ].join('\n'),
  );
  assert.deepEqual(decodeNote(text), attribution);
});

test('a note with no agent line is no note', () => assert.equal(encodeNote(new Map([['a', new Map()]])), null));

// [text, paths decoded]: what is not fettle's note, or lines this version does not know, decode to nothing
const notes: [string, string[]][] = [
  ['a note a person wrote\n', []],
  ['fettle-attribution v1\nfile a\nnonsense here\n1-2 claude\n', []],
  ['fettle-attribution v1\nfile a\n1 claude change=x future=1\n', ['a']],
  ['fettle-attribution v1\n1 claude change=x\n', []],
];
for (const [text, paths] of notes)
  test(`decodeNote ${JSON.stringify(text).slice(0, 40)}`, () => assert.deepEqual([...decodeNote(text).keys()], paths));

test("parseRewrites groups post-rewrite's old commits by the new one (a squash), skipping what is not a pair", () => {
  const [a, b, c] = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];
  assert.deepEqual(parseRewrites(`${a} ${c}\n${b} ${c} extra\nnot a line\n`), new Map([[c, [a, b]]]));
});
