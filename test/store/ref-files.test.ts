// fettle's refs read from their files (store/ref-files.ts) are what `git for-each-ref` lists, loose and packed,
// in a linked worktree too; anything not plain is left to git, and nothing half-written or odd makes it throw.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LOOSE_READ_MAX, refTipsFromFiles } from '../../src/store/ref-files';
import { makeRepo, type Repo } from '../helpers/repo';

const PREFIXES = ['refs/fettle/', 'refs/fettle-discarded/'];
const common = (repo: Repo) => join(repo.dir, '.git');
const fromFiles = (repo: Repo) => refTipsFromFiles(common(repo), PREFIXES, 40);
const fromGit = (repo: Repo, cwd = repo.dir) =>
  repo
    .git('-C', cwd, 'for-each-ref', '--format=%(objectname) %(refname)', ...PREFIXES)
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ oid: l.slice(0, 40), ref: l.slice(41) }));

/** A repository with two commits, fettle-like refs to them, some packed. */
const withRefs = (): { repo: Repo; one: string; two: string } => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const one = repo.git('rev-parse', 'HEAD');
  repo.write('a.txt', 'b\n');
  repo.commit('two');
  const two = repo.git('rev-parse', 'HEAD');
  for (const ref of ['refs/fettle/aaaa0001', 'refs/fettle/sessions/s-1', 'refs/fettle-discarded/bbbb0002'])
    repo.git('update-ref', ref, one);
  repo.git('pack-refs', '--all');
  repo.git('update-ref', 'refs/fettle/cccc0003', two);
  repo.git('update-ref', 'refs/fettle-x/not-ours', two);
  return { repo, one, two };
};

test('loose and packed refs, a loose one winning over a packed one of the same name, as for-each-ref lists them', () => {
  const { repo, two } = withRefs();
  // git writes the loose value and leaves the packed record as it was
  repo.git('update-ref', 'refs/fettle/aaaa0001', two);
  assert.equal(repo.read('.git/packed-refs').includes(' refs/fettle/aaaa0001\n'), true);
  assert.equal(fromGit(repo).length, 4);
  assert.deepEqual(fromFiles(repo), fromGit(repo));
});

test('from a linked worktree, the common dir holds the refs git lists there', () => {
  const { repo } = withRefs();
  repo.git('worktree', 'add', '-q', '-b', 'side', repo.path('../wt'));
  assert.deepEqual(fromFiles(repo), fromGit(repo, repo.path('../wt')));
});

test('a lock file and a hidden file among the refs are skipped, as git skips them', () => {
  const { repo } = withRefs();
  writeFileSync(join(common(repo), 'refs/fettle/cccc0003.lock'), '');
  writeFileSync(join(common(repo), 'refs/fettle/.hidden'), 'x');
  assert.deepEqual(fromFiles(repo), fromGit(repo));
});

// [what is found, how it is made]: git is asked, and nothing throws
const notPlain: [string, (repo: Repo) => void][] = [
  ['an empty loose file (being written by hand)', (r) => writeFileSync(join(common(r), 'refs/fettle/dddd0004'), '')],
  ['half an id', (r) => writeFileSync(join(common(r), 'refs/fettle/dddd0004'), '0123abc')],
  ['a symbolic ref', (r) => r.git('symbolic-ref', 'refs/fettle/dddd0004', 'refs/fettle/cccc0003')],
  [
    'a name git may reject',
    (r) => writeFileSync(join(common(r), 'refs/fettle/a b'), `${r.git('rev-parse', 'HEAD')}\n`),
  ],
  ['a packed-refs file it does not know', (r) => writeFileSync(join(common(r), 'packed-refs'), 'garbage\n')],
  ['a prefix that is a file', (r) => writeFileSync(join(common(r), 'refs/fettle-discarded'), '')],
];
for (const [name, make] of notPlain)
  test(`git lists the refs: ${name}`, () => {
    const { repo } = withRefs();
    if (name.includes('prefix')) {
      repo.git('update-ref', '-d', 'refs/fettle-discarded/bbbb0002');
      rmSync(join(common(repo), 'refs/fettle-discarded'), { recursive: true, force: true });
    }
    make(repo);
    assert.equal(fromFiles(repo), null);
  });

test('more loose refs than one thread reads faster than git: git lists them', () => {
  const { repo, one } = withRefs();
  mkdirSync(join(common(repo), 'refs/fettle/many'));
  for (let n = 0; n < LOOSE_READ_MAX; n++) writeFileSync(join(common(repo), `refs/fettle/many/r${n}`), `${one}\n`);
  assert.equal(fromFiles(repo), null);
  repo.git('pack-refs', '--all');
  assert.deepEqual(fromFiles(repo), fromGit(repo), 'packed, they are read from the file');
});
