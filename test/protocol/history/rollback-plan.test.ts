// Session-scale rollback through the built CLI: files the shell removed or moved since are put back without
// --force (an absent file has no bytes to lose), a dry run lists exactly the files whose bytes would change and
// reports each refusal, and a file's consecutive changes are undone as one step from the two ends.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, renameSync, unlinkSync } from 'node:fs';
import { test } from 'node:test';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { T0, directWrite, errorLine, fettle, keepsUserState, ok } from '../../helpers/stage';
import { literal, SELF } from '../../helpers/cli';

const BASE = lines(40);
const edit = (text: string, n: number, word: string) => text.replace(`line ${n}\n`, `${word} ${n}\n`);
const S = { env: { FETTLE_SESSION: 'S' } };
const snapshot = (repo: Repo, paths: string[]) =>
  Object.fromEntries(paths.map((p) => [p, existsSync(repo.path(p)) ? repo.read(p).toString('base64') : null]));

/** A session that edits, creates, creates-then-edits; then the shell deletes and moves some of its files. */
const shellSession = () => {
  const repo = makeRepo({ 'a.txt': BASE, 'moved.txt': BASE, 'keep.txt': BASE });
  const before = snapshot(repo, ['a.txt', 'moved.txt', 'keep.txt', 'new.txt', 'gone.txt', 'tmp.txt']);
  let now = T0;
  const w = (path: string, content: string) => directWrite(repo, path, content, { ...S, now: now++ });
  w('a.txt', edit(BASE, 3, 'agent'));
  w('moved.txt', edit(BASE, 7, 'agent'));
  w('new.txt', 'fresh\n');
  w('gone.txt', 'temporary\n');
  w('gone.txt', 'temporary, edited\n');
  w('tmp.txt', 'one\n');
  w('tmp.txt', 'two\n');
  w('a.txt', edit(edit(BASE, 3, 'agent'), 9, 'agent'));
  // The shell: `rm gone.txt`, `mv moved.txt elsewhere.txt`, `rm tmp.txt`.
  unlinkSync(repo.path('gone.txt'));
  renameSync(repo.path('moved.txt'), repo.path('elsewhere.txt'));
  unlinkSync(repo.path('tmp.txt'));
  return { repo, before, now };
};

test('a session whose files the shell removed or moved rolls back without --force, byte-exact', () => {
  const { repo, before, now } = shellSession();
  const dry = keepsUserState(repo, () =>
    ok(fettle(repo, ['rollback', '--session', 'S', '--dry-run', '--json'], { now })),
  );
  const files = (JSON.parse(dry.stdout) as { files: { path: string; action: string }[]; refused: unknown[] }).files;
  // gone.txt and tmp.txt were created by the session and are gone: their net change is nothing.
  assert.deepEqual(files.map((f) => `${f.path}: ${f.action}`).sort(), [
    'a.txt: restore its previous bytes',
    'moved.txt: recreate it with its previous bytes',
    'new.txt: remove it',
  ]);
  assert.deepEqual(JSON.parse(dry.stdout).refused, []);
  assert.ok(existsSync(repo.path('new.txt')), 'the dry run changed nothing');
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', '--session', 'S'], { now })));
  assert.match(r.stdout, /^Rolled back 4 changes of session S:/);
  assert.equal(r.stdout.match(/(gone|tmp)\.txt: already held its previous bytes; nothing to do/g)?.length, 4);
  assert.deepEqual(snapshot(repo, Object.keys(before)), before, 'every file as before the session');
  assert.equal(repo.read('elsewhere.txt').toString(), edit(BASE, 7, 'agent'), "the shell's copy is not fettle's");
});

test('a dry run reports each file that cannot be rolled back, and the rest; the rollback then refuses, naming it', () => {
  const { repo, now } = shellSession();
  repo.write('a.txt', edit(edit(BASE, 3, 'user'), 9, 'user')); // over the agent's lines: cannot be merged
  // A dry run exits as the rollback would: 5, refused.
  const dry = fettle(repo, ['rollback', '--session', 'S', '--dry-run'], { now });
  assert.equal(dry.code, 5, dry.stdout);
  const out = dry.stdout.split('\n');
  assert.match(out[0] ?? '', /^Dry run: 1 file cannot be rolled back/);
  assert.ok(
    out.some((l) => /^ {2}refused: .*a\.txt changed after fettle wrote it/.test(l)),
    dry.stdout,
  );
  assert.ok(
    out.some((l) => /^ {2}new\.txt .* remove it/.test(l)),
    dry.stdout,
  );
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--session', 'S'], { now }));
  assert.equal(r.code, 5, r.stdout);
  assert.match(errorLine(r), /a\.txt changed after fettle wrote it/);
  assert.ok(existsSync(repo.path('new.txt')), 'nothing was changed');
});

test("a file's thirty consecutive changes are undone by one record, byte-exact, and that is undoable", () => {
  const repo = makeRepo({ 'a.txt': BASE });
  let text = BASE;
  for (let n = 1; n <= 30; n++) {
    text = edit(text, n, 'agent');
    directWrite(repo, 'a.txt', text, { ...S, now: T0 + n });
  }
  // Run by the agent itself (in its shell): a person's or a script's rollback lands in no session.
  const r = ok(fettle(repo, ['rollback', '--session', 'S'], { now: T0 + 100, env: { CLAUDECODE: '1' } }));
  const undo =
    new RegExp(`Undo this with \`${literal(SELF)} rollback ([0-9a-z]{8})\`\\.$`, 'm').exec(r.stdout)?.[1] ??
    assert.fail(r.stdout);
  assert.equal(repo.read('a.txt').toString(), BASE);
  assert.equal(
    repo.git('log', '-1', '--format=%s', `refs/fettle/${undo}`),
    'fettle: roll back 30 changes in a.txt (+30 -30)',
  );
  // The session's ref records the agent's rollback too: its view is the user's commit again.
  assert.equal(repo.git('diff', 'HEAD', 'fettle/sessions/S'), '');
  assert.equal(
    repo.git('log', '-1', '--format=%(trailers:key=Fettle-Event,valueonly)', 'fettle/sessions/S'),
    'rollback',
  );
  ok(fettle(repo, ['rollback', undo], { now: T0 + 200 }));
  assert.equal(repo.read('a.txt').toString(), text, 'redone');
});
