// The packed-refs text as git reads and writes it: other records kept byte for byte, sorted files kept sorted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PACKED_REFS_HEADER, parsePackedRefs, withRefs } from '../../src/core/packed-refs';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const T = 'd'.repeat(40);
const S = `${'e'.repeat(64)}`;
const sortedFile = `${PACKED_REFS_HEADER}${A} refs/heads/main\n${T} refs/tags/v1\n^${A}\n`;

// [what, file, refs to pack, file written]
const cases: [string, string, [string, string][], string][] = [
  [
    'no file: git header, sorted',
    '',
    [
      ['refs/fettle/z', B],
      ['refs/fettle/a', C],
    ],
    `${PACKED_REFS_HEADER}${C} refs/fettle/a\n${B} refs/fettle/z\n`,
  ],
  [
    'sorted: inserted in byte order, peeled line kept',
    sortedFile,
    [['refs/heads/x', B]],
    `${PACKED_REFS_HEADER}${A} refs/heads/main\n${B} refs/heads/x\n${T} refs/tags/v1\n^${A}\n`,
  ],
  [
    'sorted: `-` sorts before `/`',
    sortedFile,
    [
      ['refs/fettle/a', B],
      ['refs/fettle-discarded/a', C],
    ],
    `${PACKED_REFS_HEADER}${C} refs/fettle-discarded/a\n${B} refs/fettle/a\n${A} refs/heads/main\n${T} refs/tags/v1\n^${A}\n`,
  ],
  [
    'sorted: a packed value replaced in place',
    `${PACKED_REFS_HEADER}${A} refs/fettle/a\n${A} refs/heads/main\n`,
    [['refs/fettle/a', B]],
    `${PACKED_REFS_HEADER}${B} refs/fettle/a\n${A} refs/heads/main\n`,
  ],
  [
    'unsorted: order kept, new refs at the end',
    `# pack-refs with: peeled \n${T} refs/tags/v1\n^${A}\n${A} refs/heads/main\n`,
    [['refs/fettle/a', B]],
    `# pack-refs with: peeled \n${T} refs/tags/v1\n^${A}\n${A} refs/heads/main\n${B} refs/fettle/a\n`,
  ],
  [
    'no header: none added',
    `${A} refs/heads/main\n`,
    [['refs/fettle/a', B]],
    `${A} refs/heads/main\n${B} refs/fettle/a\n`,
  ],
  [
    'header without records: kept',
    PACKED_REFS_HEADER,
    [['refs/fettle/a', B]],
    `${PACKED_REFS_HEADER}${B} refs/fettle/a\n`,
  ],
  [
    'sha256 oids',
    `${PACKED_REFS_HEADER}${S} refs/heads/main\n`,
    [['refs/fettle/a', S]],
    `${PACKED_REFS_HEADER}${S} refs/fettle/a\n${S} refs/heads/main\n`,
  ],
];
for (const [what, file, refs, written] of cases) {
  test(`withRefs: ${what}`, () => {
    const parsed = parsePackedRefs(file);
    assert.ok(parsed);
    assert.equal(withRefs(parsed, new Map(refs)), written);
  });
}

// [what, file]: anything git would not read as packed-refs is left alone
const refused: [string, string][] = [
  ['no final newline', `${A} refs/heads/main`],
  ['another comment', `# something else\n${A} refs/heads/main\n`],
  ['a peeled line first', `^${A}\n${A} refs/heads/main\n`],
  ['two peeled lines', `${T} refs/tags/v1\n^${A}\n^${A}\n`],
  ['a short oid', `${'a'.repeat(39)} refs/heads/main\n`],
  ['no refname', `${A} \n`],
];
for (const [what, file] of refused)
  test(`parsePackedRefs refuses ${what}`, () => assert.equal(parsePackedRefs(file), null));

test('parsePackedRefs reads the traits and every record with its peeled line', () => {
  assert.deepEqual(parsePackedRefs(sortedFile), {
    header: PACKED_REFS_HEADER,
    sorted: true,
    records: [
      { oid: A, name: 'refs/heads/main', text: `${A} refs/heads/main\n` },
      { oid: T, name: 'refs/tags/v1', text: `${T} refs/tags/v1\n^${A}\n` },
    ],
  });
});
