// Case `page`: the review page (`fettle review --web`) on one staged change of 5,000 changed lines in 500 hunks
// of a 10,000-line file: the review's data answered (GET /api/review), the first hunk's lines painted in
// chromium (from navigation start, the data's fetch included), and a hunk decision's round trip (POST
// /api/draft). Timed by bench/run/page-client.mjs; without chromium the rows say n/a and why.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, git, TMP } from '../env.mjs';
import { fail } from '../hook-calls.mjs';
import { opts, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { info, results } from '../results.mjs';
import { stats, timed } from '../timing.mjs';

const CLIENT = new URL('../page-client.mjs', import.meta.url).pathname;
const CHROMIUM = process.env.FETTLE_CHROMIUM ?? '/usr/bin/chromium';
const TARGETS = { data: 300, firstHunk: 1000, draft: 50 };

/** A file of `hunks` blocks of 20 lines, and the same with 5 lines of each block rewritten: 10 changed lines each. */
const texts = (hunks) => {
  const base = [];
  const next = [];
  for (let b = 0; b < hunks; b++)
    for (let i = 0; i < 20; i++) {
      const line = `export const value${b}_${i} = compute(${b}, ${i}); // block ${b}`;
      base.push(line);
      next.push(i >= 8 && i < 13 ? `export const value${b}_${i} = computeFaster(${b}, ${i} * 2); // changed` : line);
    }
  return { base: `${base.join('\n')}\n`, next: `${next.join('\n')}\n` };
};

const row = (id, name, s, target) => ({
  id,
  name,
  fettle: s,
  baseline: null,
  ratio: null,
  target: { op: 'ms<=', value: target },
  met: opts.quick || !s ? null : s.median <= target,
  ...(s ? {} : { note: `n/a: no chromium at ${CHROMIUM}` }),
});

export const measurePage = () => {
  const hunks = SIZES.pageHunks;
  const name = `review page, one change of ${hunks * 10} changed lines in ${hunks} hunks`;
  const repo = join(TMP, 'repo-page');
  mkdirSync(repo, { recursive: true });
  const { base, next } = texts(hunks);
  writeFileSync(join(repo, 'big.ts'), base);
  git(repo, ['init', '-q']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', 'fixture: the page case']);
  const env = { ...baseEnv, FETTLE_SESSION: 'bench-page' };
  const staged = timed(process.execPath, [CLI, 'write', 'big.ts'], { cwd: repo, env, input: next });
  const id = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1];
  if (staged.code !== 3 || !id) fail('staging the page case change', staged);
  log(`case page: ${name}`);
  let out = null;
  if (existsSync(CHROMIUM)) {
    const job = {
      cli: CLI,
      repo,
      env,
      id,
      chromium: CHROMIUM,
      reviews: SIZES.pageRuns * 2,
      drafts: 30,
      loads: SIZES.pageRuns,
    };
    const r = timed(process.execPath, [CLIENT], { cwd: repo, input: JSON.stringify(job) });
    try {
      out = JSON.parse(r.stdout);
    } catch {
      fail('the page client', r);
    }
    if (out.failed) fail(`the page client: ${out.failed}`, r);
    if (out.hunks !== hunks) fail(`the page's data holds ${out.hunks} hunks, not ${hunks}`, r);
  }
  const ms = (xs) => (xs ? stats(xs) : null);
  results.push(row('page-data', `${name}: GET /api/review`, ms(out?.reviews), TARGETS.data));
  results.push(
    row(
      'page-paint',
      `${name}: first hunk painted in chromium`,
      ms(out?.loads.map((l) => l.firstHunk)),
      TARGETS.firstHunk,
    ),
  );
  results.push(row('page-draft', `${name}: a hunk decision, POST /api/draft`, ms(out?.drafts), TARGETS.draft));
  if (out)
    info.push({
      id: 'page-data-in',
      name: `${name}: the data parsed in the page (from navigation start)`,
      ...stats(out.loads.map((l) => l.data)),
    });
};
