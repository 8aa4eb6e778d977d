// `fettle rollback` by path, by commit, by session and of several changes at once: all or nothing, planned
// before anything is written, dry run, --to, and the rollback of a rollback (redo).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { T0, directWrite, errorLine, fettle, keepsUserState, ok } from '../helpers/stage';
import { literal, SELF } from '../helpers/cli';

const BASE = lines(40);
const edit = (text: string, n: number, word: string): string => text.replace(`line ${n}\n`, `${word} ${n}\n`);
const fettleRefs = (repo: Repo): string =>
  repo
    .git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/fettle', 'refs/fettle-discarded')
    .split('\n')
    .filter((l) => !l.startsWith('refs/fettle/sessions/'))
    .join('\n');
const undoCommandOf = (stdout: string): string[] =>
  (new RegExp(`Undo this with \`${literal(SELF)} rollback ([^\`]+)\`\\.$`, 'm').exec(stdout)?.[1] ?? '').split(' ');
const session = (id: string, now: number) => ({ env: { FETTLE_SESSION: id }, now });

/** Session s1 edits a.txt twice (in the same second) and creates new.txt; session s2 edits b.txt. */
const sessions = () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE, 'bin.dat': Buffer.from([0, 1, 2, 3]) });
  const first = directWrite(repo, 'a.txt', edit(BASE, 3, 'one'), session('s1', T0));
  const second = directWrite(repo, 'a.txt', edit(edit(BASE, 3, 'one'), 30, 'two'), session('s1', T0));
  const created = directWrite(repo, 'new.txt', 'fresh\n', session('s1', T0 + 1));
  const binary = directWrite(repo, 'bin.dat', Buffer.from([9, 0, 9]), session('s1', T0 + 2));
  const other = directWrite(repo, 'b.txt', edit(BASE, 5, 'other'), session('s2', T0 + 3));
  return { repo, first, second, created, binary, other };
};

test('rollback <path> undoes the latest change to that file still in effect, then the one before', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const first = directWrite(repo, 'a.txt', edit(BASE, 3, 'one'), { now: T0 });
  const second = directWrite(repo, 'a.txt', edit(edit(BASE, 3, 'one'), 9, 'two'), { now: T0 + 10 });
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', 'a.txt'], { now: T0 + 20 })));
  assert.match(r.stdout, new RegExp(`^Rolled back ${second}: a\\.txt: restored its previous bytes\\.`));
  assert.equal(repo.read('a.txt').toString(), edit(BASE, 3, 'one'));
  const again = ok(fettle(repo, ['rollback', repo.path('a.txt')], { now: T0 + 30, cwd: repo.home }));
  assert.match(again.stdout, new RegExp(`^Rolled back ${first}: `));
  assert.equal(repo.read('a.txt').toString(), BASE);
  const none = fettle(repo, ['rollback', 'a.txt'], { now: T0 + 40 });
  assert.equal(none.code, 1);
  assert.match(errorLine(none), /^No change fettle made to a\.txt is left to roll back/);
});

test('rollback <commit> accepts any commit of a change, also after retention removed its ref', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', edit(BASE, 3, 'one'));
  const before = repo.git('rev-parse', `refs/fettle/${id}^`);
  ok(fettle(repo, ['rollback', before.slice(0, 10)]));
  assert.equal(repo.read('a.txt').toString(), BASE);

  const other = directWrite(repo, 'a.txt', edit(BASE, 7, 'two'));
  const after = repo.git('rev-parse', `refs/fettle/${other}`);
  repo.git('update-ref', '-d', `refs/fettle/${other}`);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', after])));
  assert.match(r.stdout, new RegExp(`^Rolled back ${other}: a\\.txt: restored its previous bytes`));
  assert.equal(repo.read('a.txt').toString(), BASE);
});

test('rollback --session undoes every change of that session, newest first, byte-exact; others stay', () => {
  const { repo, first, second, created, binary } = sessions();
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', '--session', 's1'], { now: T0 + 10 })));
  assert.deepEqual(r.stdout.split('\n').slice(0, 5), [
    'Rolled back 4 changes of session s1:',
    `  ${binary}  bin.dat: restored its previous bytes`,
    `  ${created}  new.txt: removed it (the change had created it)`,
    `  ${second}  a.txt: restored its previous bytes`,
    `  ${first}  a.txt: restored its previous bytes`,
  ]);
  assert.equal(repo.read('a.txt').toString(), BASE);
  assert.ok(repo.read('bin.dat').equals(Buffer.from([0, 1, 2, 3])));
  assert.equal(existsSync(repo.path('new.txt')), false);
  assert.equal(repo.read('b.txt').toString(), edit(BASE, 5, 'other'), 'session s2 is untouched');
  const trailers = [
    ...new Set(
      repo
        .git('log', '--format=%(trailers:key=Fettle-Reverts,valueonly)', '--glob=fettle/*')
        .split(/[\n ]/)
        .filter(Boolean),
    ),
  ].sort();
  assert.deepEqual(
    trailers,
    [first, second, created, binary].sort(),
    'each undone change is named by a Fettle-Reverts trailer',
  );
});

