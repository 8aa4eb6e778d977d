// Process timings: node start-up, imports and every snapshot variant, each in a fresh node, interleaved.
import { loadavg } from 'node:os';
import { runNode, script } from './child-scripts.mjs';
import { log } from './log.mjs';
import { RUNS } from './options.mjs';

export const VARIANTS = {
  iso: { label: 'isomorphic-git', args: (r, ref, p, tok) => [script('snapIso'), r, ref, p, tok] },
  sg: {
    label: 'simple-git .raw(), defaults',
    args: (r, ref, p, tok) => [script('snapSimpleGit'), r, ref, p, tok, 'default'],
  },
  sgNoExit: {
    label: 'simple-git .raw(), completion.onExit=false',
    args: (r, ref, p, tok) => [script('snapSimpleGit'), r, ref, p, tok, 'no-exit-wait'],
  },
  cp: { label: 'child_process, same 12 git calls', args: (r, ref, p, tok) => [script('snapCp'), r, ref, p, tok] },
  fettle: {
    label: "child_process, fettle's 6-call recipe",
    args: (r, ref, p, tok) => [script('snapFettleRecipe'), r, ref, p, tok],
  },
};

/** Case key -> samples of wall ms, CPU ms and peak RSS KB. */
export const measureProcesses = async (repos, imports) => {
  const samples = {};
  const add = (key, ms, result) => {
    const s = (samples[key] ??= { wall: [], cpu: [], rss: [] });
    s.wall.push(ms);
    if (result.cpuMs !== undefined) s.cpu.push(result.cpuMs);
    if (result.rssKB !== undefined) s.rss.push(result.rssKB);
  };
  const written = []; // {repo, variant, ref, commit, tree, blob, path, token}
  const loadedWith = {}; // import case -> 'require' or 'import'
  // warm-up and equivalence: every variant writes the same file; all must produce the same tree
  const equivalence = {};
  for (const [repo, fx] of Object.entries(repos)) {
    equivalence[repo] = {};
    for (const [v, spec] of Object.entries(VARIANTS)) {
      const path = `${fx.snapshotDir}/same-for-all.txt`;
      const ref = `refs/fettle/bench/${v}/warm`;
      const { result } = await runNode(spec.args(fx.path, ref, path, 'same'));
      equivalence[repo][v] = result.tree;
      written.push({ repo, variant: v, ref, path, token: 'same', ...result });
    }
  }
  await runNode(['-e', '0']);
  for (const p of Object.values(imports)) await runNode([script('importOnly'), p]);
  // measured rounds: each round runs every case once, in an order rotated by one per round
  const cases = [
    { key: 'floor', args: () => ['-e', '0'] },
    { key: 'empty', args: () => [script('emptyScript')] },
    ...Object.entries(imports).map(([name, p]) => ({ key: `import:${name}`, args: () => [script('importOnly'), p] })),
    ...Object.entries(repos).flatMap(([repo, fx]) =>
      Object.entries(VARIANTS).map(([v, spec]) => ({
        key: `snapshot:${repo}:${v}`,
        args: (round) =>
          spec.args(
            fx.path,
            `refs/fettle/bench/${v}/${round}`,
            `${fx.snapshotDir}/snap-${v}-${round}.txt`,
            `${v}-${round}`,
          ),
        record: (round, result) =>
          written.push({
            repo,
            variant: v,
            ref: `refs/fettle/bench/${v}/${round}`,
            path: `${fx.snapshotDir}/snap-${v}-${round}.txt`,
            token: `${v}-${round}`,
            ...result,
          }),
      })),
    ),
  ];
  for (let round = 0; round < RUNS; round++) {
    log(`round ${round + 1}/${RUNS} (load ${loadavg()[0].toFixed(2)})`);
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length];
      const { ms, result } = await runNode(c.args(round));
      add(c.key, ms, result);
      c.record?.(round, result);
      if (result.loaded) loadedWith[c.key.slice('import:'.length)] = result.loaded;
    }
  }
  return { samples, written, equivalence, loadedWith };
};
