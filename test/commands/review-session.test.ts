// `fettle review --session`: exactly the session's own changes, each diffed against the bytes it replaced, never
// another session's or the person's edits of the same file folded in.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { agentWrite, runCli } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { fettle, ok, stageWrite } from '../helpers/stage';

const write = (repo: Repo, session: string, file: string, content: string, toolUseId: string) => {
  const r = agentWrite({ file: repo.path(file), content, cwd: repo.dir, session, toolUseId }, repo.env, (p, c) =>
    writeFileSync(p, c),
  );
  assert.deepEqual([r.pre.code, r.post?.code], [0, 0], `${r.pre.stderr}${r.post?.stderr}`);
};

interface View {
  changes: number;
  files: { path: string; added: number | null; removed: number | null; parts?: number }[];
  notInBase: string[];
  diff: string;
}
const view = (repo: Repo, session: string): View => {
  const r = runCli(['review', '--session', session, '--json'], { cwd: repo.dir, env: repo.env });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as View;
};
const added = (diff: string): string[] => diff.split('\n').filter((l) => /^\+[^+]/.test(l));

test('two sessions taking turns on one file: each review shows its own edits, against the bytes each replaced', () => {
  const repo = makeRepo({ 'f.txt': lines(20) });
  const a1 = lines(20).replace('line 1\n', 'A one\n');
  const b1 = a1.replace('line 9\n', 'B nine\n');
  write(repo, 'A', 'f.txt', a1, 't1');
  write(repo, 'B', 'f.txt', b1, 't2');
  write(repo, 'A', 'f.txt', b1.replace('line 15\n', 'A fifteen\n'), 't3');
  const a = view(repo, 'A');
  assert.equal(a.changes, 2);
  assert.deepEqual(a.files, [{ path: 'f.txt', added: 2, removed: 2, parts: 2 }]);
  assert.deepEqual(added(a.diff), ['+A one', '+A fifteen'], a.diff);
  assert.deepEqual(a.notInBase, ['f.txt'], "B's bytes came between A's changes");
  const b = view(repo, 'B');
  assert.deepEqual(b.files, [{ path: 'f.txt', added: 1, removed: 1 }]);
  assert.deepEqual(added(b.diff), ['+B nine'], b.diff);
  assert.match(b.diff, /^-line 9$/m);
  assert.doesNotMatch(b.diff, /^-line 1$/m, "A's edit is not B's");
});

test("the person's uncommitted edit of a file is not shown as the session's", () => {
  const repo = makeRepo({ 'f.txt': lines(20) });
  repo.write('f.txt', lines(20).replace('line 4\n', 'mine\n'));
  write(repo, 'A', 'f.txt', lines(20).replace('line 4\n', 'mine\n').replace('line 12\n', 'A twelve\n'), 't1');
  const a = view(repo, 'A');
  assert.deepEqual(a.files, [{ path: 'f.txt', added: 1, removed: 1 }]);
  assert.deepEqual(added(a.diff), ['+A twelve'], a.diff);
  assert.deepEqual(a.notInBase, ['f.txt']);
});

test('a session that alone wrote its files shows one diff per file against the commit it started from', () => {
  const repo = makeRepo({ 'f.txt': lines(20) });
  write(repo, 'A', 'f.txt', lines(20).replace('line 2\n', 'A two\n'), 't1');
  write(repo, 'A', 'f.txt', lines(20).replace('line 2\n', 'A two\n').replace('line 3\n', 'A three\n'), 't2');
  write(repo, 'A', 'g.txt', 'new\n', 't3');
  const a = view(repo, 'A');
  assert.deepEqual(a.files, [
    { path: 'f.txt', added: 2, removed: 2 },
    { path: 'g.txt', added: 1, removed: 0 },
  ]);
  assert.equal(a.diff.match(/^diff --git /gm)?.length, 2, a.diff);
  assert.deepEqual(a.notInBase, []);
});

test("a staged change confirmed over the person's uncommitted edit shows the change alone", () => {
  const repo = makeRepo({ 'f.txt': lines(30) });
  const mine = lines(30).replace('line 1\n', 'mine 1\n');
  repo.write('f.txt', mine);
  const env = { FETTLE_SESSION: 'A', FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_CEIL: '5' };
  const id = stageWrite(repo, 'f.txt', mine.replace(/^line (1[5-9]|2[0-4])$/gm, 'agent $1'), { env });
  ok(fettle(repo, ['confirm', id]));
  const a = view(repo, 'A');
  assert.deepEqual(a.files, [{ path: 'f.txt', added: 10, removed: 10 }]);
  assert.ok(
    added(a.diff).every((l) => l.startsWith('+agent ')),
    a.diff,
  );
  assert.deepEqual(a.notInBase, ['f.txt']);
});