test('the undo command a session rollback prints redoes all of it', () => {
  const { repo } = sessions();
  const undo = undoCommandOf(ok(fettle(repo, ['rollback', '--session', 's1'], { now: T0 + 10 })).stdout);
  assert.equal(undo.length, 1, 'the undo records are one changeset, named by one id');
  const members = JSON.parse(ok(fettle(repo, ['show', undo[0] as string, '--json'], { now: T0 + 10 })).stdout);
  assert.equal(members.changes.length, 3, "one undo per file: a.txt's two changes are undone by one record");
  keepsUserState(repo, () => ok(fettle(repo, ['rollback', ...undo], { now: T0 + 20 })));
  assert.equal(repo.read('a.txt').toString(), edit(edit(BASE, 3, 'one'), 30, 'two'));
  assert.equal(repo.read('new.txt').toString(), 'fresh\n');
  assert.ok(repo.read('bin.dat').equals(Buffer.from([9, 0, 9])));
});

test('--dry-run lists each file that would change and how, and changes nothing', () => {
  const { repo, first, second, created, binary } = sessions();
  const refs = fettleRefs(repo);
  const r = keepsUserState(repo, () =>
    ok(fettle(repo, ['rollback', '--session', 's1', '--dry-run'], { now: T0 + 10 })),
  );
  assert.deepEqual(r.stdout.split('\n'), [
    'Dry run: rolling back would change 3 files; nothing was changed.',
    `  bin.dat  binary  restore its previous bytes (${binary})`,
    `  new.txt  +0 -1  remove it (${created})`,
    `  a.txt  +2 -2  restore its previous bytes (${second}, ${first})`,
    '',
  ]);
  assert.equal(fettleRefs(repo), refs, 'nothing recorded');
  assert.equal(repo.read('new.txt').toString(), 'fresh\n');
  const json = JSON.parse(ok(fettle(repo, ['rollback', 'a.txt', '--dry-run', '--json'])).stdout);
  assert.deepEqual(json, {
    dryRun: true,
    files: [
      {
        path: 'a.txt',
        file: repo.path('a.txt'),
        action: 'restore its previous bytes',
        added: 1,
        removed: 1,
        changes: [second],
      },
    ],
    skipped: [],
    refused: [],
  });
});

test("a session rollback refuses if one file was edited over fettle's write, naming it; nothing changes", () => {
  const { repo } = sessions();
  repo.write('a.txt', edit(edit(BASE, 3, 'one'), 30, 'user'));
  const refs = fettleRefs(repo);
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--session', 's1'], { now: T0 + 10 }));
  assert.equal(r.code, 5, r.stderr);
  assert.match(
    errorLine(r),
    new RegExp(
      `^${repo.path('a.txt')} changed after fettle wrote it \\(change \\w{8}\\), by a person or a program fettle did not record, and undoing it conflicts with those edits \\(1 conflict\\)\\. Nothing was changed\\.$`,
    ),
  );
  assert.equal(fettleRefs(repo), refs);
  assert.equal(repo.read('new.txt').toString(), 'fresh\n', 'the files that could be restored were not');
  assert.ok(repo.read('bin.dat').equals(Buffer.from([9, 0, 9])));
});

test("a clean 3-way merge keeps the user's edit; --force overwrites it after recording it", () => {
  const { repo } = sessions();
  repo.write('a.txt', edit(edit(edit(BASE, 3, 'one'), 30, 'two'), 20, 'user'));
  ok(fettle(repo, ['rollback', '--session', 's1'], { now: T0 + 10 }));
  assert.equal(repo.read('a.txt').toString(), edit(BASE, 20, 'user'));

  const other = sessions();
  const edited = edit(edit(BASE, 3, 'one'), 30, 'user');
  other.repo.write('a.txt', edited);
  assert.equal(fettle(other.repo, ['rollback', '--session', 's1'], { now: T0 + 10 }).code, 5);
  const undo = undoCommandOf(
    ok(fettle(other.repo, ['rollback', '--session', 's1', '--force'], { now: T0 + 10 })).stdout,
  );
  assert.equal(other.repo.read('a.txt').toString(), BASE);
  ok(fettle(other.repo, ['rollback', ...undo], { now: T0 + 20 }));
  assert.equal(
    other.repo.read('a.txt').toString(),
    edited,
    "the user's bytes were recorded before --force replaced them",
  );
});

