// The store in a sha256 repository (`git init --object-format=sha256`): 32-byte ids in trees, 64-hex ids in
// commits and refs, which fettle writes itself. Every write path, done, and killed at each of its failpoints
// then rerun; the invariants are checked with sha256 blob ids. (FETTLE_TEST_OBJECT_FORMAT=sha256 runs every
// reliability scenario this way.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { count, reportAs, scenario } from './harness';
import { checkInvariants, formatOf } from './invariants';
import { FINAL, PATHS } from './scenes';

reportAs('formats');
// Read by repoWith when a scenario builds its repository (after this file's imports are evaluated).
process.env.FETTLE_TEST_OBJECT_FORMAT = 'sha256';

for (const path of PATHS) {
  scenario(`sha256 repository: ${path.name}, to completion`, undefined, async () => {
    const s = await path.make();
    assert.equal(formatOf(s.repo), 'sha256');
    await s.act({});
    await s.recover();
    assert.equal(readFileSync(s.tracked.file, 'utf8'), FINAL[path.name]);
    checkInvariants(s.repo, s.before, { owed: s.owed(), files: [{ ...s.tracked, next: [Buffer.from(FINAL[path.name] ?? '')], owe: false }] });
    count('rounds');
  });
  for (const point of path.points) {
    scenario(`sha256 repository: kill -9 at ${point}, then rerun: ${path.name}`, undefined, async () => {
      const s = await path.make();
      const acted = await s.act({ failpoints: `${point}=kill` });
      assert.ok(acted.some((p) => p.signal === 'SIGKILL'), `the failpoint ${point} was reached`);
      count('kills');
      checkInvariants(s.repo, s.before, { files: [{ ...s.tracked, owe: false }], owed: s.owed(), litter: 'crash' });
      await s.recover();
      assert.equal(readFileSync(s.tracked.file, 'utf8'), FINAL[path.name]);
      checkInvariants(s.repo, s.before, { owed: s.owed(), files: [{ ...s.tracked, next: [Buffer.from(FINAL[path.name] ?? '')], owe: false }] });
    });
  }
}
