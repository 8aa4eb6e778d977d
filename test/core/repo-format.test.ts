// A repository's config read as git sets the repository up (core/repo-format.ts): the plain case answered, every
// other left to git (null).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainRepoFormat } from '../../src/core/repo-format';

const INIT = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

// [config text, the format answered or null]
const cases: [string, string | null][] = [
  ['', 'sha1'],
  [INIT, 'sha1'],
  [`${INIT}[remote "origin"]\n\turl = https://example.com/r.git # a comment\n`, 'sha1'],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n', 'sha256'],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialclone = origin\n', 'sha1'],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = SHA256\n', null],
  ['[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = reftable\n', null],
  ['[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectformat = sha256\n', null],
  ['[core]\n\trepositoryformatversion = 2\n', null],
  ['[core]\n\tbare = true\n', null],
  ['[core]\n\tbare\n', null],
  ['[core]\n\tworktree = ../elsewhere\n', null],
  ['[extensions]\n\tworktreeConfig = true\n', null],
  ['[core] bare = true\n', null],
  ['[core]\n\tbare = "true"\n', null],
  ['[core]\n\tbare = fa\\\nlse\n', null],
  ['bare = true\n', null],
];
for (const [text, format] of cases)
  test(`plainRepoFormat(${JSON.stringify(text)}) = ${format}`, () =>
    assert.equal(plainRepoFormat(text)?.objectFormat ?? null, format));
