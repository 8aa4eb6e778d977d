// What a repository's config file says about writing objects: the compression level and extensions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectWritingFrom } from '../../src/store/repo-config';

// [config text, level, unsupported extension]
const cases: [string, number, string | undefined][] = [
  ['', 1, undefined],
  ['[pack]\n\tcompression = 9\n', 9, undefined],
  ['[core]\n\tcompression = -1\n', 6, undefined],
  ['[core]\n\tcompression = 3\n[pack]\n\tcompression = 0\n', 0, undefined],
  ['[core]\n\tlooseCompression = 9\n', 1, undefined],
  ['[pack]\n\tcompression = 12\n', 1, undefined],
  ['[PACK]\n\tCompression = 4 ; a comment\n', 4, undefined],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n', 1, undefined],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tcompatObjectFormat = sha1\n', 1, 'compatobjectformat'],
  ['[core]\n\trepositoryformatversion = 0\n[extensions]\n\tcompatObjectFormat = sha1\n', 1, undefined],
  ['[remote "origin"]\n\tcompression = 9\n', 1, undefined],
];

for (const [text, level, unsupported] of cases) {
  test(`config ${JSON.stringify(text)} -> level ${level}, unsupported ${unsupported}`, () =>
    assert.deepEqual(objectWritingFrom(text), { level, unsupported }));
}
