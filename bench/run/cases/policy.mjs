// Case 11: the hook's cost of a policy. The same direct and staged Writes in two repositories alike but for a
// 50-rule `.fettle/policy.json` (49 rules that do not match the written paths, with every kind of glob, and a last
// one that does, with the default thresholds, so the decision is the same on both sides). The hook reads and
// parses the file on every call (the cache keyed by file identity helps a long-lived process only), so this is
// the whole cost. Target: within 1 ms, as the median of the paired differences (with - without) of the hook
// process's own CPU time (user + system, read at its exit by a preloaded module: a policy costs CPU in the hook
// and starts no process, and CPU time is far steadier than wall time on a loaded machine), the two repos' calls
// alternating. Wall-clock medians are reported beside it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { directWrite, stagedOk } from '../hook-calls.mjs';
import { buildRepo, removeRepo } from '../fixtures.mjs';
import { opts, RUNS, SIZES } from '../options.mjs';
import { baseEnv, TMP } from '../env.mjs';
import { log } from '../progress.mjs';
import { info, results } from '../results.mjs';
import { directText, stagedText } from '../texts.mjs';
import { alternate, stats } from '../timing.mjs';

const LIMIT_MS = 1;

const ACTIONS = ['stage', 'direct', 'ignore', 'block', 'thresholds'];
const GLOBS = (n) => [`migrations/${n}/**`, `*.lock${n}`, `/gen/v${n}/*.js`, `docs/**/draft-${n}?.md`, `.env.${n}*`];

/** 50 rules: 49 that miss src/app/*.txt, then one that matches it and keeps the default thresholds. */
export const policyRules = () => {
  const rules = [];
  for (let i = 0; rules.length < 49; i++) {
    const action = ACTIONS[i % ACTIONS.length];
    const rule = { name: `rule-${i}`, path: GLOBS(i)[i % 5], action };
    if (action === 'block') rule.message = `Rule ${i} keeps agents out of this path.`;
    if (action === 'thresholds') Object.assign(rule, { floor: 20, ceil: 200, ratio: 0.5 });
    rules.push(rule);
  }
  rules.push({ name: 'app', path: 'src/app/*.txt', action: 'thresholds', floor: 10, ceil: 80, ratio: 0.4 });
  return rules;
};

const paired = (a, b) => stats(a.map((x, i) => x - b[i]));

/** An environment whose node processes write their own CPU time (ms) to a file as they exit. */
const cpuEnv = () => {
  const preload = join(TMP, 'cpu-at-exit.cjs');
  const out = join(TMP, 'cpu-at-exit.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(out)}, String((u.user + u.system) / 1000)); });\n`,
  );
  return { env: { ...baseEnv, NODE_OPTIONS: `--require ${preload}` }, cpu: () => Number(readFileSync(out, 'utf8')) };
};

export const measurePolicy = () => {
  log(`case 11: building two ${SIZES.small}-file repos, one with a 50-rule .fettle/policy.json`);
  const withPolicy = buildRepo('repo-policy', SIZES.small);
  const without = buildRepo('repo-no-policy', SIZES.small);
  mkdirSync(join(withPolicy.repo, '.fettle'));
  writeFileSync(
    join(withPolicy.repo, '.fettle', 'policy.json'),
    JSON.stringify({ version: 1, rules: policyRules() }, null, 2),
  );
  const { env, cpu } = cpuEnv();
  const cases = [
    ['11a', 'direct Write (Pre)', (r, i) => directWrite(r.repo, r.direct, directText(`c11-${i}`), env).pre],
    ['11b', 'staged Write (Pre, denies)', (r, i) => stagedOk(r.repo, r.staged, stagedText(`c11-${i}`), env)],
  ];
  for (const [id, what, call] of cases) {
    log(`case ${id}: ${what}, 50-rule policy vs none`);
    const wall = [[], []];
    const [a, b] = alternate(RUNS, [
      (i) => {
        wall[0].push(call(withPolicy, i));
        return cpu();
      },
      (i) => {
        wall[1].push(call(without, i));
        return cpu();
      },
    ]);
    const diff = paired(a, b);
    results.push({
      id,
      name: `${what}, hook CPU time: 50-rule policy vs none; target on the median paired difference`,
      fettle: stats(a),
      baseline: stats(b),
      ratio: stats(a).median / stats(b).median,
      target: { op: 'ms<=', value: LIMIT_MS },
      met: opts.quick ? null : diff.median <= LIMIT_MS,
      note: `difference ${diff.median.toFixed(2)} ms`,
    });
    info.push({ id: `${id}-diff`, name: `case ${id}: CPU time, paired difference (policy - none)`, ...diff });
    const [wa, wb] = wall.map((w) => stats(w.slice(-RUNS)));
    info.push({ id: `${id}-wall`, name: `case ${id}: wall time with the policy`, ...wa });
    info.push({ id: `${id}-wall-none`, name: `case ${id}: wall time without`, ...wb });
  }
  removeRepo(withPolicy);
  removeRepo(without);
};
