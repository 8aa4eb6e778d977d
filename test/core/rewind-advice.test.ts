// What `fettle rewind` tells a person to do about the conversation where fettle prints no command that forks it:
// each client's own way back to a turn, with the session and the turn filled in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rewindAdvice } from '../../src/core/rewind-advice';

const CASES: [agent: string | undefined, says: string][] = [
  ['claude', '`claude --resume s-1` and then `/rewind` (choose turn 2'],
  ['codex', '`codex fork s-1` copies the whole conversation'],
  ['gemini', "`gemini --resume s-1` and then `/rewind`, choosing turn 2's message"],
  ['opencode', "`opencode --session s-1`, then `/fork` and turn 2's message"],
  ['cursor', 'pick the message of turn 2 there'],
  [undefined, 'Ask the agent to continue from turn 2'],
];

test("rewind's advice names each client's own way back to the turn", () => {
  for (const [agent, says] of CASES) {
    const advice = rewindAdvice(agent, 's-1', 2);
    assert.ok(advice.includes(says), `${agent}: ${advice}`);
  }
});
