// fettle_rewind, the headless `fettle rewind`: the same JSON the command prints, a dry run changing nothing, the
// files-only scope rewinding them, and a scope it does not know answered as an error the model can correct.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startMcp } from '../helpers/mcp';
import { A1, files, LATER, S, twoTurns } from '../helpers/rewind';

test('fettle_rewind: a dry run, then the files only; a wrong scope is the model to correct', async () => {
  const repo = twoTurns();
  const c = startMcp({ cwd: repo.dir, env: repo.env });
  after(() => c.close());
  await c.initialize('codex-mcp-client');
  const dry = await c.call('fettle_rewind', { turn: 2, session: S, dry_run: true });
  assert.equal(dry.isError, false, dry.text);
  const plan = JSON.parse(dry.text);
  assert.deepEqual([plan.dryRun, plan.files.files.length, plan.conversation.resumeAt], [true, 2, 'a1']);
  assert.match(
    plan.conversation.command,
    /^claude --resume sess-rewind-1 --fork-session --session-id \S+ --resume-session-at a1 -p two$/,
  );
  assert.deepEqual(files(repo), LATER);
  const wrong = await c.call('fettle_rewind', { turn: 2, session: S, scope: 'all' });
  assert.equal(wrong.isError, true);
  assert.match(wrong.text, /scope is "both", "files" or "conversation", not "all"/);
  const done = JSON.parse((await c.call('fettle_rewind', { turn: 2, session: S, scope: 'files' })).text);
  assert.deepEqual([done.conversation, done.files.changes.length, done.files.undo.length], [null, 2, 1]);
  assert.deepEqual(files(repo), [A1, '']);
});
