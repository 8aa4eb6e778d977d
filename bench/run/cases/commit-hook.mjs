// Case `commit`: what fettle's git hooks (`fettle install --git-hooks`) add to a person's `git commit`. Two twin
// repositories get the same agent Write before each commit; one has the hooks, whose post-commit notes the agent's
// lines on refs/notes/fettle. The cost is the difference of the medians of `git commit` (goal: at most 50 ms); a
// second row puts it against a `node -e 0` timed in the same alternation, so it reads against a process start.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, git } from '../env.mjs';
import { buildRepo, removeRepo } from '../fixtures.mjs';
import { directWrite, fail } from '../hook-calls.mjs';
import { RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { addCase, info, results } from '../results.mjs';
import { directText } from '../texts.mjs';
import { alternate, bareNode, stats, timed } from '../timing.mjs';

/** The person committing: who they are is their own config's, here the environment's. */
const person = {
  ...baseEnv,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

const pending = (repo) => {
  try {
    return readdirSync(join(repo, '.git', 'fettle', 'notes-pending')).length;
  } catch {
    return 0;
  }
};

/**
 * Until the detached half of post-commit has written the note (untimed for the commit, so its work never overlaps
 * the next timed command): the ms from the commit's start until then.
 */
const noted = (repo, started) => {
  const deadline = Date.now() + 60_000;
  while (pending(repo) > 0) {
    if (Date.now() > deadline)
      fail('the note of a commit still pending after 60 s', { code: 0, stdout: '', stderr: '' });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
  return performance.now() - started;
};

const untilNoted = [];
const commitAfterWrite = (r, i) => {
  directWrite(r.repo, r.direct, directText(`commit-${i}`));
  const started = performance.now();
  const c = timed('git', ['commit', '-q', '-a', '-m', `bench ${i}`], { cwd: r.repo, env: person });
  if (c.code !== 0) fail('git commit', c);
  const ms = noted(r.repo, started);
  if (r.hooked && i >= 0) untilNoted.push(ms);
  return c.ms;
};

export const measureCommitHook = () => {
  const hooked = { ...buildRepo('repo-commit-hooks', SIZES.files), hooked: true };
  const plain = buildRepo('repo-commit-plain', SIZES.files);
  const installed = timed(process.execPath, [CLI, 'install', '--git-hooks'], { cwd: hooked.repo });
  if (installed.code !== 0) fail('fettle install --git-hooks', installed);
  log(`case commit: git commit after an agent Write, with fettle's git hooks vs without (${SIZES.files} files)`);
  const [withHooks, without, node] = alternate(RUNS, [
    (i) => commitAfterWrite(hooked, i),
    (i) => commitAfterWrite(plain, i),
    () => bareNode(plain.repo),
  ]);
  const notes = git(hooked.repo, ['notes', '--ref=fettle', 'list']).split('\n').filter(Boolean).length;
  if (notes < RUNS) fail(`the hooks noted ${notes} of ${RUNS} commits`, { code: 0, stdout: '', stderr: '' });
  const f = stats(withHooks);
  const b = stats(without);
  addCase({
    id: 'commit',
    name: 'git commit after an agent Write: ms the git hooks add (median with − median without)',
    fettle: f,
    baseline: b,
    ratio: f.median - b.median,
    target: { op: '<=', value: 50 },
  });
  const n = stats(node);
  // Against a process start, for a reader on another machine: no target of its own.
  results.push({
    id: 'commit-node',
    name: 'the same ms the git hooks add, ÷ median `node -e 0` timed in the same alternation',
    fettle: { ...f, median: f.median - b.median },
    baseline: n,
    ratio: (f.median - b.median) / n.median,
    target: { op: '<=', value: null },
    met: null,
  });
  info.push({
    id: 'commit-noted',
    name: 'with the hooks: ms from the start of `git commit` until its note is written (the detached half)',
    ...stats(untilNoted),
  });
  removeRepo(hooked);
  removeRepo(plain);
};
