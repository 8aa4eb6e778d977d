// The store in a sha256 repository (`git init --object-format=sha256`): 32-byte ids in trees, 64-hex ids in
// commits and refs, which fettle writes itself. Every write path, done, and killed at each of its failpoints
// then rerun; the invariants are checked with sha256 blob ids. (FETTLE_TEST_OBJECT_FORMAT=sha256 runs every
// reliability scenario this way.)
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { count, reportAs, scenario } from './harness';
import { expectOutcome, formatOf } from './invariants';
import { crashThenRecover, PATHS } from './scenes';

reportAs('formats');
// Read by repoWith when a scenario builds its repository (after this file's imports are evaluated).
process.env.FETTLE_TEST_OBJECT_FORMAT = 'sha256';

for (const path of PATHS) {
  scenario(`sha256 repository: ${path.name}, to completion`, undefined, async () => {
    const s = await path.make();
    assert.equal(formatOf(s.repo), 'sha256');
    // The first run is where the sha256 store is written: it must succeed (3: staged), not be left to the rerun.
    for (const p of await s.act({})) expectOutcome(p, { exit: [0, 3] });
    count('rounds');
    await crashThenRecover(s, path.name, 'none');
  });
  for (const point of path.points) {
    scenario(`sha256 repository: kill -9 at ${point}, then rerun: ${path.name}`, undefined, async () => {
      const s = await path.make();
      const acted = await s.act({ failpoints: `${point}=kill` });
      assert.ok(
        acted.some((p) => p.signal === 'SIGKILL'),
        `the failpoint ${point} was reached`,
      );
      count('kills');
      await crashThenRecover(s, path.name, 'none');
    });
  }
}
