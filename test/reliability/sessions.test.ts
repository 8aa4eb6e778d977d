// Many hook processes of ONE agent session at once (subagents, parallel tool calls): every change that lands
// gets its commit on the session ref. Its moves are compare-and-swapped, and a writer that lost the race reads the
// ref again and retries, so none is lost however the processes interleave. A slow suite: 400 hook processes.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { agentWrite, count, hostProceeds, pool, repoWith, reportAs, scenario, show, STRESS, text } from './harness';
import { checkInvariants, expectOutcome, userState } from './invariants';

reportAs('sessions');

const LANES = 8;
const WRITES = 25 * STRESS;
const SESSION = 'one-session';

scenario(
  `${LANES} concurrent hook processes of one session × ${WRITES} direct writes each, to their own files and a shared one`,
  undefined,
  async () => {
    const repo = repoWith({ 'shared.txt': text(3, 'head') });
    const before = userState(repo);
    const lane = (l: number) => async () => {
      const ids: string[] = [];
      for (let n = 0; n < WRITES; n++) {
        // Every fifth write goes to the file all lanes write; the others to the lane's own files.
        const path = n % 5 === 4 ? 'shared.txt' : `lane${l}/f${n % 4}.txt`;
        const tag = `lane ${l} write ${n}`;
        const run = await agentWrite(
          {
            file: repo.path(path),
            content: text(3, tag),
            cwd: repo.dir,
            session: SESSION,
            toolUseId: `toolu_${l}_${n}`,
          },
          repo.env,
        );
        count('processes', run.post ? 2 : 1);
        expectOutcome(run.pre, { exit: [0], hook: true });
        assert.ok(hostProceeds(run.pre), `a small write is direct: ${show(run.pre)}`);
        assert.ok(run.post, `lane ${l} write ${n} got its PostToolUse`);
        expectOutcome(run.post, { exit: [0], hook: true });
        ids.push(`toolu_${l}_${n}`);
      }
      return ids;
    };
    const done = (
      await pool(
        LANES,
        Array.from({ length: LANES }, (_, l) => lane(l)),
      )
    ).flat();
    assert.equal(done.length, LANES * WRITES);
    // A `found` commit (the shared file held another lane's bytes when a change replaced them) is not a landing.
    const log = repo
      .git(
        'log',
        '--first-parent',
        '--format=%(trailers:key=Fettle-Event,valueonly,separator=)%x09%(trailers:key=Fettle-Change,valueonly)',
        `refs/fettle/sessions/${SESSION}`,
      )
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('found\t'))
      .map((line) => line.slice(line.indexOf('\t') + 1));
    const landed = repo
      .git('for-each-ref', '--format=%(refname:lstrip=2)', 'refs/fettle/')
      .split('\n')
      .filter((r) => r !== '' && !r.startsWith('sessions/'));
    assert.equal(landed.length, LANES * WRITES, 'one change per write');
    assert.equal(log.length, LANES * WRITES, 'the session ref holds a commit for every change');
    assert.deepEqual([...log].sort(), [...landed].sort(), 'and for exactly those changes, each once');
    count('sessionCommits', log.length);
    checkInvariants(repo, before);
  },
);
