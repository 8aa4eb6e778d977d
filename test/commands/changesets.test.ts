// Changesets end to end: `fettle write --from` stages or writes several files as one changeset, and its id works
// with confirm, discard, rollback, show, review and review --push (to a bare remote in a temp dir).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SELF, literal, mistyped } from '../helpers/cli';
import { generated, lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { errorLine, fettle, keepsUserState, kinds, ok, refOid, statusJson } from '../helpers/stage';

const BASE = lines(40);
const LARGE = lines(40, 'new');
const SMALL = BASE.replace('line 3\n', 'line three\n');

const setup = (): Repo => makeRepo({ 'a.txt': BASE, 'src/b.txt': BASE, 'README.md': 'readme\n' });

/** Stages a.txt (large), src/b.txt (small) and new.txt as one changeset; returns its id and the members'. */
const stageSet = (repo: Repo, env: Record<string, string> = {}): { set: string; ids: Record<string, string> } => {
  const from = generated({ 'a.txt': LARGE, 'src/b.txt': SMALL, 'new.txt': 'fresh\n' });
  const r = ok(fettle(repo, ['write', '--from', from, 'a.txt', 'src/b.txt', 'new.txt'], { env }), 3);
  const set = /^Staged changeset ([0-9a-z]{8}),/m.exec(r.stdout)?.[1];
  assert.ok(set, r.stdout);
  assert.match(r.stdout, /^fettle held these writes for review as one changeset: nothing was written to 3 files\.$/m);
  assert.match(r.stdout, new RegExp(`^To apply them all, run: .+ confirm ${set}$`, 'm'));
  const ids = Object.fromEntries(
    [...r.stdout.matchAll(/^ {2}([0-9a-z]{8}) {2}(\S+) {2}/gm)].map((m) => [m[2] as string, m[1] as string]),
  );
  assert.deepEqual(Object.keys(ids).sort(), ['a.txt', 'new.txt', 'src/b.txt']);
  return { set, ids };
};

const trailer = (repo: Repo, ref: string, key: string): string =>
  repo.git('log', '-1', `--format=%(trailers:key=${key},valueonly)`, ref).trim();

test('write --from stages every file of a set with a large one, in one changeset: nothing written, one id names all', () => {
  const repo = setup();
  const { set, ids } = keepsUserState(repo, () => stageSet(repo));
  assert.equal(repo.read('a.txt').toString(), BASE);
  assert.equal(repo.read('src/b.txt').toString(), BASE);
  for (const id of Object.values(ids)) {
    assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
    assert.equal(trailer(repo, `refs/fettle/${id}`, 'Fettle-Changeset'), set);
  }
  const pending = statusJson(repo).pending as (ReturnType<typeof statusJson>['pending'][number] & {
    changeset: string;
  })[];
  assert.deepEqual(
    pending.map((c) => c.changeset),
    [set, set, set],
  );
  const status = ok(fettle(repo, ['status'])).stdout;
  assert.match(status, new RegExp(`^ {2}changeset ${set} \\(3 changes, decided together:`, 'm'));
  assert.match(
    ok(fettle(repo, ['log'])).stdout,
    new RegExp(`^ID .* CHANGESET {2}STATE {4}DECIDED BY$[\\s\\S]*${set} {3}pending {2}threshold$`, 'm'),
  );
});

test('confirm <changeset> applies all its files; rollback <changeset> undoes all; its undo is one id too', () => {
  const repo = setup();
  const { set } = stageSet(repo);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['confirm', set])));
  assert.match(r.stdout, new RegExp(`^Applied 3 changes of changeset ${set}, all or nothing:$`, 'm'));
  assert.equal(repo.read('a.txt').toString(), LARGE);
  assert.equal(repo.read('src/b.txt').toString(), SMALL);
  assert.equal(repo.read('new.txt').toString(), 'fresh\n');
  const to = fettle(repo, ['rollback', set, '--to', 'elsewhere.txt']);
  assert.equal(to.code, 2);
  assert.equal(errorLine(to), `--to restores one change, and ${set} names 3.`);
  const back = keepsUserState(repo, () => ok(fettle(repo, ['rollback', set])));
  assert.match(back.stdout, /^Rolled back 3 changes:$/m);
  assert.equal(repo.read('a.txt').toString(), BASE);
  assert.equal(repo.read('src/b.txt').toString(), BASE);
  assert.throws(() => repo.read('new.txt'), /ENOENT/);
  const undo = new RegExp(`Undo this with \`${literal(SELF)} rollback ([0-9a-z]{8})\`\\.$`, 'm').exec(back.stdout)?.[1];
  assert.ok(undo, back.stdout);
  ok(fettle(repo, ['rollback', undo]));
  assert.equal(repo.read('a.txt').toString(), LARGE, 'redone');
  ok(fettle(repo, ['rollback', set]));
  assert.equal(repo.read('a.txt').toString(), BASE, 'a redone changeset is in effect again');
  const again = fettle(repo, ['rollback', set]);
  assert.equal(again.code, 1);
  assert.match(errorLine(again), new RegExp(`^No change of changeset ${set} is left to roll back\\.$`));
});

