// Case 0 (information, no target): what a hook process costs before fettle does any work, and how many git
// processes each hook path spawns.
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { baseEnv, CLI, dirs, TMP } from '../env.mjs';
import { fail, hookOnce, ignoredPayload, nextToolUseId, payload, stagedWrite } from '../hook-calls.mjs';
import { RUNS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { info, notes, spawnCounts } from '../results.mjs';
import { bigText, directText, fmtBytes, stagedText } from '../texts.mjs';
import { alternate, bareNode, stats, timed } from '../timing.mjs';

export const measureStartup = (mid) => {
  log('case 0: start-up decomposition');
  const ignored = ignoredPayload(mid.repo);
  const [node, hookIgnored, gitSpawn] = alternate(RUNS, [
    () => bareNode(mid.repo),
    () => {
      const r = hookOnce(mid.repo, ignored);
      if (r.code !== 0) fail('hook with a non-Write payload', r);
      return r.ms;
    },
    () => timed('git', ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: mid.repo }).ms,
  ]);
  info.push({ id: '0a', name: 'bare `node -e 0`', ...stats(node) });
  info.push({ id: '0b', name: '`fettle hook` with a non-Write payload (bundle load, no git)', ...stats(hookIgnored) });
  info.push({
    id: '0c',
    name: 'one `git rev-parse --verify HEAD` spawned from node (1k-file repo)',
    ...stats(gitSpawn),
  });

  // git spawns per hook path, counted with a PATH shim that logs and execs the real git
  const realGit = (baseEnv.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, 'git'))
    .find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
  if (realGit) {
    const logFile = join(TMP, 'git-spawns.log');
    writeFileSync(
      join(dirs.shim, 'git'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> "$FETTLE_BENCH_GIT_LOG"\nexec '${realGit.replace(/'/g, `'\\''`)}' "$@"\n`,
    );
    chmodSync(join(dirs.shim, 'git'), 0o755);
    const shimEnv = {
      ...baseEnv,
      PATH: `${dirs.shim}${delimiter}${baseEnv.PATH ?? ''}`,
      FETTLE_BENCH_GIT_LOG: logFile,
    };
    const take = () => {
      const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
      writeFileSync(logFile, '');
      // drop the pinned `-c key=value` pairs and `--git-dir X`, keep the subcommand and its first flags
      return lines.map((l) =>
        l
          .replace(/(^| )-c \S+/g, '')
          .replace(/(^| )--git-dir \S+/g, '')
          .trim()
          .split(' ')
          .slice(0, 3)
          .join(' '),
      );
    };
    writeFileSync(logFile, '');
    const id = nextToolUseId();
    const content = directText(`spawn-${id}`);
    const pre = hookOnce(mid.repo, payload(mid.repo, 'PreToolUse', mid.direct, content, id), shimEnv);
    if (pre.code !== 0 || pre.denied) fail('direct PreToolUse (spawn count)', pre);
    spawnCounts['direct PreToolUse'] = take();
    writeFileSync(mid.direct, content);
    const post = hookOnce(mid.repo, payload(mid.repo, 'PostToolUse', mid.direct, content, id), shimEnv);
    if (post.code !== 0) fail('direct PostToolUse (spawn count)', post);
    spawnCounts['direct PostToolUse'] = take();
    const st = stagedWrite(mid.repo, mid.staged, stagedText('spawn'), shimEnv);
    if (!st.denied) fail('staged PreToolUse (spawn count)', st);
    spawnCounts['staged PreToolUse'] = take();
    hookOnce(mid.repo, ignored, shimEnv);
    spawnCounts['non-Write payload'] = take();
    const status = timed(process.execPath, [CLI, 'status'], { cwd: mid.repo, env: shimEnv });
    if (status.code !== 0) fail('fettle status (spawn count)', status);
    spawnCounts['fettle status'] = take();
    // the 5 MB 1 % change goes through the same path plus, when jsdiff gives up, git's diff
    const big = join(mid.repo, 'src', 'app', 'big-spawn.txt');
    writeFileSync(big, bigText(-1, 'none'));
    const bigRun = stagedWrite(mid.repo, big, bigText(0, 'sparse'), shimEnv);
    spawnCounts[`staged PreToolUse, ${fmtBytes(SIZES.bigFile)} file, 1 % of lines changed`] = take();
    if (!bigRun.denied)
      notes.push(`spawn count of the ${fmtBytes(SIZES.bigFile)} write: the hook did not deny (exit ${bigRun.code})`);
    rmSync(big, { force: true });
    for (const [path, list] of Object.entries(spawnCounts))
      log(`  git spawns, ${path}: ${list.length} (${list.map((l) => l.split(' ')[0]).join(', ')})`);
  } else {
    notes.push('git spawn counts: git not found on PATH');
  }
};
