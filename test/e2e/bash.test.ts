// Bash commands through the real client, in one headless session with fettle's hooks installed as a user installs
// them: a command that modifies, deletes and creates files is recorded as one changeset with its command line, and
// the line reaches the model; read-only commands record nothing; the session's last command, whose background
// PostToolUse `claude -p` may cancel at exit, is recorded (by that PostToolUse or by the Stop hook: which one is the
// client's timing; test/hook/bash-settle.test.ts pins the Stop path); both roll back as printed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { lines } from '../helpers/repo';
import { contextTextIn, text, tool } from './fake-api';
import { e2eRepo, explain, fettle, session } from './session';

interface Row {
  id: string;
  path: string;
  changeset: string | null;
  tool: string | null;
  command: string | null;
  reason: string | null;
}

const FIRST = "sed -i 's/line 3/LINE 3/' a.txt && rm b.txt && printf 'made by the command\\n' > c.txt";
const LAST = "printf 'the last command\\n' > d.txt";

test('Bash commands through the real client: one changeset per command, the line to the model, the last one settled at exit', async () => {
  const repo = e2eRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  repo.write('a.txt', `${lines(30)}dirty before the command\n`);
  const bash = (command: string) => [tool('Bash', { command, description: 'a command' })];
  const s = await session(
    repo,
    (_req, turn) => {
      switch (turn) {
        case 0:
          return bash(FIRST);
        case 1:
          return bash('ls -la && git status --short');
        case 2:
          return bash('git log --oneline -3');
        case 3:
          return bash(LAST);
        default:
          return [text('done')];
      }
    },
    { args: ['--allowedTools', 'Bash'] },
  );
  const why = explain(s);
  assert.equal(s.run.code, 0, why);
  assert.equal(
    s.api.results().every((r) => !r.isError),
    true,
    why,
  );

  const rows = (JSON.parse(fettle(repo, 'log', '--json')).changes as Row[]).filter((r) => r.tool === 'Bash');
  const first = rows.filter((r) => r.command === FIRST);
  assert.deepEqual(
    first.map((r) => `${r.path} ${r.reason}`).sort(),
    ['a.txt modified', 'b.txt deleted', 'c.txt created'],
    why,
  );
  const changeset = first[0]?.changeset as string;
  assert.ok(changeset, why);
  assert.ok(first.every((r) => r.changeset === changeset));

  // The line of the first command reached the model (a background PostToolUse's context arrives with a later turn).
  const notes = s.api.turnRequests().map(contextTextIn).join('\n');
  assert.match(
    notes,
    new RegExp(
      `fettle recorded 3 files changed by this command: 1 modified, 1 created, 1 deleted; undo with: .+ rollback ${changeset}`,
    ),
    why,
  );

  // The read-only commands recorded nothing; the last command was recorded (by its PostToolUse, or by Stop when
  // the client cancelled it at exit).
  const last = rows.filter((r) => r.command === LAST);
  assert.deepEqual(
    last.map((r) => r.path),
    ['d.txt'],
    why,
  );
  assert.equal(rows.length, 4, why);

  fettle(repo, 'rollback', last[0]?.changeset as string);
  fettle(repo, 'rollback', changeset);
  assert.equal(repo.read('a.txt').toString(), `${lines(30)}dirty before the command\n`);
  assert.equal(repo.read('b.txt').toString(), lines(30));
  assert.equal(existsSync(repo.path('c.txt')), false);
  assert.equal(existsSync(repo.path('d.txt')), false);
});
