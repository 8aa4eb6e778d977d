// `fettle rewind`'s refusals: a transcript fettle does not recognise rewinds the files only and says why, and
// --conversation alone then changes nothing; an agent without a command that forks at a turn (Codex) gets its files
// rewound and is told what the person can do.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { makeRepo } from '../helpers/repo';
import { A0, A1, files, LATER, rewind, twoTurns } from '../helpers/rewind';

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

test('a transcript fettle does not recognise: --conversation refuses, changing nothing; by default, the files only', () => {
  const repo = twoTurns('9.9.9');
  const refused = rewind(repo, '--turn', '2', '--conversation');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /The conversation of session 'sess-rewind-1' cannot be rewound: .*Claude Code 9\.9\.9/);
  assert.deepEqual(files(repo), LATER);
  const r = rewind(repo, '--turn', '2');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(files(repo), [A1, '']);
  assert.match(
    r.stdout,
    /Conversation: not rewound: fettle cannot find where turn 2 began in its transcript \(.*\): it was written by Claude Code 9\.9\.9;/,
  );
  assert.match(r.stdout, /`claude --resume sess-rewind-1` and then `\/rewind`/);
  // A transcript gone, or a path that is no regular file: said, never waited on.
  const transcript = join(repo.home, 'transcript.jsonl');
  rmSync(transcript);
  mkfifo(transcript);
  const fifo = JSON.parse(rewind(repo, '--turn', '1', '--dry-run', '--json').stdout).conversation.why;
  assert.match(fifo, /its transcript cannot be read: .*transcript\.jsonl is not a regular file \(a named pipe\)$/);
  rmSync(transcript);
  const gone = JSON.parse(rewind(repo, '--turn', '1', '--dry-run', '--json').stdout).conversation.why;
  assert.match(gone, /its transcript \(.*\) cannot be read \(ENOENT\)/);
});

test("a Codex session: the files rewound, and Codex's own way back named", () => {
  const repo = makeRepo({ 'a.txt': A0 });
  const codex = (input: Record<string, unknown>) =>
    runCli(['hook', '--agent', 'codex'], {
      cwd: repo.dir,
      env: repo.env,
      input: JSON.stringify({ session_id: 'codex-1', turn_id: 't', transcript_path: null, cwd: repo.dir, ...input }),
    });
  codex({ hook_event_name: 'UserPromptSubmit', prompt: 'make n' });
  const call = {
    tool_name: 'apply_patch',
    tool_use_id: 'c1',
    tool_input: { command: '*** Begin Patch\n*** Add File: n.txt\n+n\n*** End Patch\n' },
  };
  codex({ hook_event_name: 'PreToolUse', ...call });
  writeFileSync(repo.path('n.txt'), 'n\n');
  codex({ hook_event_name: 'PostToolUse', ...call, tool_response: 'Exit code: 0\nOutput:\nSuccess.' });
  const out = JSON.parse(rewind(repo, '--turn', '1', '--session', 'codex-1', '--json').stdout);
  assert.equal(out.files.changes.length, 1);
  assert.deepEqual([out.conversation.rewound, out.conversation.agent], [false, 'codex']);
  assert.match(out.conversation.why, /Codex CLI offers no command that forks its conversation at a turn/);
  assert.match(out.conversation.advice, /`codex fork codex-1`/);
});
