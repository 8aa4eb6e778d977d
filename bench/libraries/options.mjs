// Command-line options and the sizes they select.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGES = ['isomorphic-git@1.44.11', 'simple-git@4.0.2'];
export const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const argv = process.argv.slice(2);
export const flag = (name) => argv.includes(name);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(argv[i + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
};
if (flag('--help') || flag('-h')) {
  console.log(
    'usage: node bench/libraries.mjs [--quick] [--runs N] [--race-updates N] [--json] [--keep]\n       node bench/libraries.mjs --table-from <saved --json output>',
  );
  process.exit(0);
}
export const QUICK = flag('--quick');
export const RUNS = option('--runs', QUICK ? 2 : 15);
export const RACE_PROCS = 8;
export const RACE_UPDATES = option('--race-updates', QUICK ? 5 : 15);
export const SIMPLE_GIT_CALLS = QUICK ? 5 : 20;
export const FIXTURES = QUICK
  ? { small: { dirs: 2, perDir: 5 }, big: { dirs: 10, perDir: 50 } }
  : { small: { dirs: 5, perDir: 10 }, big: { dirs: 200, perDir: 100 } };
export const JSON_OUT = flag('--json');
export const TABLE_FROM = argv.includes('--table-from') ? argv[argv.indexOf('--table-from') + 1] : null;
