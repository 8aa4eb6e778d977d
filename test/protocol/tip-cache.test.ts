// When a listing rewrites the tip cache (src/protocol/tip-cache.ts): a few records new since are read from git in
// the same one cat-file, so the ~440 KB file is not rewritten by every `status` after a write.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { worthWriting } from '../../src/protocol/tip-cache';

// [what, commits read from git, ids no ref names, refs listed, rewritten]
const cases: [string, number, number, number, boolean][] = [
  ['nothing new', 0, 0, 1000, false],
  ['one record new in a long history', 1, 0, 1000, false],
  ['31 new in a long history', 31, 0, 1000, false],
  ['32 new in a long history', 32, 0, 1000, true],
  ['the first listing of a long history', 1000, 0, 1000, true],
  ['32 refs gone in a long history', 0, 32, 1000, true],
  ['one new among 3', 1, 0, 3, true],
  ['one of 8 new', 1, 0, 8, false],
  ['two of 8 new', 2, 0, 8, true],
  ['every ref gone', 0, 5, 0, true],
  ['no refs, nothing kept', 0, 0, 0, false],
];
for (const [what, unknown, stale, listed, expected] of cases)
  test(`tip cache: ${what} -> ${expected ? 'rewritten' : 'kept'}`, () =>
    assert.equal(worthWriting(unknown, stale, listed), expected));
