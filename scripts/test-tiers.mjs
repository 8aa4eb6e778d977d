// Which tier a test file is in. A file whose header (its first 15 lines) has a line `// Tier: slow, <why>` is in
// the slow tier: `npm run test:slow` runs it, and CI runs it after `npm test`, which runs every other file. A file
// goes there when it is a loop over many processes that proves one property many times (every failpoint killed,
// every suite over HTTP as well, thousands of fuzzed inputs), never to hide a failure: both tiers must pass.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const TIERS = ['fast', 'slow', 'all'];

const TAG = /^\/\/ Tier: slow, \S/m;

/** Every test file under `dir`; test/e2e/ drives the real clients and runs only through `npm run test:e2e`. */
export const findTests = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === join('test', 'e2e')) return [];
    return statSync(path).isDirectory() ? findTests(path) : name.endsWith('.test.ts') ? [path] : [];
  });

export const tierOf = (file) => {
  const head = readFileSync(file, 'utf8').split('\n', 15).join('\n');
  return TAG.test(head) ? 'slow' : 'fast';
};

export const inTier = (files, tier) => (tier === 'all' ? files : files.filter((f) => tierOf(f) === tier));
