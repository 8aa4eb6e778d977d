// Out of memory: V8 aborts the process (exit 134, a native stack on stderr), which no handler in it can catch,
// and a client reads any exit but 2 as "go ahead". A hook with a large input runs it in a child process, so a
// child that dies of it is caught and the write blocked with one line. The limit is the address space
// (`ulimit -v`) a little above what node itself takes here, as a tight container or a shared host sets it.
// Without a limit, the child's answer is the hook's: the 10 MB Write of fuzz.test.ts runs in one.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { agentWrite, count, repoWith, reportAs, scenario, show, text } from './harness';
import { checkInvariants, expectOutcome, track, userState } from './invariants';

reportAs('memory');

/** The address space (KiB) a bare node process peaks at on this machine: its threads and heap reservations. */
const nodeBaseKb = (): number => {
  const r = spawnSync(process.execPath, [
    '-e',
    "process.stdout.write(/VmPeak:\\s*(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1])",
  ]);
  return Number.parseInt(r.stdout.toString(), 10);
};

const linux = process.platform === 'linux'; // elsewhere `ulimit -v` is not enforced, or /proc is missing

/** Headroom above node's own (MiB) at which this hook, unsupervised, aborted on the 50 MB Write below. */
const HEADROOM_MB = [448, 640];

scenario(
  'ulimit -v: a 50 MB Write the hook has no memory for is blocked with one line, nothing lost',
  undefined,
  async (t) => {
    if (!linux) return t.skip('RLIMIT_AS and /proc/self/status are Linux');
    const repo = repoWith({ 'big.txt': text(20, 'head') });
    repo.write('big.txt', text(20, 'dirty')); // only on disk: if the write lands unrecorded, these bytes are gone
    const content = 'fifty megabytes of text, line after line\n'.repeat(1_250_000);
    const call = { file: repo.path('big.txt'), content, cwd: repo.dir };
    const before = userState(repo);
    const base = nodeBaseKb();
    for (const mb of HEADROOM_MB) {
      const t0 = track(repo.path('big.txt'), []);
      const limited = await agentWrite(call, repo.env, { ulimitVirtualKb: base + mb * 1024 });
      count('faults');
      expectOutcome(limited.pre, { exit: [2], hook: true });
      assert.match(limited.pre.stderr, /^fettle blocked this .*nothing was written/, show(limited.pre));
      assert.equal(limited.written, false);
      checkInvariants(repo, before, { files: [t0], litter: 'none' });
    }
  },
);

scenario(
  'ulimit -v: a hook of any size that dies (killed at a failpoint, as V8 or the kernel ends it) blocks the write',
  undefined,
  async (t) => {
    if (!linux) return t.skip('RLIMIT_AS and /proc/self/status are Linux');
    const repo = repoWith({ 'a.txt': text(20, 'head') });
    repo.write('a.txt', text(20, 'dirty'));
    const call = {
      file: repo.path('a.txt'),
      content: text(20, 'dirty').replace('dirty 1\n', 'edited\n'),
      cwd: repo.dir,
    };
    const before = userState(repo);
    const t0 = track(repo.path('a.txt'), []);
    const run = await agentWrite(call, repo.env, {
      ulimitVirtualKb: nodeBaseKb() + 4096 * 1024,
      failpoints: 'record.blob-written=kill',
    });
    count('faults');
    expectOutcome(run.pre, { exit: [2], hook: true });
    assert.match(
      run.pre.stderr,
      /^fettle blocked this tool call: its hook ran out of memory or was killed \(SIGKILL\) on a 0 MB input/,
    );
    assert.equal(run.written, false);
    checkInvariants(repo, before, { files: [t0], litter: 'crash' });
  },
);
