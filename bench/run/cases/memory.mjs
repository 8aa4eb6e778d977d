// Case 6: peak RSS of the hook processes of a big write, measured with GNU time.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, TMP } from '../env.mjs';
import { fail, nextToolUseId, payload } from '../hook-calls.mjs';
import { opts, PROCESS_TIMEOUT_MS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { info, results } from '../results.mjs';
import { bigText, fmtBytes } from '../texts.mjs';
import { stats } from '../timing.mjs';

export const measurePeakMemory = (mid) => {
  log(`case 6: peak RSS of a ${fmtBytes(SIZES.bigFile)} write`);
  const timeBin = '/usr/bin/time';
  const rssFile = join(TMP, 'rss.txt');
  const probe = existsSync(timeBin)
    ? spawnSync(timeBin, ['-f', '%M', '-o', rssFile, process.execPath, '-e', '0'], { env: baseEnv })
    : null;
  const usable =
    probe?.status === 0 &&
    existsSync(rssFile) &&
    /^\d+$/.test(readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '');
  if (!usable) {
    results.push({
      id: '6',
      name: `peak RSS of a ${fmtBytes(SIZES.bigFile)} write`,
      fettle: null,
      baseline: null,
      ratio: null,
      target: { op: 'MB<=', value: 100 },
      met: null,
      note: 'n/a: no GNU time at /usr/bin/time that supports -f (Debian package `time`)',
    });
  } else {
    /** max RSS in MB of one process run under GNU time (its own and its waited-for children's maximum). */
    const rss = (args, input, cwd) => {
      const r = spawnSync(timeBin, ['-f', '%M', '-o', rssFile, ...args], {
        cwd,
        env: baseEnv,
        input,
        maxBuffer: 256 * 1024 * 1024,
        timeout: PROCESS_TIMEOUT_MS,
      });
      const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
      return {
        mb: kb / 1024,
        code: r.status,
        stdout: r.stdout?.toString('utf8') ?? '',
        stderr: r.stderr?.toString('utf8') ?? '',
      };
    };
    const file = join(mid.repo, 'src', 'app', 'big.txt');
    if (!existsSync(file)) {
      writeFileSync(file, bigText(-1, 'none'));
    }
    const scenarios = {};
    const nodeRss = [];
    for (let i = 0; i < SIZES.memRuns; i++) {
      nodeRss.push(rss([process.execPath, '-e', '0'], '', mid.repo).mb);
      const sparse = rss(
        [process.execPath, CLI, 'hook'],
        payload(mid.repo, 'PreToolUse', file, bigText(100 + i, 'sparse'), nextToolUseId()),
        mid.repo,
      );
      const rewrite = rss(
        [process.execPath, CLI, 'hook'],
        payload(mid.repo, 'PreToolUse', file, bigText(100 + i, 'all'), nextToolUseId()),
        mid.repo,
      );
      // a new 5 MB file: direct, so PreToolUse, the write, then PostToolUse reads and stores it
      const fresh = join(mid.repo, 'src', 'app', `fresh-${i}.txt`);
      const content = bigText(200 + i, 'none');
      const id = nextToolUseId();
      const pre = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PreToolUse', fresh, content, id), mid.repo);
      writeFileSync(fresh, content);
      const post = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PostToolUse', fresh, content, id), mid.repo);
      for (const [name, r] of Object.entries({
        'PreToolUse, 1 % of lines changed (staged)': sparse,
        'PreToolUse, full rewrite (staged)': rewrite,
        'PreToolUse, new file (direct)': pre,
        'PostToolUse, new file (direct)': post,
      })) {
        if (r.code !== 0) fail(`RSS run ${name}`, r);
        (scenarios[name] ??= []).push(r.mb);
      }
    }
    const worst = Math.max(...Object.values(scenarios).flat());
    const worstName = Object.entries(scenarios).find(([, v]) => v.includes(worst))?.[0];
    const n = stats(nodeRss);
    results.push({
      id: '6',
      name: `peak RSS of a ${fmtBytes(SIZES.bigFile)} write (worst hook process)`,
      fettle: { median: worst, n: Object.values(scenarios).flat().length, unit: 'MB' },
      baseline: { median: n.median, n: n.n, unit: 'MB' },
      ratio: null,
      target: { op: 'MB<=', value: 100 },
      met: opts.quick ? null : worst <= 100,
      note: `worst: ${worstName}`,
    });
    for (const [name, v] of Object.entries(scenarios))
      info.push({ id: '6-rss', name: `peak RSS MB, ${name}`, ...stats(v), unit: 'MB' });
  }
};
