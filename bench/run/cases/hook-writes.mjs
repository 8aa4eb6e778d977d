// Cases 1-3: a direct and a staged Write against bare node, and both again in a big repo against a small one.
import { blockingDirect, blockingLabel, directWrite, stagedOk } from '../hook-calls.mjs';
import { BASE_CLI, baseEnv } from '../env.mjs';
import { buildRepo, removeRepo } from '../fixtures.mjs';
import { RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info } from '../results.mjs';
import { directText, stagedText } from '../texts.mjs';
import { alternate, bareNode, stats } from '../timing.mjs';

export const measureDirectWrite = (mid) => {
  log(`case 1: direct Write in the ${mid.files}-file repo vs bare node`);
  const pre = [];
  const post = [];
  // With --baseline-dist, the other build's direct Write alternates with this one's, in the same repository.
  const older = BASE_CLI
    ? [(i) => directWrite(mid.repo, mid.direct, directText(`c1-base-${i}`), baseEnv, BASE_CLI).ms]
    : [];
  const [fettle, node, base] = alternate(RUNS, [
    (i) => {
      const r = directWrite(mid.repo, mid.direct, directText(`c1-${i}`));
      if (i >= 0) {
        pre.push(r.pre);
        post.push(r.post);
      }
      return r.ms;
    },
    () => bareNode(mid.repo),
    ...older,
  ]);
  if (base) {
    addCase({
      id: '1b',
      name: `direct Write (${blockingLabel}), this build ÷ the build in --baseline-dist, ${mid.files} files`,
      fettle: stats(fettle),
      baseline: stats(base),
      ratio: stats(fettle).median / stats(base).median,
      target: { op: '<=', value: 1 },
    });
  }
  const f = stats(fettle);
  const b = stats(node);
  addCase({
    id: '1',
    name: `direct Write (${blockingLabel}), ${mid.files} files ÷ node -e 0`,
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 1.35 },
  });
  info.push({ id: '1-pre', name: 'case 1: PreToolUse alone', ...stats(pre) });
  info.push({ id: '1-post', name: 'case 1: PostToolUse alone', ...stats(post) });
  info.push({
    id: '1-per-process',
    name: `case 1 ÷ ${blockingDirect} × node -e 0 (per blocking process)`,
    ratio: f.median / (blockingDirect * b.median),
  });
};

export const measureStagedWrite = (mid) => {
  log(`case 2: staged Write in the ${mid.files}-file repo vs bare node`);
  const [fettle, node] = alternate(RUNS, [
    (i) => stagedOk(mid.repo, mid.staged, stagedText(`c2-${i}`)),
    () => bareNode(mid.repo),
  ]);
  const f = stats(fettle);
  const b = stats(node);
  addCase({
    id: '2',
    name: `staged Write (Pre, denies), ${mid.files} files ÷ node -e 0`,
    fettle: f,
    baseline: b,
    ratio: f.median / b.median,
    target: { op: '<=', value: 1.8 },
  });
};

/** Cases 1 and 2 in a big repo ÷ a small repo. */
export const measureRepoSize = () => {
  log(`case 3: building ${SIZES.big}- and ${SIZES.small}-file repos`);
  const big = buildRepo('repo-big', SIZES.big);
  const small = buildRepo('repo-small', SIZES.small);
  info.push({
    id: '3-build',
    name: `build of the ${big.files}-file repo (write, add, commit, repack)`,
    median: big.buildMs,
    n: 1,
  });
  log('case 3a: direct Write, big vs small');
  const [bd, sd] = alternate(RUNS, [
    (i) => directWrite(big.repo, big.direct, directText(`c3b-${i}`)).ms,
    (i) => directWrite(small.repo, small.direct, directText(`c3s-${i}`)).ms,
  ]);
  const fb = stats(bd);
  const fs = stats(sd);
  addCase({
    id: '3a',
    name: `direct Write (${blockingLabel}), ${big.files} files ÷ ${small.files} files`,
    fettle: fb,
    baseline: fs,
    ratio: fb.median / fs.median,
    target: { op: '<=', value: 1.1 },
  });
  log('case 3b: staged Write, big vs small');
  const [bs, ss] = alternate(RUNS, [
    (i) => stagedOk(big.repo, big.staged, stagedText(`c3b-${i}`)),
    (i) => stagedOk(small.repo, small.staged, stagedText(`c3s-${i}`)),
  ]);
  const gb = stats(bs);
  const gs = stats(ss);
  addCase({
    id: '3b',
    name: `staged Write, ${big.files} files ÷ ${small.files} files`,
    fettle: gb,
    baseline: gs,
    ratio: gb.median / gs.median,
    target: { op: '<=', value: 1.1 },
  });
  removeRepo(big);
  removeRepo(small);
};
