// Runs the test suite with node's test runner. Node 20 cannot glob and silently runs 0 tests when given a
// directory, so the files are listed here; a run that executes no test fails.
//
//   node scripts/test.mjs                the fast tier: every file not tagged slow (`npm test`)
//   node scripts/test.mjs --tier slow    the slow tier (`npm run test:slow`; CI runs it after `npm test`)
//   node scripts/test.mjs --tier all     both, in one run
//   node scripts/test.mjs <file...>      the files named
// A file is in the slow tier when its header says why (scripts/test-tiers.mjs).
//
// Most tests drive the built dist/ as a separate process, so a dist/ older than src/ would test old code: it is
// rebuilt first when any source is newer. Results stream as each test ends, with a line as each file finishes
// (scripts/test-progress.mjs); the spec reporter's summary and failure details follow at the end, then the ten
// slowest files and the wall time.
//
// A tier's run measures coverage, the CLI processes the tests start included (scripts/coverage.mjs), prints its
// summary and fails below the floor in scripts/coverage-floor.json: the fast tier's own, or the whole suite's when
// the slow tier's run finds the fast tier's coverage of the same build (or for `--tier all`). A run of named files
// measures none (FETTLE_COVERAGE=1 asks for it anyway, without the floor).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { belowFloor, buildOf, coverageDirs, measured, report, startCollector } from './coverage.mjs';
import { findTests, inTier, TIERS } from './test-tiers.mjs';

const started = Date.now();

const newest = (dir) =>
  Math.max(
    0,
    ...readdirSync(dir).map((name) => {
      const path = join(dir, name);
      const info = statSync(path);
      return info.isDirectory() ? newest(path) : info.mtimeMs;
    }),
  );

const built = (() => {
  try {
    return Math.min(
      ...['cli.js', 'hook.js', 'agents.js', 'serve.js', 'mcp.js', 'commands.js', 'glance.js'].map(
        (f) => statSync(join('dist', f)).mtimeMs,
      ),
    );
  } catch {
    return 0;
  }
})();
if (built < Math.max(newest('src'), newest('schema'), statSync('scripts/build.mjs').mtimeMs)) {
  console.log('dist/ is older than src/: building it first');
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const args = process.argv.slice(2);
const tierAt = args.indexOf('--tier');
const tier = tierAt < 0 ? (args.length ? null : 'fast') : args[tierAt + 1];
if (tierAt >= 0 && (!TIERS.includes(tier) || args.length !== 2)) {
  console.error(`--tier takes one of ${TIERS.join(', ')}, and no file names; got: ${args.join(' ')}`);
  process.exit(2);
}
const files = (tier ? inTier(findTests('test'), tier) : args).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
if (tier) console.log(`the ${tier} tier: ${files.length} test files`);
const measure = tier ? process.env.FETTLE_COVERAGE !== '0' : process.env.FETTLE_COVERAGE === '1';
const root = process.cwd();
const dirs = coverageDirs(root);
const build = buildOf(root);
const collector = measure ? startCollector(root, dirs, tier ?? 'named', build) : null;
const coverageEnv = measure ? { NODE_V8_COVERAGE: dirs.raw } : {};

const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
const progress = ['--test-reporter=./scripts/test-progress.mjs', '--test-reporter-destination=stderr'];
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', ...reporters, ...progress, '--test-concurrency=2', ...files],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...coverageEnv, FETTLE_TEST_FILE_COUNT: String(files.length) },
  },
);
let out = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  out += chunk;
  process.stdout.write(chunk);
});
child.on('close', (code) => {
  const count = (label) => Number(new RegExp(`^\\S+ ${label} (\\d+)$`, 'm').exec(out)?.[1] ?? NaN);
  const [tests, pass, fail, skipped] = ['tests', 'pass', 'fail', 'skipped'].map(count);
  if (!(tests > 0)) {
    console.error('no test ran: treating this as a failure');
    process.exit(1);
  }
  let covered = true;
  if (collector) {
    const processes = collector.stop();
    // The slow tier alone is not the suite: with the fast tier's coverage of this build, their union is.
    const whole = tier === 'all' || (tier === 'slow' && measured(dirs, 'fast', build));
    const tiers = tier === 'slow' && whole ? ['fast', 'slow'] : [tier ?? 'named'];
    const what = whole ? 'the whole suite' : tier ? `the ${tier} tier` : 'the files named';
    console.log(
      `\nCoverage of src/ by ${what}, from ${processes} Node processes (the CLI runs the tests started included):`,
    );
    if (tier === 'slow' && !whole) console.log('(the fast tier of this build is not measured yet: `npm test` first)');
    const total = report(root, dirs, tiers);
    const floors = JSON.parse(readFileSync(join(root, 'scripts', 'coverage-floor.json'), 'utf8'));
    const floor = whole ? floors.whole : tier === 'fast' ? floors.fast : null;
    const below = total ? (floor ? belowFloor(total, floor) : []) : ['c8 could not report'];
    for (const line of below) console.error(`coverage: ${line} (scripts/coverage-floor.json)`);
    covered = below.length === 0;
  }
  // The plain closing lines CI reads.
  console.log(`wall time ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(`${pass} passed, ${fail} failed, ${skipped} skipped`);
  process.exit(code === 0 && fail === 0 && covered ? 0 : 1);
});
