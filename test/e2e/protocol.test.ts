// The protocol through the real client, in one headless session: a small Edit recorded and its note delivered to
// the model; a large Write denied, then confirmed through the client's Bash tool; another discarded; the small
// Edit rolled back through Bash; a staged diff of very long lines capped; and the session's last write settled
// when `claude -p` exits (its background PostToolUse is cancelled), so that rollback works on it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines } from '../helpers/repo';
import { type ApiRequest, type Block, contextTextIn, resultsIn, text, tool } from './fake-api';
import { changesIn, commandAfter, e2eRepo, explain, fettle, session } from './session';

const LONG = Array.from({ length: 12 }, (_, i) => `${String(i).repeat(6000)}\n`).join('');

test('small edit, confirm, discard, rollback and the last write, through the real client', async () => {
  const repo = e2eRepo({
    'a.txt': lines(30),
    'b.txt': lines(30),
    'c.txt': lines(30),
    'd.txt': lines(30),
    'e.txt': LONG,
  });
  const bash = (command: string | undefined, what: string): Block[] =>
    command ? [tool('Bash', { command, description: what })] : [text(`no command to ${what}`)];
  const lastResult = (req: ApiRequest) => resultsIn(req).at(-1)?.text ?? '';
  const s = await session(
    repo,
    (req, turn) => {
      switch (turn) {
        case 0:
          return ['a', 'b', 'c', 'd', 'e'].map((f) => tool('Read', { file_path: repo.path(`${f}.txt`) }));
        case 1:
          return [tool('Edit', { file_path: repo.path('a.txt'), old_string: 'line 3\n', new_string: 'LINE 3\n' })];
        case 2:
          return [tool('Write', { file_path: repo.path('b.txt'), content: lines(30, 'new') })];
        case 3:
          return bash(commandAfter(lastResult(req), 'To apply it, run:'), 'confirm');
        case 4:
          return [tool('Write', { file_path: repo.path('c.txt'), content: lines(30, 'other') })];
        case 5:
          return bash(commandAfter(lastResult(req), 'To drop it, run:'), 'discard');
        case 6:
          return [tool('Write', { file_path: repo.path('e.txt'), content: LONG.replaceAll('\n', 'x\n') })];
        case 7:
          // The note of the small Edit reached the model as a system message by now.
          return bash(commandAfter(contextTextIn(req), 'undo with:'), 'roll back');
        case 8:
          return [tool('Edit', { file_path: repo.path('d.txt'), old_string: 'line 9\n', new_string: 'LINE 9\n' })];
        default:
          return [text('done')];
      }
    },
    { args: ['--allowedTools', 'Bash'] },
  );
  const why = explain(s);
  const seen = s.api.results();
  const [edit, staged, applied, discardable, dropped, capped, rolledBack, last] = seen.slice(5);
  assert.equal(s.run.code, 0, why);

  // The small Edit: written by the client, recorded; its note reached the model in a later turn.
  assert.deepEqual([edit?.isError, /has been updated successfully/.test(edit?.text ?? '')], [false, true], why);
  const notes = s.api.turnRequests().map(contextTextIn).join('\n');
  const note = /^fettle recorded a\.txt \(231 B, 30 lines, \+1 -1 ~1\) as (\w+); undo with: (.+ rollback \1)$/m.exec(
    notes,
  );
  assert.ok(note, `the async PostToolUse note reached the model\n${why}`);

  // The large Write: denied with fettle's text as the tool's error; the model confirmed it through Bash.
  assert.equal(staged?.isError, true, why);
  assert.match(
    staged?.text ?? '',
    /^PreToolUse:Write hook error: fettle held this write for review: nothing was written to b\.txt\.\n/,
  );
  const id = /Staged change (\w+):/.exec(staged?.text ?? '')?.[1] ?? '';
  assert.match(applied?.text ?? '', new RegExp(`Applied ${id} to b\\.txt \\(\\+30 -30\\)`), why);
  assert.equal(repo.read('b.txt').toString(), lines(30, 'new'));

  // Another large Write, dropped through Bash: the file is untouched.
  assert.equal(discardable?.isError, true, why);
  assert.match(dropped?.text ?? '', /[Dd]iscarded/, why);
  assert.equal(repo.read('c.txt').toString(), lines(30));

  // A diff of 6,000-character lines is shown cut: the model is not sent 144 KB.
  assert.equal(capped?.isError, true, why);
  assert.ok((capped?.text.length ?? 0) < 10_000, `capped: ${capped?.text.length} characters`);
  assert.match(capped?.text ?? '', /cut at \d+ characters; see them whole with: git show fettle\/\w+/);

  // The small Edit rolled back through Bash, as the note said.
  assert.equal(rolledBack?.isError, false, why);
  assert.equal(repo.read('a.txt').toString(), lines(30));

  // The last write of the session: the client exits and cancels its background PostToolUse; the Stop hook
  // settles the record from the disk, so it is complete and rollback by id needs no --force.
  assert.equal(last?.isError, false, why);
  const d = changesIn(repo).find((c) => c.path === 'd.txt');
  assert.ok(d, why);
  assert.equal(d.state, 'applied', `the last write is settled: ${JSON.stringify(d)}`);
  fettle(repo, 'rollback', d.id);
  assert.equal(repo.read('d.txt').toString(), lines(30));
});
