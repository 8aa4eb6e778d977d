import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { encodeCommit } from '../../src/store/commit-codec';
import { IDENTITY } from '../../src/io/child-env';
import { hashObject } from '../../src/store/tree-codec';
import { makeRepo } from '../helpers/repo';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const SECONDS = 1_715_000_000;

/** The same commit made by `git commit-tree`, fettle's identity and date in its environment. */
const byGit = (message: string, parents: string[]): string => {
  const repo = makeRepo();
  const date = `@${SECONDS} +0000`;
  const env = {
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
  const commit = (msg: string, ps: string[]) => {
    const out = execFileSync('git', ['commit-tree', EMPTY_TREE, ...ps.flatMap((p) => ['-p', p])], {
      cwd: repo.dir,
      env: { ...repo.env, ...env },
      input: msg,
    });
    return out.toString().trim();
  };
  const real = parents.map((_, n) => commit(`parent ${n}\n`, []));
  return [commit(message, real), ...real].join(' ');
};

// [label, message, parent count]
const cases: [string, string, number][] = [
  ['a record with trailers', 'fettle: write a.txt (+1 -1)\n\nFettle-Id: abcd1234\nFettle-Kind: after\n', 1],
  ['no final newline', 'no newline', 0],
  ['unicode and blank lines', 'fettle: write é/ü.txt\n\n\n\nnote: ✓\n', 1],
  ['two parents', 'merge\n', 2],
];

for (const [label, message, parentCount] of cases) {
  test(`encodeCommit makes the commit git commit-tree makes: ${label}`, () => {
    const [expected = '', ...parents] = byGit(
      message,
      Array.from({ length: parentCount }, () => ''),
    ).split(' ');
    const body = encodeCommit({
      tree: EMPTY_TREE,
      parents,
      message,
      seconds: SECONDS,
      identity: `${IDENTITY.name} <${IDENTITY.email}>`,
    });
    assert.equal(hashObject('commit', body, 'sha1'), expected);
  });
}

test('encodeCommit refuses a revision expression where an id belongs', () => {
  assert.throws(
    () => encodeCommit({ tree: 'HEAD^{tree}', parents: [], message: 'm', seconds: 0, identity: 'a <b>' }),
    /not an object id/,
  );
  assert.throws(
    () => encodeCommit({ tree: EMPTY_TREE, parents: ['main'], message: 'm', seconds: 0, identity: 'a <b>' }),
    /not an object id/,
  );
});
