// Coverage of the whole suite, the CLI processes the tests start included. Every Node process of the run writes
// V8's coverage when it exits (NODE_V8_COVERAGE, inherited by the processes the tests start), a file of several
// hundred kilobytes each, thousands in a run. The collector keeps what is fettle's own (dist/ and src/), merges it
// as the files arrive and removes them, so they never pile up. Each tier's merged coverage is kept in
// .coverage/tiers/<tier>.json with the build of dist/ it measured; at the end c8 maps dist/ back to src/ through
// the bundles' source maps (scripts/build.mjs writes them) and reports the tiers asked for: `npm test` its own,
// `npm run test:slow` both, when the fast tier's is of the same build. The run fails below the floor
// (scripts/coverage-floor.json): the last measure of each, less about a point for the scenarios that skip where a
// tool (chromium, tmux, strace) is missing. Raise it as coverage rises; never lower it to let a change land.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const { mergeProcessCovs } = require('@bcoe/v8-coverage');

/** A file still being written does not parse; one that old and still broken is given up. */
const PARTIAL_GRACE_MS = 30_000;

export const coverageDirs = (root) => {
  const base = join(root, '.coverage');
  const tiers = join(base, 'tiers');
  return { base, raw: join(base, 'raw'), merged: join(base, 'merged'), report: join(base, 'report'), tiers };
};

/** Which build of dist/ a run measured: a hash of its bundles (esbuild's output is the same for the same input). */
export const buildOf = (root) => {
  const hash = createHash('sha256');
  const dist = join(root, 'dist');
  for (const name of readdirSync(dist).sort()) if (name.endsWith('.js')) hash.update(readFileSync(join(dist, name)));
  return hash.digest('hex').slice(0, 16);
};

/**
 * Starts collecting from `dirs.raw` every `everyMs`; `stop()` collects the rest and keeps it as `tier`'s coverage
 * of `build` (tiers/<tier>.json), returning how many processes wrote some.
 */
export const startCollector = (root, dirs, tier, build, everyMs = 2000) => {
  for (const dir of [dirs.raw, dirs.merged, dirs.report]) rmSync(dir, { recursive: true, force: true });
  rmSync(join(dirs.tiers, `${tier}.json`), { force: true });
  mkdirSync(dirs.raw, { recursive: true });
  // Some tests run the CLI as another user (a repository it may not write): their coverage must land too.
  chmodSync(dirs.raw, 0o1777);
  const own = [pathToFileURL(join(root, 'dist')).href, pathToFileURL(join(root, 'src')).href].map((u) => `${u}/`);
  const mine = (url) => own.some((prefix) => url.startsWith(prefix));
  let merged = { result: [] };
  const maps = {};
  let files = 0;
  const collect = () => {
    const batch = [merged];
    for (const name of readdirSync(dirs.raw)) {
      const path = join(dirs.raw, name);
      let cov;
      try {
        cov = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0);
        if (age > PARTIAL_GRACE_MS) unlinkSync(path);
        continue;
      }
      unlinkSync(path);
      files++;
      batch.push({ result: cov.result.filter((s) => mine(s.url)) });
      for (const [url, map] of Object.entries(cov['source-map-cache'] ?? {})) if (mine(url)) maps[url] = map;
    }
    if (batch.length > 1) merged = mergeProcessCovs(batch);
  };
  const timer = setInterval(collect, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      collect();
      mkdirSync(dirs.tiers, { recursive: true });
      writeFileSync(join(dirs.tiers, `${tier}.json`), JSON.stringify({ ...merged, 'source-map-cache': maps }));
      writeFileSync(join(dirs.tiers, `${tier}.build`), build);
      rmSync(dirs.raw, { recursive: true, force: true });
      return files;
    },
  };
};

const KINDS = ['lines', 'branches', 'functions'];

/** Whether `tier`'s coverage is on record for `build`. */
export const measured = (dirs, tier, build) => {
  try {
    return (
      readFileSync(join(dirs.tiers, `${tier}.build`), 'utf8') === build && existsSync(join(dirs.tiers, `${tier}.json`))
    );
  } catch {
    return false;
  }
};

/**
 * c8's report of the union of `tiers`' coverage, summed over src/ (the bundles also map to the libraries they hold; c8's own
 * filter after remapping counted every file as covered, so the sum is made here). Null when c8 fails.
 */
export const report = (root, dirs, tiers) => {
  rmSync(dirs.merged, { recursive: true, force: true });
  mkdirSync(dirs.merged, { recursive: true });
  for (const tier of tiers) copyFileSync(join(dirs.tiers, `${tier}.json`), join(dirs.merged, `${tier}.json`));
  const c8 = join(root, 'node_modules', 'c8', 'bin', 'c8.js');
  const args = ['report', `--temp-directory=${dirs.merged}`, `--reports-dir=${dirs.report}`, '--reporter=json-summary'];
  const run = spawnSync(process.execPath, [c8, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) return null;
  const summary = JSON.parse(readFileSync(join(dirs.report, 'coverage-summary.json'), 'utf8'));
  const src = `${join(root, 'src')}/`;
  const total = Object.fromEntries(KINDS.map((k) => [k, { covered: 0, total: 0, pct: 0 }]));
  const rooms = new Map();
  for (const [file, counts] of Object.entries(summary)) {
    if (!file.startsWith(src)) continue;
    const room = relative(root, dirname(file));
    if (!rooms.has(room)) rooms.set(room, { covered: 0, total: 0 });
    rooms.get(room).covered += counts.lines.covered;
    rooms.get(room).total += counts.lines.total;
    for (const k of KINDS) {
      total[k].covered += counts[k].covered;
      total[k].total += counts[k].total;
    }
  }
  for (const k of KINDS) total[k].pct = Math.floor((1000 * total[k].covered) / Math.max(1, total[k].total)) / 10;
  const pct = (c) => `${((100 * c.covered) / Math.max(1, c.total)).toFixed(1)}%`.padStart(6);
  for (const [room, c] of [...rooms].sort()) console.log(`  ${pct(c)}  ${room}/`);
  console.log(KINDS.map((k) => `${k} ${total[k].pct}% (${total[k].covered}/${total[k].total})`).join(', '));
  return total;
};

/** The kinds the floor holds, each a percentage the run must reach. */
export const belowFloor = (total, floor) =>
  Object.entries(floor)
    .filter(([kind, pct]) => !(total[kind]?.pct >= pct))
    .map(([kind, pct]) => `${kind} ${total[kind]?.pct ?? '?'}% < floor ${pct}%`);
