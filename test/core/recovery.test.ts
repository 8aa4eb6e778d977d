// What recovery does with an interrupted operation, from its refs and each file's bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planRecovery, type FileNow, type RecoveryPlan } from '../../src/core/recovery';

for (const [refs, files, expected] of [
  // every ref moved: completed, only the journal is left to remove
  [[true, true], ['to', 'to'], { outcome: 'finished' }],
  [[true], ['other'], { outcome: 'finished' }],
  // none moved: files with the operation's bytes go back; a save since is kept
  [[false, false, false], ['to', 'from', 'to'], { outcome: 'undo', restore: [0, 2], kept: [] }],
  [[false, false, false], ['from', 'from', 'from'], { outcome: 'undo', restore: [], kept: [] }],
  [[false, false], ['to', 'other'], { outcome: 'undo', restore: [0], kept: [1] }],
  // some moved: a person looks
  [
    [true, false],
    ['to', 'to'],
    { outcome: 'stuck', why: '1 of the 2 refs that record it moved and the others did not' },
  ],
] as [boolean[], FileNow[], RecoveryPlan][]) {
  test(`planRecovery(${JSON.stringify(refs)}, ${JSON.stringify(files)}) is ${expected.outcome}`, () =>
    assert.deepEqual(planRecovery(refs, files), expected));
}
