#!/usr/bin/env node
// Measures the two git libraries fettle does not use (isomorphic-git, simple-git) against plain
// child_process + git, on fixtures built here, and checks the three it does use (commander, diff, nanoid):
// import cost, which of fettle's bundles holds them, jsdiff's cost and fettle's timeout + git fallback.
// Backs docs/DEPENDENCIES.md. Sections: snapshot timings (fresh node per run, alternating), a ref race,
// a linked-worktree check, simple-git behaviour checks, a bundle check, a jsdiff check.
//
//   node bench/libraries.mjs            full run (~20,000-file fixture, 15 runs per case)
//   node bench/libraries.mjs --quick    tiny fixtures, 2 runs (a smoke test of this script)
//   options: --runs N  --race-updates N  --json  --keep (leave the temp dir for inspection)
//   node bench/libraries.mjs --table-from saved.json   prints the table of a saved --json run
//
// Everything (npm install, npm cache, fixture repos, child scripts) lives in one temp dir that is removed at
// the end; the project's node_modules and package files are only read. Children get an environment without
// GIT_* variables and a HOME inside the temp dir, so the user's git config and hooks play no part.
// POSIX only (process groups, /proc for CPU and RSS on Linux). Node >= 20, git >= 2.28 (init -b).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { bundleCheck } from './libraries/bundles.mjs';
import { runNode, script, writeChildren } from './libraries/child-scripts.mjs';
import { cleanup, git, TMP } from './libraries/env.mjs';
import { buildRepo } from './libraries/fixtures.mjs';
import { jsdiffCheck } from './libraries/jsdiff.mjs';
import { log } from './libraries/log.mjs';
import { FIXTURES, JSON_OUT, QUICK, RUNS, SIMPLE_GIT_CALLS, TABLE_FROM } from './libraries/options.mjs';
import { measureProcesses, VARIANTS } from './libraries/processes.mjs';
import { race } from './libraries/race.mjs';
import { installPackages, prepareTempDir, projectVersionsOf, resolveImports } from './libraries/setup.mjs';
import { median, stats } from './libraries/stats.mjs';
import { table } from './libraries/table.mjs';
import { validate } from './libraries/validate.mjs';
import { worktreeCheck } from './libraries/worktree.mjs';

const main = async () => {
  const started = performance.now();
  const loadBefore = loadavg().map((x) => +x.toFixed(2));
  prepareTempDir();

  const { depReq, installed } = await installPackages();
  writeChildren();

  log('building fixtures');
  const t0 = performance.now();
  const repos = {
    small: await buildRepo(join(TMP, 'small'), FIXTURES.small),
    big: await buildRepo(join(TMP, 'big'), FIXTURES.big),
  };
  const fixtureMs = Math.round(performance.now() - t0);

  const imports = resolveImports(depReq);
  const projectVersions = projectVersionsOf(imports);

  log(`process timings: ${RUNS} rounds`);
  const { samples, written, equivalence, loadedWith } = await measureProcesses(repos, imports);
  const problems = await validate(repos, written);
  const looseAfter = {};
  for (const [k, fx] of Object.entries(repos))
    looseAfter[k] = Number(/count: (\d+)/.exec((await git(fx.path, ['count-objects', '-v'])).out)[1]);

  log('race check');
  const raceRepo = await buildRepo(join(TMP, 'race'), { dirs: 1, perDir: 3 });
  const raceResult = { iso: await race(raceRepo, 'iso'), gitUpdateRef: await race(raceRepo, 'git') };

  log('linked worktree check');
  const worktree = await worktreeCheck(repos.small);

  log('bundle check');
  const bundles = await bundleCheck();

  log('jsdiff check');
  const jsdiff = imports.diff ? await jsdiffCheck(imports.diff, repos.small.path) : null;

  log('simple-git checks');
  const { result: sgChecks } = await runNode([
    script('simpleGitChecks'),
    repos.small.path,
    repos.small.head,
    String(SIMPLE_GIT_CALLS),
    join(TMP, 'tmp-index'),
  ]);
  delete sgChecks.rssKB;
  delete sgChecks.cpuMs;
  const simpleGitChecked = JSON.parse(JSON.stringify(sgChecks).split(TMP).join('<tmp>'));

  const summary = (s) => ({
    wallMs: stats(s.wall),
    cpuMs: s.cpu.length ? stats(s.cpu) : null,
    peakRssMB: s.rss.length ? Math.round(median(s.rss) / 1024) : null,
  });
  const report = {
    mode: QUICK ? 'quick' : 'full',
    runs: RUNS,
    environment: {
      node: process.version,
      git: (await git(TMP, ['--version'])).out,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      loadavgAtStart: loadBefore,
      loadavgAtEnd: loadavg().map((x) => +x.toFixed(2)),
      packages: installed,
      projectPackages: projectVersions,
    },
    fixtures: Object.fromEntries(
      Object.entries({ ...repos, race: raceRepo }).map(([k, fx]) => [
        k,
        { files: fx.files, packs: fx.packs, packMB: +(fx.packBytes / 1048576).toFixed(1) },
      ]),
    ),
    fixtureBuildMs: fixtureMs,
    processes: {
      floor: summary(samples.floor),
      emptyScript: summary(samples.empty),
      import: Object.fromEntries(
        Object.keys(imports).map((k) => [k, { ...summary(samples[`import:${k}`]), loadedWith: loadedWith[k] }]),
      ),
      snapshot: Object.fromEntries(
        Object.keys(repos).map((repo) => [
          repo,
          Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, summary(samples[`snapshot:${repo}:${v}`])])),
        ]),
      ),
    },
    variants: Object.fromEntries(Object.entries(VARIANTS).map(([k, v]) => [k, v.label])),
    sameTreeFromAllVariants: Object.fromEntries(
      Object.entries(equivalence).map(([repo, t]) => [repo, new Set(Object.values(t)).size === 1]),
    ),
    validationProblems: problems,
    looseObjectsAfterRuns: looseAfter,
    race: raceResult,
    linkedWorktree: worktree,
    simpleGit: simpleGitChecked,
    jsdiff,
    bundles,
    totalSeconds: 0,
  };
  report.totalSeconds = Math.round((performance.now() - started) / 1000);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(table(report));
  if (problems.length || Object.values(report.sameTreeFromAllVariants).includes(false)) process.exitCode = 1;
};

if (TABLE_FROM) process.stdout.write(table(JSON.parse(readFileSync(TABLE_FROM, 'utf8'))));
else
  main().catch((error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    cleanup();
    process.exit(1);
  });
