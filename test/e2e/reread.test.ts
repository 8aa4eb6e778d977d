// Re-reads through Claude Code's Read hook (`fettle install --read`), with the real client: a first read goes to
// the tool; a re-read of the same bytes reaches the model as one line, not the file; a file changed outside the
// agent is read again in full, with what changed beside it; an Edit and a Write after those answers are accepted by
// the client (its read-before-write state still holds); a Read after the agent's own Edit sends no stale diff.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { lines, makeRepo } from '../helpers/repo';
import { contextTextIn, type Script, text, tool, toolUseId } from './fake-api';
import { explain, session } from './session';

const TEXT = lines(60);
const OUTSIDE = TEXT.replace('line 30\n', 'line thirty\n');
const WRITTEN = OUTSIDE.replace('line 3\n', 'LINE 3\n').replace('line 50\n', 'line fifty\n');

test('read, re-read, a change outside the agent, re-read, Edit, re-read, Write: each answer right, each write accepted', async () => {
  const repo = makeRepo({ 'a.ts': TEXT });
  const install = runCli(['install', '--scope', 'local', '--read'], { cwd: repo.dir, env: repo.env });
  assert.equal(install.code, 0, install.stderr);
  const file = repo.path('a.ts');
  const read = () => [tool('Read', { file_path: file })];
  const script: Script = (_req, turn) => {
    // Between the model's turns: a person (or a formatter) changes the file outside the agent.
    if (turn === 2) writeFileSync(file, OUTSIDE);
    return (
      [
        read(),
        read(),
        read(),
        [tool('Edit', { file_path: file, old_string: 'line 3\n', new_string: 'LINE 3\n' })],
        read(),
        [tool('Write', { file_path: file, content: WRITTEN })],
      ][turn] ?? [text('done')]
    );
  };
  const s = await session(repo, script);
  const why = explain(s);
  const seen = (turn: number) => s.api.resultFor(toolUseId(turn, 0));
  assert.match(seen(0)?.text ?? '', /^1\tline 1\n(.|\n)*\n60\tline 60\n/, `the first read is the file: ${why}`);
  // The client shows a hook's deny as an error of the tool, prefixed; the model gets the one line, not the file.
  const again = seen(1)?.text ?? '';
  assert.ok(
    again.endsWith(
      `${file} unchanged since your read at turn 1: what that read showed is current (fettle answered this re-read).`,
    ),
    why,
  );
  assert.ok(again.length < 300, `one line, not the file: ${again}`);
  assert.match(seen(2)?.text ?? '', /^1\tline 1\n(.|\n)*\n30\tline thirty\n/, `a changed file is read in full: ${why}`);
  const beside = contextTextIn(s.api.turnRequests()[3] ?? { path: '', body: {} });
  assert.match(beside, /fettle: .*a\.ts changed since your read at turn 1; 1 hunk, \+1 -1: line 30/, why);
  assert.equal(seen(3)?.isError, false, `the Edit after the changed file's read is accepted: ${why}`);
  // The Edit's PostToolUse runs in the background: the Read after it is the one line once it has run, else the
  // file (with a line saying it changed); never a diff against what the session held before its own Edit.
  const own = seen(4)?.text ?? '';
  assert.ok(own.includes(`${file} unchanged since your read at turn 1`) || /\n3\tLINE 3\n/.test(own), why);
  assert.doesNotMatch(own, /^[-+]line 3$/m, `no stale diff after the agent's own Edit: ${why}`);
  assert.equal(seen(5)?.isError, false, `the Write after the answers is accepted: ${why}`);
  assert.equal(repo.read('a.ts').toString(), WRITTEN);
});