test('discard <changeset> drops all its files; a confirm of it then says nothing is pending', () => {
  const repo = setup();
  const { set, ids } = stageSet(repo);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['discard', set, '--json'])));
  const out = JSON.parse(r.stdout) as { changeset: string; changes: { id: string }[] };
  assert.equal(out.changeset, set);
  assert.deepEqual(out.changes.map((c) => c.id).sort(), Object.values(ids).sort());
  for (const id of Object.values(ids)) assert.ok(refOid(repo, `refs/fettle-discarded/${id}`));
  const again = fettle(repo, ['confirm', set]);
  assert.equal(again.code, 1);
  assert.equal(errorLine(again), `No pending staged change in ${set}.`);
});

test('show <changeset> lists its members and one diff; show of a member names its changeset', () => {
  const repo = setup();
  const { set, ids } = stageSet(repo);
  const shown = ok(fettle(repo, ['show', set])).stdout;
  assert.match(shown, new RegExp(`^changeset ${set}: 3 changes made or decided as one$`, 'm'));
  assert.match(shown, /^State: {4}3 pending$/m);
  for (const [path, id] of Object.entries(ids)) assert.match(shown, new RegExp(`^ {2}${id} {2}${path} `, 'm'));
  for (const path of ['a.txt', 'src/b.txt', 'new.txt'])
    assert.match(shown, new RegExp(`^diff --git a/${path} b/${path}$`, 'm'));
  const json = JSON.parse(ok(fettle(repo, ['show', set, '--json'])).stdout) as { changes: unknown[]; files: unknown[] };
  assert.equal(json.changes.length, 3);
  assert.equal(json.files.length, 3);
  assert.match(ok(fettle(repo, ['show', ids['a.txt'] as string])).stdout, new RegExp(`^Changeset: ${set} `, 'm'));
  const typo = fettle(repo, ['show', mistyped(set)]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, new RegExp(`Did you mean ${set}\\?`), 'the nearest id of either kind');
});

test('review <changeset> is one diff against the base; --push makes one commit on it in a bare remote', () => {
  const repo = setup();
  const head = repo.git('rev-parse', 'HEAD');
  const { set } = stageSet(repo);
  const review = ok(fettle(repo, ['review', set])).stdout;
  assert.match(review, new RegExp(`^fettle: changeset ${set} \\(3 files\\)$`, 'm'));
  assert.match(review, /^Files changed \(3\):$/m);
  assert.match(review, /^ {2}src\/b\.txt {2}\+1 -1$/m);
  assert.match(review, new RegExp(`^To apply it: {2}.+ confirm ${set}$`, 'm'));
  const remote = join(tempDir('fettle-remote-'), 'remote.git');
  repo.git('init', '-q', '--bare', remote);
  const pushed = keepsUserState(repo, () => ok(fettle(repo, ['review', set, '--push', remote, '--json'])));
  const out = JSON.parse(pushed.stdout) as { branch: string; commit: string; base: string };
  assert.equal(out.branch, `fettle/${set}`);
  assert.equal(out.base, head);
  const git = (...args: string[]) => repo.git(`--git-dir=${remote}`, ...args);
  assert.equal(git('rev-parse', `refs/heads/fettle/${set}^`), head, 'one commit on the base');
  assert.equal(git('diff', '--name-only', head, `fettle/${set}`), 'a.txt\nnew.txt\nsrc/b.txt');
  assert.equal(git('show', `fettle/${set}:a.txt`), LARGE.trimEnd());
  assert.equal(repo.git('for-each-ref', 'refs/remotes'), '', 'no remote-tracking ref');
});

test('write --from with only small changes writes them directly, as one changeset rolled back by its id', () => {
  const repo = setup();
  const from = generated({ 'a.txt': SMALL, 'src/b.txt': SMALL, 'README.md': 'readme\n' });
  const r = keepsUserState(repo, () =>
    ok(fettle(repo, ['write', '--from', from, 'a.txt', 'src/b.txt', 'README.md'], { env: { FETTLE_SESSION: 'W' } })),
  );
  const set = /^fettle recorded 2 files as changeset ([0-9a-z]{8}); undo them all with: .+ rollback \1$/m.exec(
    r.stdout,
  )?.[1];
  assert.ok(set, r.stdout);
  assert.equal(repo.read('a.txt').toString(), SMALL);
  assert.equal(repo.read('src/b.txt').toString(), SMALL);
  const log = JSON.parse(ok(fettle(repo, ['log', '--json'])).stdout) as {
    changes: { changeset: string; state: string }[];
  };
  assert.deepEqual(
    log.changes.map((c) => [c.changeset, c.state]),
    [
      [set, 'applied'],
      [set, 'applied'],
    ],
  );
  assert.equal(
    repo.git('log', '--format=%(trailers:key=Fettle-Event,valueonly)', 'fettle/sessions/W').split('\n').filter(Boolean)
      .length,
    2,
    'both landed on the session ref',
  );
  ok(fettle(repo, ['rollback', set]));
  assert.equal(repo.read('a.txt').toString(), BASE);
  assert.equal(repo.read('src/b.txt').toString(), BASE);
});

test('write --from refuses what it cannot do, before writing anything', () => {
  const repo = setup();
  const from = generated({ 'a.txt': SMALL });
  const missing = fettle(repo, ['write', '--from', from, 'a.txt', 'src/b.txt']);
  assert.equal(missing.code, 2);
  assert.match(errorLine(missing), /src\/b\.txt does not exist: --from names no new content for src\/b\.txt\.$/);
  const several = fettle(repo, ['write', 'a.txt', 'src/b.txt'], { input: SMALL });
  assert.equal(several.code, 2);
  assert.match(errorLine(several), /several take --from <dir>/);
  assert.equal(repo.read('a.txt').toString(), BASE);
});
