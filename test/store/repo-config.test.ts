// What a repository's config file says about writing objects and refs: the compression level, extensions, and
// what sends new refs through git.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectWritingFrom } from '../../src/store/repo-config';

// [config text, level, level for trees, unsupported extension]
const cases: [string, number, number, string | undefined][] = [
  ['', 1, 0, undefined],
  ['[pack]\n\tcompression = 9\n', 9, 9, undefined],
  ['[core]\n\tcompression = -1\n', 6, 6, undefined],
  ['[core]\n\tcompression = 3\n[pack]\n\tcompression = 0\n', 0, 0, undefined],
  ['[core]\n\tlooseCompression = 9\n', 1, 0, undefined],
  ['[pack]\n\tcompression = 12\n', 1, 0, undefined],
  ['[PACK]\n\tCompression = 4 ; a comment\n', 4, 4, undefined],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n', 1, 0, undefined],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tcompatObjectFormat = sha1\n', 1, 0, 'compatobjectformat'],
  ['[core]\n\trepositoryformatversion = 0\n[extensions]\n\tcompatObjectFormat = sha1\n', 1, 0, undefined],
  ['[remote "origin"]\n\tcompression = 9\n', 1, 0, undefined],
];

for (const [text, level, treeLevel, unsupported] of cases) {
  test(`config ${JSON.stringify(text)} -> level ${level}, trees ${treeLevel}, unsupported ${unsupported}`, () => {
    const { level: l, treeLevel: t, unsupported: u } = objectWritingFrom(text);
    assert.deepEqual({ level: l, treeLevel: t, unsupported: u }, { level, treeLevel, unsupported });
  });
}

// [config text, why new refs go through git (undefined: fettle creates them)]
const refCases: [string, string | undefined][] = [
  ['', undefined],
  ['[core]\n\tlogAllRefUpdates = true\n', undefined],
  ['[core]\n\tlogAllRefUpdates = always\n', 'core.logAllRefUpdates=always'],
  ['[core]\n\tsharedRepository = group\n', 'core.sharedRepository=group'],
  ['[core]\n\tsharedRepository = 0640\n', 'core.sharedRepository=0640'],
  ['[core]\n\tsharedRepository = false\n', undefined],
  ['[core]\n\tsharedRepository = umask\n', undefined],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n', 'extensions.refStorage=reftable'],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = files\n', undefined],
];

for (const [text, why] of refCases) {
  test(`config ${JSON.stringify(text)} -> refs through git: ${why}`, () =>
    assert.equal(objectWritingFrom(text).refsThroughGit, why));
}
