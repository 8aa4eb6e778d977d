// B.5 rows 3 and 20: fettle killed (SIGKILL, uncatchable) at every failpoint of the direct, staged, confirm,
// discard and rollback paths, then run again until the operation completes. Right after the kill the file is
// whole (old or new bytes) and the refs consistent; after the rerun it holds the intended bytes, and
// everything it ever held is reachable from refs/fettle*. Compound: a second failure during the recovery.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { count, prng, reportAs, scenario, SEED, STRESS } from './harness';
import { checkInvariants, expectOutcome } from './invariants';
import { crashThenRecover, PATHS } from './scenes';

reportAs('failpoints');

const killedBySelf = (procs: { signal: string | null }[]): boolean => procs.some((p) => p.signal === 'SIGKILL');

// Every failpoint but the last of a path has work left after it; a kill there must not leave anything the
// next run does not reclaim (B.5 I5: once the owner is dead). Staging creates no hidden worktree (it is made on
// first use), so no kill leaves one that only `fettle gc` could tell from a staging in progress.
const KILL_TODO: Record<string, string> = {};
const THROW_TODO: Record<string, string> = {};

for (const path of PATHS) {
  for (const point of path.points) {
    scenario(`kill -9 at ${point}, then rerun: ${path.name}`, KILL_TODO[`${path.name}|${point}`], async () => {
      const s = await path.make();
      const acted = await s.act({ failpoints: `${point}=kill` });
      assert.ok(killedBySelf(acted), `the failpoint ${point} was reached`);
      count('kills');
      await crashThenRecover(s, path.name, 'none');
    });
  }
}

test('compound: a kill, then a failure during the recovery run, then a clean rerun (seeded)', async (t) => {
  const rng = prng(SEED ^ 0xc0ffee);
  t.diagnostic(`seed ${SEED}`);
  for (let n = 0; n < 4 * STRESS; n++) {
    const path = rng.pick(PATHS);
    const first = rng.pick(path.points);
    if (KILL_TODO[`${path.name}|${first}`]) continue;
    const second = rng.pick(path.points);
    const s = await path.make();
    assert.ok(killedBySelf(await s.act({ failpoints: `${first}=kill` })), `the failpoint ${first} was reached`);
    count('kills');
    const again = await s.act({ failpoints: `${second}=throw` });
    // The second point may lie before where the rerun resumes: only a fault that fired is counted.
    if (again.some((p) => /failpoint \S+ fired/.test(p.stderr))) count('faults');
    for (const p of again) expectOutcome(p, { exit: [0, 1, 2, 3, 5] });
    await crashThenRecover(s, path.name).catch((error: Error) => {
      throw new Error(`${path.name}: kill at ${first}, throw at ${second}: ${error.message}`);
    });
  }
});

// The same points with an injected error instead of a kill: a clean exit, so no litter at all, and a
// deliberate exit code: the hook blocks (2) before the write and warns (1) after it; commands exit 1.
for (const path of PATHS) {
  for (const point of path.points) {
    const todo = KILL_TODO[`${path.name}|${point}`] ?? THROW_TODO[point];
    scenario(`error at ${point}: clean failure, no litter, then rerun: ${path.name}`, todo, async () => {
      const s = await path.make();
      const acted = await s.act({ failpoints: `${point}=throw` });
      count('faults');
      const failed = acted.find((p) => p.code !== 0);
      assert.ok(failed, `the failpoint ${point} was reached`);
      const hook = path.name.startsWith('hook');
      expectOutcome(failed, { exit: hook ? [point === 'after.ref-written' ? 1 : 2] : [1], hook });
      assert.match(failed.stderr, new RegExp(`failpoint ${point.replace('.', '\\.')} fired`));
      checkInvariants(s.repo, s.before, { files: [s.tracked], litter: 'none' });
      await crashThenRecover(s, path.name, 'none');
    });
  }
}
