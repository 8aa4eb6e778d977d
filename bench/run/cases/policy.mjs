// Case 11: the hook's cost of a policy. The same direct and staged Writes in two repositories alike but for a
// 50-rule `.fettle/policy.json` (49 rules that do not match the written paths, with every kind of glob, and a last
// one that does, with the default thresholds, so the decision is the same on both sides). The hook reads and
// parses the file on every call (the cache keyed by file identity helps a long-lived process only), so this is
// the whole cost. Target: within 1 ms, as the median of the paired differences (with - without) of the hook
// process's own CPU time (user + system, read at its exit by a preloaded module: a policy costs CPU in the hook
// and starts no process, and CPU time is far steadier than wall time on a loaded machine), the two repos' calls
// alternating. Wall-clock medians are reported beside it.
// Case 11c: the same for a 100-rule format 2 policy (issue 30): conditions over the path, the tool, the content
// and the added lines, Bash command lines, and state conditions that hold up to the session's log (about 1,000
// entries, read once per call), so the hook evaluates every kind of condition on each write; within 1 ms too.
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

/**
 * 100 format 2 rules: 96 that miss a Write of src/app/*.txt (path globs, other tools, content and added-line
 * regexes that do not match, command rules, `run` rules whose command would leave a file if it ran), three whose path holds and whose state conditions are read and fail
 * (so the session's log is read), and a last that matches with the default thresholds.
 */
export const policyRulesV2 = () => {
  const rules = [];
  const shapes = [
    (i) => ({ path: `migrations/${i}/**`, action: 'stage' }),
    (i) => ({ path: 'src/**', added: `FORBIDDEN_${i}\\b`, action: 'block', message: `No FORBIDDEN_${i}.` }),
    (i) => ({ content: `^// generated-${i}$`, action: 'ignore' }),
    (i) => ({ tool: 'Bash', command: `\\bdeploy-${i}\\b`, action: 'block', message: `No deploy ${i}.` }),
    (i) => ({
      path: 'src/**',
      tool: ['Edit', 'MultiEdit'],
      added: `console\\.log\\(${i}\\)`,
      action: 'note',
      message: 'x',
    }),
    (i) => ({ path: `*.lock${i}`, action: 'direct' }),
    // `run` rules are checked after the decider too; one that does not match must cost no more than any rule
    (i) => ({ path: i % 2 ? `tools/${i}/**` : 'src/**', tool: 'NotebookEdit', action: 'run', run: `touch ran-${i}` }),
  ];
  for (let i = 0; rules.length < 96; i++) rules.push({ name: `rule-${i}`, ...shapes[i % shapes.length](i) });
  rules.push({
    name: 'spec-first',
    path: 'src/app/*.txt',
    notRead: 'docs/spec.md',
    action: 'block',
    message: 'Read it.',
  });
  rules.push({ name: 'tested', path: 'src/app/*.txt', ranSinceWrite: 'npm test', action: 'stage' });
  rules.push({
    name: 'linted',
    path: 'src/app/*.txt',
    notRanSinceWrite: 'npm run lint',
    action: 'ask',
    message: 'Lint.',
  });
  rules.push({ name: 'app', path: 'src/app/*.txt', action: 'thresholds', floor: 10, ceil: 80, ratio: 0.4 });
  return rules;
};

/** The bench session's state log: ~1,000 entries, docs/spec.md read early, `npm run lint` run after the last write. */
const stateLog = () => {
  const entries = [{ t: 'Read', p: 'docs/spec.md', at: 0 }];
  for (let i = 1; i < 999; i++)
    entries.push(
      i % 3 === 0
        ? { t: 'Bash', c: `grep -rn thing${i} src`, at: i }
        : i % 3 === 1
          ? { t: 'Read', p: `src/app/f${i}.txt`, at: i }
          : { t: 'Edit', p: `src/app/f${i}.txt`, w: 1, at: i },
    );
  entries.push({ t: 'Bash', c: 'npm run lint', at: 999 });
  return `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
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
  const v2 = buildRepo('repo-policy-v2', SIZES.small);
  mkdirSync(join(v2.repo, '.fettle'));
  writeFileSync(
    join(v2.repo, '.fettle', 'policy.json'),
    JSON.stringify({ version: 2, rules: policyRulesV2() }, null, 2),
  );
  const { env, cpu } = cpuEnv();
  // Each direct write is logged, so the log is written again before each call: the same ~1,000 entries each time.
  const v2Write = (r, i) => {
    mkdirSync(join(r.repo, '.git', 'fettle', 'state'), { recursive: true, mode: 0o700 });
    writeFileSync(join(r.repo, '.git', 'fettle', 'state', 'bench-session.jsonl'), stateLog(), { mode: 0o600 });
    return directWrite(r.repo, r.direct, directText(`c11c-${i}`), env).pre;
  };
  const cases = [
    ['11a', 'direct Write (Pre)', (r, i) => directWrite(r.repo, r.direct, directText(`c11-${i}`), env).pre, withPolicy],
    [
      '11b',
      'staged Write (Pre, denies)',
      (r, i) => stagedOk(r.repo, r.staged, stagedText(`c11-${i}`), env),
      withPolicy,
    ],
    ['11c', 'direct Write (Pre), state log read', v2Write, v2, '100-rule format 2 policy'],
  ];
  for (const [id, what, call, policyRepo, policy = '50-rule policy'] of cases) {
    log(`case ${id}: ${what}, ${policy} vs none`);
    const wall = [[], []];
    const [a, b] = alternate(RUNS, [
      (i) => {
        wall[0].push(call(policyRepo, i));
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
      name: `${what}, hook CPU time: ${policy} vs none; target on the median paired difference`,
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
  removeRepo(v2);
};