test('all or nothing: one file that cannot be restored (now a directory) stops every file', () => {
  const { repo, created } = sessions();
  rmSync(repo.path('new.txt'));
  mkdirSync(repo.path('new.txt'));
  const refs = fettleRefs(repo);
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--session', 's1'], { now: T0 + 10 }));
  assert.equal(r.code, 5);
  assert.equal(
    errorLine(r),
    `${repo.path('new.txt')} cannot be restored (change ${created}): it is no longer a regular file. Nothing was changed.`,
  );
  assert.equal(repo.read('a.txt').toString(), edit(edit(BASE, 3, 'one'), 30, 'two'));
  assert.ok(repo.read('bin.dat').equals(Buffer.from([9, 0, 9])));
  assert.equal(fettleRefs(repo), refs);
});

test('all or nothing: a write failing midway puts back the files already rolled back', () => {
  const { repo } = sessions();
  const refs = fettleRefs(repo);
  const r = fettle(repo, ['rollback', '--session', 's1'], {
    now: T0 + 10,
    env: { FETTLE_FAILPOINTS: 'rollback.file-written=throw' },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    errorLine(r),
    /could not be rolled back: failpoint rollback\.file-written fired\. The file already rolled back was put back\. Nothing was changed\.$/,
  );
  assert.equal(repo.read('a.txt').toString(), edit(edit(BASE, 3, 'one'), 30, 'two'));
  assert.ok(repo.read('bin.dat').equals(Buffer.from([9, 0, 9])));
  assert.equal(repo.read('new.txt').toString(), 'fresh\n');
  assert.equal(fettleRefs(repo), refs, 'the undo records of a rollback that did not happen are dropped');
});

test('--to writes the previous bytes to another path with their mode; an existing path needs --force', () => {
  const repo = makeRepo();
  repo.write('run.sh', '#!/bin/sh\necho old\n', 0o755);
  repo.commit();
  const id = directWrite(repo, 'run.sh', '#!/bin/sh\necho new\n');
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', id, '--to', 'old/run.sh'])));
  const undo = undoCommandOf(r.stdout);
  assert.equal(
    r.stdout,
    `Restored the bytes change ${id} replaced in run.sh to ${repo.path('old/run.sh')}. Undo this with \`${SELF} rollback ${undo[0]}\`.\n`,
  );
  assert.equal(repo.read('old/run.sh').toString(), '#!/bin/sh\necho old\n');
  assert.equal(statSync(repo.path('old/run.sh')).mode & 0o777, 0o755);
  assert.equal(repo.read('run.sh').toString(), '#!/bin/sh\necho new\n', 'the changed file is left alone');

  repo.write('keep.txt', 'mine\n');
  const refused = fettle(repo, ['rollback', 'run.sh', '--to', 'keep.txt']);
  assert.equal(refused.code, 5);
  assert.equal(errorLine(refused), `${repo.path('keep.txt')} already exists; nothing was written.`);
  const forced = undoCommandOf(ok(fettle(repo, ['rollback', 'run.sh', '--to', 'keep.txt', '--force'])).stdout);
  assert.equal(repo.read('keep.txt').toString(), '#!/bin/sh\necho old\n');
  ok(fettle(repo, ['rollback', ...forced]));
  assert.equal(repo.read('keep.txt').toString(), 'mine\n', 'the overwritten bytes were recorded first');
});

test('usage errors: nothing named, both targets and --session, --to with several changes', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  assert.equal(fettle(repo, ['rollback']).code, 2);
  assert.equal(fettle(repo, ['rollback', 'a.txt', '--session', 's']).code, 2);
  assert.equal(fettle(repo, ['rollback', 'a.txt', 'b.txt', '--to', 'c.txt']).code, 2);
  const none = fettle(repo, ['rollback', '--session', 'nobody']);
  assert.equal(none.code, 1);
  assert.equal(errorLine(none), "No change of session 'nobody' is left to roll back.");
});
