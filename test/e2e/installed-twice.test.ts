// fettle installed twice (the plugin and `fettle install` both, so the client runs two fettle hooks for every
// write, in parallel): each tool call is answered once. One small Edit is one record, one large Write one staged
// change; the model reads one deny and confirms it with the command it was shown, run as printed through Bash.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines } from '../helpers/repo';
import { resultsIn, text, tool } from './fake-api';
import { A_AND_B, changesIn, commandAfter, e2eRepo, explain, session } from './session';

test('installed as a plugin and in settings: one record per small write, one staged change per large write', async () => {
  const repo = e2eRepo(A_AND_B, 'both');
  const s = await session(
    repo,
    (req, turn) => {
      switch (turn) {
        case 0:
          return [tool('Read', { file_path: repo.path('a.txt') }), tool('Read', { file_path: repo.path('b.txt') })];
        case 1:
          return [tool('Edit', { file_path: repo.path('a.txt'), old_string: 'line 3\n', new_string: 'LINE 3\n' })];
        case 2:
          return [tool('Write', { file_path: repo.path('b.txt'), content: lines(30, 'new') })];
        case 3: {
          const command = commandAfter(resultsIn(req).at(-1)?.text ?? '', 'To apply it, run:');
          return command ? [tool('Bash', { command, description: 'confirm' })] : [text('no command to confirm')];
        }
        default:
          return [text('done')];
      }
    },
    { install: 'both', args: ['--allowedTools', 'Bash'] },
  );
  const why = explain(s);
  assert.equal(s.run.code, 0, why);
  const [small, large, confirmed] = s.api.results().slice(2);
  assert.equal(small?.isError, false, why);
  const denied = large?.text ?? '';
  assert.match(denied, /^PreToolUse:Write hook error: fettle held this write for review/, why);
  assert.equal(denied.split('fettle held this write for review').length - 1, 1, `one deny reached the model: ${why}`);
  assert.equal(confirmed?.isError, false, why);
  assert.match(confirmed?.text ?? '', /^Applied \w{8} to b\.txt/, why);

  const changes = changesIn(repo);
  assert.deepEqual(
    changes.map((c) => `${c.path} ${c.tier} ${c.state}`).sort(),
    ['a.txt direct applied', 'b.txt staged applied'],
    'each tool call recorded or staged once, though two hooks answered it',
  );
  assert.equal(repo.read('b.txt').toString(), lines(30, 'new'));
});
