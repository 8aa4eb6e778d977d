// `fettle rollback <id>` end to end: restores the bytes a change replaced, byte-exact with the mode, only over
// what fettle wrote (a clean 3-way merge otherwise, or --force), and is itself undoable.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync, unlinkSync } from 'node:fs';
import { test } from 'node:test';
import { agentWrite, literal, SELF } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { T0, directWrite, errorLine, fettle, keepsUserState, kinds, ok, stageWrite } from '../helpers/stage';

const BASE = lines(40);
const AGENT = BASE.replace('line 30\n', 'agent 30\n');
const undoIdOf = (stdout: string): string =>
  new RegExp(`Undo this with \`${literal(SELF)} rollback ([0-9a-z]{8})\`\\.$`, 'm').exec(stdout)?.[1] ?? '';
const fettleRefs = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle')
    .split('\n')
    .filter((r) => r && !r.startsWith('refs/fettle/sessions/'));
const mode = (repo: Repo, path: string): number => statSync(repo.path(path)).mode & 0o777;

test('rollback of a direct write restores the previous bytes exactly and prints an undo id', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
  const undo = undoIdOf(r.stdout);
  assert.equal(
    r.stdout,
    `Rolled back ${id}: a.txt: restored its previous bytes. Undo this with \`${SELF} rollback ${undo}\`.\n`,
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
  assert.deepEqual(kinds(repo, `refs/fettle/${undo}`), ['after', 'before']);
  assert.ok(
    repo.gitBytes('cat-file', 'blob', `refs/fettle/${undo}^:a.txt`).equals(Buffer.from(AGENT)),
    'the replaced bytes are recorded',
  );
});

test('rolling back the rollback redoes the change (byte-exact)', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  const undo = undoIdOf(ok(fettle(repo, ['rollback', id])).stdout);
  const redo = keepsUserState(repo, () => ok(fettle(repo, ['rollback', undo])));
  assert.ok(repo.read('a.txt').equals(Buffer.from(AGENT)));
  ok(fettle(repo, ['rollback', undoIdOf(redo.stdout)]));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

// [name, bytes before, bytes written, file mode]
const exact: [string, Buffer, Buffer, number][] = [
  ['binary over binary', Buffer.from([0, 1, 2, 0xff, 0x0d, 0x0a]), Buffer.from([0, 9, 9]), 0o644],
  ['text over binary', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]), Buffer.from('now text\n'), 0o644],
  [
    'executable, CRLF, no final newline',
    Buffer.from('#!/bin/sh\r\necho hi\r\nexit 0'),
    Buffer.from('#!/bin/sh\r\necho bye\r\nexit 0'),
    0o755,
  ],
];
for (const [name, before, next, fileMode] of exact) {
  test(`rollback restores the bytes exactly and keeps the mode: ${name}`, () => {
    const repo = makeRepo();
    repo.write('f', before, fileMode);
    repo.commit();
    const id = directWrite(repo, 'f', next);
    keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
    assert.ok(repo.read('f').equals(before));
    assert.equal(mode(repo, 'f'), fileMode);
  });
}

test('rollback of a change that created the file removes it; its undo recreates it with its mode', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const id = directWrite(repo, 'tools/new.sh', 'echo new\n');
  chmodSync(repo.path('tools/new.sh'), 0o755);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
  assert.match(
    r.stdout,
    new RegExp(`^Rolled back ${id}: tools/new\\.sh: removed it \\(the change had created it\\)\\.`),
  );
  assert.equal(existsSync(repo.path('tools/new.sh')), false);
  ok(fettle(repo, ['rollback', undoIdOf(r.stdout)]));
  assert.ok(repo.read('tools/new.sh').equals(Buffer.from('echo new\n')));
  assert.equal(mode(repo, 'tools/new.sh'), 0o755);
});

test('rollback refuses when the file was edited after fettle wrote it and the edits overlap', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  const edited = AGENT.replace('agent 30\n', 'user 30\n');
  repo.write('a.txt', edited);
  const refs = fettleRefs(repo);
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', id]));
  assert.equal(r.code, 5, r.stderr);
  assert.match(
    errorLine(r),
    new RegExp(
      `^${repo.path('a.txt')} changed after fettle wrote it \\(change ${id}\\), by a person or a program fettle did not record, and .*conflict.*Nothing was changed\\.$`,
    ),
  );
  assert.match(r.stderr, new RegExp(`${literal(SELF)} rollback ${id} --force`));
  assert.ok(repo.read('a.txt').equals(Buffer.from(edited)));
  assert.deepEqual(fettleRefs(repo), refs, 'nothing recorded');
});

