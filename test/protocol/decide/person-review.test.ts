// Changes only a person may apply, refused from the agent's shell (CLAUDECODE=1), allowed from a terminal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, type Env } from '../../../src/config';
import { FettleError } from '../../../src/errors';
import type { Change } from '../../../src/protocol/changes';
import { agentShell, needsPerson, requirePerson } from '../../../src/protocol/decide/person-review';

const ctx = (env: Env) => ({ cwd: '/', env, now: () => new Date(0), config: loadConfig(env) });
const change = (review?: 'person'): Change => ({
  id: 'abcd1234',
  ref: 'refs/fettle/abcd1234',
  tip: '0'.repeat(40),
  parents: [],
  fields: { id: 'abcd1234', kind: 'proposal', tier: 'staged', path: 'src/a.ts', file: '/r/src/a.ts', review },
  state: 'pending',
  at: new Date(0),
});

test("the agent shell is Claude Code's when CLAUDECODE is exactly 1, opencode's when OPENCODE is", () => {
  assert.equal(agentShell({ CLAUDECODE: '1' }), 'Claude Code');
  assert.equal(agentShell({ CLAUDECODE: '0' }), null);
  assert.equal(agentShell({}), null);
  assert.equal(agentShell({ OPENCODE: '1' }), 'opencode');
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
