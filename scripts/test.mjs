// Runs the test suite with node's test runner. Node 20 cannot glob and silently runs 0 tests when given a
// directory, so the files are listed here; a run that executes no test fails.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const find = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? find(path) : name.endsWith('.test.ts') ? [path] : [];
  });

const requested = process.argv.slice(2);
const files = (requested.length ? requested : find('test')).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
process.stdout.write(result.stdout);
const count = (label) => Number(new RegExp(`^\\S+ ${label} (\\d+)$`, 'm').exec(result.stdout)?.[1] ?? NaN);
const [tests, pass, fail, skipped] = ['tests', 'pass', 'fail', 'skipped'].map(count);
if (!(tests > 0)) {
  console.error('no test ran: treating this as a failure');
  process.exit(1);
}
// The plain closing line CI reads.
console.log(`${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exit(result.status === 0 && fail === 0 ? 0 : 1);
