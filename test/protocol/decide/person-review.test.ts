// Changes only a person may apply: refused to the agent (its shell's mark, or its process above the command) and to
// a command without a terminal, allowed to a person; the decider each is recorded as.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, type Env } from '../../../src/config';
import { type Caller, callerOf } from '../../../src/core/caller';
import { FettleError } from '../../../src/errors';
import type { Change } from '../../../src/protocol/changes';
import {
  commandDecider,
  needsPerson,
  requirePerson,
  requirePersonForExpired,
} from '../../../src/protocol/decide/person-review';

/** A command's context: `env` is the environment; `terminal`, whether stdin and stdout are one; no agent above. */
const ctx = (env: Env, terminal = true) => {
  const caller = callerOf({ env, ancestors: [], terminal });
  return { cwd: '/', env, now: () => new Date(0), config: loadConfig(env), caller: () => caller };
};
const change = (review?: 'person'): Change => ({
  id: 'abcd1234',
  ref: 'refs/fettle/abcd1234',
  tip: '0'.repeat(40),
  parents: [],
  fields: { id: 'abcd1234', kind: 'proposal', tier: 'staged', path: 'src/a.ts', file: '/r/src/a.ts', review },
  state: 'pending',
  at: new Date(0),
});

// [label, env, change reviewed by a person, needs a person, refused]
const cases: [string, Env, boolean, boolean, boolean][] = [
  ['a model-reviewed change from the agent shell', { CLAUDECODE: '1' }, false, false, false],
  ['a person-reviewed change from the agent shell', { CLAUDECODE: '1' }, true, true, true],
  ['a person-reviewed change from a terminal', {}, true, true, false],
  [
    'any change under FETTLE_REVIEW=human from the agent shell',
    { CLAUDECODE: '1', FETTLE_REVIEW: 'human' },
    false,
    true,
    true,
  ],
  ['any change under FETTLE_REVIEW=human from a terminal', { FETTLE_REVIEW: 'human' }, false, true, false],
  ["a person-reviewed change from opencode's shell", { OPENCODE: '1' }, true, true, true],
  ["a person-reviewed change from Gemini CLI's shell", { GEMINI_CLI: '1' }, true, true, true],
];
for (const [label, env, person, needs, refused] of cases) {
  test(label, () => {
    const c = change(person ? 'person' : undefined);
    assert.equal(needsPerson(ctx(env), c), needs);
    if (!refused) return assert.doesNotThrow(() => requirePerson(ctx(env), c));
    assert.throws(
      () => requirePerson(ctx(env), c),
      (e: unknown) =>
        e instanceof FettleError &&
        e.code === 'E_PERSON_REQUIRED' &&
        e.message.includes('Nothing was written') &&
        (e.hint ?? '').includes('fettle confirm abcd1234'),
    );
  });
}

test('a person-reviewed change from a command with no terminal is refused, saying so', () => {
  assert.throws(
    () => requirePerson(ctx({}, false), change('person')),
    (e: unknown) =>
      e instanceof FettleError &&
      e.code === 'E_PERSON_REQUIRED' &&
      e.message ===
        "Change abcd1234 to src/a.ts needs a person's approval (the agent asked a person to approve change abcd1234), and this command has no terminal on stdin and stdout, so fettle cannot tell it from an agent's. Nothing was written.",
  );
});

test('a context that does not say who runs it (the hook) is no person: refused, decided as a script', () => {
  const bare = { cwd: '/', env: {}, now: () => new Date(0), config: loadConfig({}) };
  assert.throws(() => requirePerson(bare, change('person')), /this command was not started by a person/);
  assert.throws(
    () => requirePersonForExpired(bare, change()),
    /only a person may do that; this command was not started/,
  );
  assert.equal(commandDecider(bare), 'script');
});

// [caller, Fettle-Decided-By]
const deciders: [Caller, string][] = [
  [{ who: 'person' }, 'person'],
  [{ who: 'agent', agent: 'Claude Code', via: "in Claude Code's shell (CLAUDECODE=1)" }, 'model'],
  [{ who: 'agent', agent: 'claude', via: 'as a tool call of the MCP client claude' }, 'model'],
  [{ who: 'unknown', why: 'has no terminal on stdin and stdout' }, 'script'],
];
for (const [caller, decider] of deciders)
  test(`${caller.who === 'agent' ? caller.via : caller.who} decides as ${decider}`, () =>
    assert.equal(commandDecider({ ...ctx({}), caller: () => caller }), decider));
