#!/usr/bin/env node
// fettle's benchmark harness (`npm run bench`, or `node bench/run.mjs` against an existing dist/).
//
// Every case runs the built CLI (dist/cli.js) as separate processes, the way Claude Code runs the hook, and
// compares it with a baseline measured in the same run: fettle and baseline runs alternate (A B A B ...), and
// the table reports medians and their ratio. Fixture repositories are generated in a temp dir that is
// removed at the end; every process gets a private HOME / XDG dirs / TMPDIR and GIT_CONFIG_NOSYSTEM=1, so
// nothing outside that dir is written (the checkout is only read: dist/, hooks/hooks.json, and the commit
// dist/ was built from, with `git --no-optional-locks`).
//
//   node bench/run.mjs [--quick] [--json] [--runs N] [--cases 0,1,2,5] [--keep] [--keep-ca-certs] [--baseline-dist DIR]
//
// --quick   tiny fixtures and 2 runs: proves the harness works (CI), verdicts are not meaningful
// --json    print the results as JSON on stdout (progress, and then the table, go to stderr)
// --runs N  timed runs per side for the process cases (default 15)
// --cases   run only these cases (1-11, bash, commit, page, resident, share, storage; 0 = start-up decomposition and git spawn
//           counts; 10 = fettle test's tree; 11 = a policy; page = the review page in chromium; resident = the
//           resident server (thin = only its command-hook rows, resident-e and -f); share = `fettle share` of 100 turns to a bare remote; storage = storage growth of
//           1,000 writes; reads = re-reads through fettle_read and Claude Code's Read hook)
// --baseline-dist DIR  also time case 1 with the build in DIR (another commit's dist/), alternating
// --keep    keep the temp dir (and every fixture repo in it) and print its path
// --keep-ca-certs  leave NODE_EXTRA_CA_CERTS in the environment (removed by default: it makes every node
//           start, fettle's and the baseline's, parse a certificate bundle)
//
// Plain ESM, Node >= 20, no dependencies but playwright-core and Debian's chromium for case `page`. See docs/PERFORMANCE.md for what each case measures.
import { measureBash } from './run/cases/bash.mjs';
import { measureBigFile } from './run/cases/big-file.mjs';
import { measureCommitHook } from './run/cases/commit-hook.mjs';
import { measureReads } from './run/cases/reads.mjs';
import { measureResident, measureThin } from './run/cases/resident.mjs';
import { measureStorage } from './run/cases/storage.mjs';
import { measureDirectWrite, measureRepoSize, measureStagedWrite } from './run/cases/hook-writes.mjs';
import { measurePeakMemory } from './run/cases/memory.mjs';
import { measurePage } from './run/cases/page.mjs';
import { measurePolicy } from './run/cases/policy.mjs';
import { measureRollback } from './run/cases/rollback.mjs';
import { measureShadowSnapshot } from './run/cases/shadow.mjs';
import { measureShare } from './run/cases/share.mjs';
import { measureStartup } from './run/cases/startup.mjs';
import { measureStatus } from './run/cases/status.mjs';
import { measureTestTree } from './run/cases/test-tree.mjs';
import { measureTurn } from './run/cases/turn.mjs';
import { cleanup, TMP } from './run/env.mjs';
import { buildRepo, removeRepo } from './run/fixtures.mjs';
import { hookPlan } from './run/hook-calls.mjs';
import { describeBuild, describeMachine, recordEndLoad, requireBuiltCli } from './run/machine.mjs';
import { opts, RUNS, SIZES, want } from './run/options.mjs';
import { log } from './run/progress.mjs';
import { writeReport } from './run/report.mjs';

const machine = describeMachine();
requireBuiltCli();
const build = describeBuild();

log(
  `fettle bench${opts.quick ? ' (quick)' : ''}: ${RUNS} runs per side; node ${machine.node}, git ${machine.git}, ${machine.cpus} CPUs; temp dir ${TMP}`,
);
log(
  `hook events (from ${hookPlan.source}): PreToolUse ${hookPlan.PreToolUse.blocking ? 'blocking' : 'async'}, PostToolUse ${hookPlan.PostToolUse.registered ? (hookPlan.PostToolUse.blocking ? 'blocking' : 'async') : 'not registered'}`,
);

const main = async () => {
  let mid; // the 1,000-file repo, shared by cases 0, 1, 2, 5/6 and 9

  if (want(0) || want(1) || want(2) || want(5) || want(6) || want(9) || want('resident') || want('thin'))
    mid = buildRepo('repo-1k', SIZES.files);
  if (want(0)) measureStartup(mid);
  if (want(1)) measureDirectWrite(mid);
  if (want(2)) measureStagedWrite(mid);
  if (want(3)) measureRepoSize();
  if (want(4)) measureShadowSnapshot();
  if (want(5)) measureBigFile(mid);
  // case 6 reuses the big file case 5 wrote into this repo, when it ran
  if (want(6)) measurePeakMemory(mid);
  if (want(9)) measureTurn(mid);
  if (want('resident')) measureResident(mid);
  else if (want('thin')) measureThin(mid);
  if (mid) removeRepo(mid);
  if (want('storage')) measureStorage();
  if (want(7)) measureStatus();
  if (want(8)) measureRollback();
  if (want(10)) measureTestTree();
  if (want(11)) measurePolicy();
  if (want('bash')) measureBash();
  if (want('page')) measurePage();
  if (want('share')) measureShare();
  if (want('commit')) measureCommitHook();
  if (want('reads')) await measureReads();
};

let exitCode = 0;
try {
  await main();
} catch (error) {
  exitCode = 1;
  process.stderr.write(`[bench] FAILED: ${error?.stack ?? error}\n`);
} finally {
  cleanup();
}
recordEndLoad(machine);
writeReport(machine, build, exitCode);
process.exitCode = exitCode;
