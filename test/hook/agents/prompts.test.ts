// Each agent's prompt hook starts a turn and keeps what the person typed, in fettle's data directory only, as
// Claude Code's does: the review page's timeline and a shared session's turns show it against its turn.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataDirFrom } from '../../../src/config';
import { promptsOf } from '../../../src/protocol/turns';
import { runCli } from '../../helpers/cli';
import { makeRepo } from '../../helpers/repo';

type Payload = (cwd: string, prompt: string) => Record<string, unknown>;

/** Each agent's hook for a prompt, as its client sends it: the agent, its session, the payload. */
const CASES: [agent: string, session: string, payload: Payload][] = [
  [
    'codex',
    'codex-1',
    (cwd, prompt) => ({
      session_id: 'codex-1',
      turn_id: 't',
      transcript_path: null,
      cwd,
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5.5',
      permission_mode: 'default',
      prompt,
    }),
  ],
  [
    'gemini',
    'gemini-1',
    (cwd, prompt) => ({
      session_id: 'gemini-1',
      transcript_path: '/dev/null',
      cwd,
      hook_event_name: 'BeforeAgent',
      timestamp: '2026-01-01T00:00:00.000Z',
      prompt,
    }),
  ],
  [
    'opencode',
    'ses_1',
    (cwd, prompt) => ({
      fettle_adapter: 'opencode',
      directory: cwd,
      permission: 'allow',
      event: 'prompt',
      tool: '',
      session: 'ses_1',
      call: '',
      args: {},
      prompt,
    }),
  ],
];

for (const [agent, session, payload] of CASES)
  test(`${agent}: each prompt starts a turn and is kept for it`, async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    for (const prompt of ['first, in turn 1', 'second, in turn 2']) {
      const input = JSON.stringify(payload(repo.dir, prompt));
      const r = runCli(['hook', '--agent', agent], { cwd: repo.dir, env: repo.env, input });
      assert.deepEqual([r.code, r.stderr], [0, '']);
    }
    const kept = await promptsOf(dataDirFrom(repo.env), session);
    assert.deepEqual(
      [...kept].map(([turn, p]) => `${turn} ${p.prompt}`),
      ['1 first, in turn 1', '2 second, in turn 2'],
    );
  });
