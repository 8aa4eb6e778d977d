// Which install stays when fettle is installed in several scopes: the widest, whatever the order they were found in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type InstallScope, keepOne, keepOneFix } from '../../src/core/install-scopes';

// [installed, kept, removed]
const cases: [InstallScope[], InstallScope, InstallScope[]][] = [
  [['project', 'user'], 'user', ['project']],
  [['local', 'user'], 'user', ['local']],
  [['local', 'project'], 'project', ['local']],
  [['local', 'project', 'user'], 'user', ['project', 'local']],
];
for (const [installed, keep, remove] of cases)
  test(`installed in ${installed.join(', ')}: keep ${keep}`, () => {
    assert.deepEqual(keepOne(installed), { keep, remove });
  });

test('the fix names every uninstall, with the agent, and why the kept one stays', () => {
  assert.equal(
    keepOneFix(['project', 'user', 'local'], 'codex'),
    'Keep one: `fettle uninstall --agent codex --scope project` and `fettle uninstall --agent codex --scope local` (the user scope stays: it covers every project of yours, this one included).',
  );
});
