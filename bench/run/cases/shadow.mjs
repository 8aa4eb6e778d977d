// Case 4: a shadow-repo snapshot (the peer's way) against fettle's direct Write in a big repo.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureEnv, TMP } from '../env.mjs';
import { buildRepo, removeRepo, settle } from '../fixtures.mjs';
import { directWrite, fail } from '../hook-calls.mjs';
import { opts, RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { directText } from '../texts.mjs';
import { alternate, stats, timed } from '../timing.mjs';

export const measureShadowSnapshot = () => {
  const repo = buildRepo('repo-shadow', SIZES.shadow);
  const shadowDir = join(TMP, 'shadow.git');
  const shadowEnv = { ...fixtureEnv, GIT_DIR: shadowDir, GIT_WORK_TREE: repo.repo };
  const sg = (args) => timed('git', ['-c', 'gc.auto=0', ...args], { cwd: repo.repo, env: shadowEnv });
  const init = sg(['init', '-q']);
  if (init.code !== 0) fail('shadow git init', init);
  const first = [sg(['add', '-A']), sg(['commit', '-q', '--no-verify', '-m', 'shadow: first snapshot'])];
  if (first.some((r) => r.code !== 0))
    fail(
      'shadow first snapshot',
      first.find((r) => r.code !== 0),
    );
  const firstMs = first[0].ms + first[1].ms;
  settle(); // the first snapshot wrote one loose object per file
  info.push({
    id: '4-first',
    name: `shadow repo: first whole-tree snapshot of ${repo.files} files (cold, once)`,
    median: firstMs,
    n: 1,
  });
  log(
    `case 4: shadow snapshot vs fettle direct Write in the ${repo.files}-file repo (first snapshot took ${firstMs.toFixed(0)} ms)`,
  );
  const touched = join(repo.repo, 'src', 'd0000', 'f000000.txt');
  const [fettle, shadow] = alternate(RUNS, [
    (i) => directWrite(repo.repo, repo.direct, directText(`c4-${i}`)).ms,
    (i) => {
      // the agent's write happened (untimed); the peer then snapshots the whole tree
      writeFileSync(touched, `fixture file 0\nshadow edit ${i}\n`);
      const add = sg(['add', '-A']);
      const commit = sg(['commit', '-q', '--no-verify', '-m', `shadow snapshot ${i}`]);
      if (add.code !== 0) fail('shadow git add -A', add);
      if (commit.code !== 0) fail('shadow git commit', commit);
      return add.ms + commit.ms;
    },
  ]);
  const s = stats(shadow);
  const f = stats(fettle);
  // here the baseline is the peer's way and the ratio is baseline ÷ fettle: how many times cheaper fettle is
  addCase({
    id: '4',
    name: `shadow snapshot (git add -A + commit) ÷ fettle direct Write, ${repo.files} files`,
    fettle: f,
    baseline: s,
    ratio: s.median / f.median,
    target: { op: '>=', value: 20 },
  });
  if (!opts.keep) rmSync(shadowDir, { recursive: true, force: true });
  removeRepo(repo);
};
