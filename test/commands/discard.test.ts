// `fettle discard <id>` end to end: the ref moves to refs/fettle-discarded/, the file is never touched.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import {
  fails,
  fettle,
  hasTestTree,
  keepsUserState,
  kinds,
  ok,
  openTestTree,
  refOid,
  stageWrite,
  statusJson,
} from '../helpers/stage';

const BASE = lines(30);
const PROPOSAL = lines(30, 'rewritten');

const staged = (): { repo: Repo; id: string } => {
  const repo = makeRepo({ 'src/a.txt': BASE });
  return { repo, id: stageWrite(repo, 'src/a.txt', PROPOSAL) };
};

test('discard drops the ref, keeps the proposal under refs/fettle-discarded/, leaves the test tree to gc', () => {
  const { repo, id } = staged();
  const tip = refOid(repo, `refs/fettle/${id}`);
  const tree = openTestTree(repo, id);
  assert.ok(tip && hasTestTree(repo));
  const mtime = statSync(repo.path('src/a.txt')).mtimeMs;
  keepsUserState(repo, () =>
    assert.equal(ok(fettle(repo, ['discard', id])).stdout, `Discarded ${id}; src/a.txt was not touched.\n`),
  );
  assert.equal(refOid(repo, `refs/fettle/${id}`), null);
  assert.deepEqual(kinds(repo, `refs/fettle-discarded/${id}`), ['discarded', 'proposal', 'before']);
  assert.equal(repo.git('rev-parse', `refs/fettle-discarded/${id}^`), tip);
  assert.ok(repo.gitBytes('cat-file', 'blob', `refs/fettle-discarded/${id}:src/a.txt`).equals(Buffer.from(PROPOSAL)));
  assert.ok(statSync(`${tree}/src/a.txt`).isFile(), 'discard removes no worktree on the command path (gc does)');
  assert.ok(repo.read('src/a.txt').equals(Buffer.from(BASE)));
  assert.equal(statSync(repo.path('src/a.txt')).mtimeMs, mtime, 'the file was not rewritten');
  assert.equal(
    repo.git('log', '--format=%s', '--glob=fettle/*').includes('stage src/a.txt'),
    false,
    "gone from git log --glob='fettle/*'",
  );
});

test('discard --json prints the result as JSON', () => {
  const { repo, id } = staged();
  assert.deepEqual(JSON.parse(ok(fettle(repo, ['discard', id, '--json'])).stdout), {
    id,
    path: 'src/a.txt',
    state: 'discarded',
  });
});

test('discard leaves edits made on disk since staging alone', () => {
  const { repo, id } = staged();
  const edited = BASE.replace('line 7\n', 'user 7\n');
  repo.write('src/a.txt', edited);
  keepsUserState(repo, () => ok(fettle(repo, ['discard', id])));
  assert.ok(repo.read('src/a.txt').equals(Buffer.from(edited)));
});

test('discard twice, and confirm after discard, say it was already discarded', () => {
  const { repo, id } = staged();
  ok(fettle(repo, ['discard', id]));
  const marker = refOid(repo, `refs/fettle-discarded/${id}`);
  keepsUserState(repo, () => {
    fails(fettle(repo, ['discard', id]), `Change ${id} was already discarded.`);
    fails(fettle(repo, ['confirm', id]), `Change ${id} was already discarded.`);
  });
  assert.equal(refOid(repo, `refs/fettle-discarded/${id}`), marker);
  assert.equal(refOid(repo, `refs/fettle/${id}`), null);
  assert.ok(repo.read('src/a.txt').equals(Buffer.from(BASE)));
});

test('a discarded change is listed as discarded, no longer pending', () => {
  const { repo, id } = staged();
  ok(fettle(repo, ['discard', id]));
  const s = statusJson(repo);
  assert.deepEqual(s.pending, []);
  assert.deepEqual(
    s.recent.map((c) => [c.id, c.state, c.tier]),
    [[id, 'discarded', 'staged']],
  );
});

test('discard of one change leaves another pending change of the same file alone', () => {
  const { repo, id } = staged();
  const other = stageWrite(repo, 'src/a.txt', lines(30, 'other'));
  openTestTree(repo, id);
  openTestTree(repo, other);
  keepsUserState(repo, () => ok(fettle(repo, ['discard', id])));
  assert.deepEqual(
    statusJson(repo).pending.map((c) => c.id),
    [other],
  );
  assert.ok(hasTestTree(repo));
  ok(fettle(repo, ['confirm', other]));
  assert.ok(repo.read('src/a.txt').equals(Buffer.from(lines(30, 'other'))));
});

test('-C <dir> discards from another working directory (relative and absolute)', () => {
  const { repo, id } = staged();
  const second = stageWrite(repo, 'src/a.txt', lines(30, 'second'));
  keepsUserState(repo, () => {
    ok(fettle(repo, ['-C', repo.dir, 'discard', id], { cwd: repo.home }));
    ok(fettle(repo, ['-C', 'repo/src', 'discard', second], { cwd: repo.home }));
  });
  assert.ok(refOid(repo, `refs/fettle-discarded/${id}`));
  assert.ok(refOid(repo, `refs/fettle-discarded/${second}`));
});

test('discard from outside the repository without -C does not find the change', () => {
  const { repo, id } = staged();
  fails(fettle(repo, ['discard', id], { cwd: repo.home }), `No change '${id}'. It may have expired or been discarded.`);
  assert.ok(refOid(repo, `refs/fettle/${id}`), 'still pending');
});