test('rollback after a non-overlapping edit undoes only the change and keeps the edit', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  repo.write('a.txt', AGENT.replace('line 3\n', 'user 3\n'));
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
  assert.match(r.stdout, /undid the change, keeping the edits made since/);
  assert.equal(repo.read('a.txt').toString(), BASE.replace('line 3\n', 'user 3\n'));
  ok(fettle(repo, ['rollback', undoIdOf(r.stdout)]));
  assert.equal(repo.read('a.txt').toString(), AGENT.replace('line 3\n', 'user 3\n'), 'the merge is undoable too');
});

test('rollback --force overwrites the edits, after recording them so they can be restored', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  const edited = AGENT.replace('agent 30\n', 'user 30\n');
  repo.write('a.txt', edited);
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', id, '--force'])));
  assert.match(r.stdout, /overwrote it with the previous bytes \(--force\)/);
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
  ok(fettle(repo, ['rollback', undoIdOf(r.stdout)]));
  assert.ok(repo.read('a.txt').equals(Buffer.from(edited)), "the user's edit is back");
});

test('rollback after the file was deleted restores it without --force: an absent file has no bytes to lose', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  unlinkSync(repo.path('a.txt'));
  const dry = ok(fettle(repo, ['rollback', id, '--dry-run']));
  assert.match(dry.stdout, /^ {2}a\.txt .* recreate it with its previous bytes/m);
  assert.equal(existsSync(repo.path('a.txt')), false, 'the dry run wrote nothing');
  ok(fettle(repo, ['rollback', id]));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test('rollback when the file already holds the previous bytes changes nothing', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  ok(fettle(repo, ['rollback', id]));
  const refs = fettleRefs(repo);
  const r = fettle(repo, ['rollback', id]);
  assert.notEqual(r.code, 0);
  assert.equal(errorLine(r), `a.txt already holds the bytes change ${id} replaced; nothing to roll back.`);
  assert.deepEqual(fettleRefs(repo), refs);
});

test('rollback of a confirmed staged change restores the bytes from before it was staged', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', lines(40, 'new'));
  ok(fettle(repo, ['confirm', id]));
  keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test("rollback of a merged confirm restores the bytes the confirm replaced, keeping the user's edit", () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', lines(20) + lines(20, 'new', 21));
  const userBytes = BASE.replace('line 2\n', 'user 2\n');
  repo.write('a.txt', userBytes);
  ok(fettle(repo, ['confirm', id]));
  ok(fettle(repo, ['rollback', id]));
  assert.equal(repo.read('a.txt').toString(), userBytes);
});

test('rollback of a change that is still pending is refused and writes nothing', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', lines(40, 'new'));
  const r = fettle(repo, ['rollback', id]);
  assert.notEqual(r.code, 0);
  assert.equal(errorLine(r), `Change ${id} was never written to disk (it is pending); there is nothing to roll back.`);
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test('rollback of a write recorded by the hook (PreToolUse + PostToolUse) restores it', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const env = { ...repo.env, FETTLE_NOW: String(T0) };
  const { post } = agentWrite({ file: repo.path('a.txt'), content: AGENT, cwd: repo.dir }, env, (p, c) =>
    repo.write(p.slice(repo.dir.length + 1), c),
  );
  const id = /as ([0-9a-z]{8});/.exec(post?.json?.hookSpecificOutput?.additionalContext ?? '')?.[1] ?? '';
  assert.ok(id, post?.stdout);
  keepsUserState(repo, () => ok(fettle(repo, ['rollback', id])));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test('-C <dir> rolls back from another working directory', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  keepsUserState(repo, () => ok(fettle(repo, ['-C', repo.dir, 'rollback', id, '--json'], { cwd: repo.home })));
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test('rollback --json prints the result and the undo id', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = directWrite(repo, 'a.txt', AGENT);
  const out = JSON.parse(ok(fettle(repo, ['rollback', id, '--json'])).stdout) as {
    id: string;
    path: string;
    how: string;
    undoId: string;
  };
  assert.deepEqual({ ...out, undoId: undefined }, { id, path: 'a.txt', how: 'restored', undoId: undefined });
  assert.match(out.undoId, /^[0-9a-z]{8}$/);
  assert.deepEqual(kinds(repo, `refs/fettle/${out.undoId}`), ['after', 'before']);
});
