// `fettle test <changeset>`: the test tree holds what `fettle confirm <changeset>` would write, every member
// applied; members already decided are left out as confirm leaves them out, and said so; a changeset with nothing
// left to test, or a name that is no changeset, is refused with the next step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SELF, literal, mistyped } from '../helpers/cli';
import { generated, lines, makeRepo, type Repo } from '../helpers/repo';
import { T0, errorLine, fettle, keepsUserState, ok } from '../helpers/stage';

const BASE = lines(40);
const LARGE = lines(40, 'new');
const SMALL = BASE.replace('line 3\n', 'line three\n');
/** Prints the first lines of the three files the changeset touches (a missing file prints `-`). */
const PROBE = [
  '--',
  'sh',
  '-c',
  'for f in a.txt src/b.txt new.txt; do head -3 "$f" 2>/dev/null | tail -1 || true; [ -e "$f" ] || echo -; done',
];

/** a.txt (large), src/b.txt (small) and new.txt staged as one changeset; its id and the members' by path. */
const stageSet = (repo: Repo): { set: string; ids: Record<string, string> } => {
  const from = generated({ 'a.txt': LARGE, 'src/b.txt': SMALL, 'new.txt': 'one\ntwo\nfresh\n' });
  const r = ok(fettle(repo, ['write', '--from', from, 'a.txt', 'src/b.txt', 'new.txt']), 3);
  const set = /^Staged changeset ([0-9a-z]{8}),/m.exec(r.stdout)?.[1];
  assert.ok(set, r.stdout);
  const ids = Object.fromEntries(
    [...r.stdout.matchAll(/^ {2}([0-9a-z]{8}) {2}(\S+) {2}/gm)].map((m) => [m[2] as string, m[1] as string]),
  );
  return { set, ids };
};

const setup = (): Repo => makeRepo({ 'a.txt': BASE, 'src/b.txt': BASE });

test('test <changeset> runs in the tree confirm <changeset> would leave: every member applied', () => {
  const repo = setup();
  repo.write('untracked.txt', 'mine\n');
  const { set } = stageSet(repo);
  const status = repo.git('status', '--porcelain');
  const r = keepsUserState(repo, () => fettle(repo, ['test', set, ...PROBE]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'new 3\nline three\nfresh\n', 'the large, the small and the new file, as confirm writes them');
  assert.match(r.stderr, new RegExp(`^fettle: running .* in the test tree of changeset ${set} \\(created now`, 'm'));
  assert.match(r.stderr, new RegExp(`^fettle: PASS: .* in the test tree of changeset ${set}; your working tree`, 'm'));
  assert.equal(repo.git('status', '--porcelain'), status, 'the working tree is untouched');
  // What the test saw is what confirm writes.
  ok(fettle(repo, ['confirm', set], { now: T0 + 1 }));
  const after = ok(fettle(repo, ['test', '--session', 'none', ...PROBE], { now: T0 + 1 }), 1);
  assert.match(after.stderr, /Session 'none' has no staged change/);
  assert.equal(repo.read('a.txt').toString().split('\n')[2], 'new 3');
  assert.equal(repo.read('new.txt').toString(), 'one\ntwo\nfresh\n');
});

test('a partly decided changeset: its confirmed and discarded members are left out, as confirm would, and said so', () => {
  const repo = setup();
  const { set, ids } = stageSet(repo);
  ok(fettle(repo, ['confirm', ids['src/b.txt'] as string], { now: T0 + 1 }));
  ok(fettle(repo, ['discard', ids['new.txt'] as string], { now: T0 + 1 }));
  const r = ok(fettle(repo, ['test', set, ...PROBE], { now: T0 + 2 }));
  assert.equal(r.stdout, 'new 3\nline three\n-\n', 'a.txt staged, src/b.txt as confirmed on disk, new.txt discarded');
  assert.match(
    r.stderr,
    new RegExp(
      `^fettle: changeset ${set}: 1 confirmed already, in your working tree \\(${ids['src/b.txt']}\\); 1 discarded, left out as confirm would \\(${ids['new.txt']}\\); the test tree applies the other 1 of its 3 changes\\.$`,
      'm',
    ),
  );
});

test('a changeset with nothing left to test, and a name that is no changeset, are refused with the next step', () => {
  const repo = setup();
  const { set, ids } = stageSet(repo);
  const typo = fettle(repo, ['test', mistyped(set), '--', 'true']);
  assert.equal(typo.code, 1, typo.stderr);
  assert.match(typo.stderr, new RegExp(`^fettle: No change '${mistyped(set)}'.*\\nDid you mean ${set}\\?`, 's'));
  ok(fettle(repo, ['confirm', ids['a.txt'] as string, ids['src/b.txt'] as string], { now: T0 + 1 }));
  ok(fettle(repo, ['discard', set], { now: T0 + 1 }));
  const done = fettle(repo, ['test', set, '--', 'true'], { now: T0 + 2 });
  assert.equal(done.code, 2, done.stderr);
  assert.equal(
    errorLine(done),
    `Changeset ${set} has no staged change left to test: its 3 changes are all decided (2 confirmed, 1 discarded).`,
  );
  assert.match(done.stderr, new RegExp(`run the command there\\. \`${literal(SELF)} show ${set}\` lists its changes`));
  const direct = ok(fettle(repo, ['write', '--from', generated({ 'c.txt': 'c\n', 'd.txt': 'd\n' }), 'c.txt', 'd.txt']));
  const written = /changeset ([0-9a-z]{8})/.exec(direct.stdout)?.[1];
  assert.ok(written, direct.stdout);
  const never = fettle(repo, ['test', written, '--', 'true']);
  assert.equal(
    errorLine(never),
    `Changeset ${written} has no staged change left to test: its 2 changes were written directly, never staged.`,
  );
});
