// Fixture repositories, generated in the temp dir.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, TMP } from './env.mjs';
import { opts, PROCESS_TIMEOUT_MS } from './options.mjs';
import { log } from './progress.mjs';
import { directText, stagedBase } from './texts.mjs';

const pad = (n, w) => String(n).padStart(w, '0');

/**
 * A committed, packed repository of exactly `n` tracked files: fillers in src/dNNNN/ (100 per directory)
 * and the two files the cases write, src/app/direct.txt and src/app/staged.txt.
 */
export const buildRepo = (name, n) => {
  const repo = join(TMP, name);
  const t = performance.now();
  mkdirSync(join(repo, 'src', 'app'), { recursive: true });
  const fillers = Math.max(0, n - 2);
  for (let i = 0; i < fillers; i++) {
    const d = join(repo, 'src', `d${pad(Math.floor(i / 100), 4)}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${pad(i, 6)}.txt`), `fixture file ${i}\n${'a line of fixture text\n'.repeat(5)}`);
  }
  writeFileSync(join(repo, 'src', 'app', 'direct.txt'), directText(0));
  writeFileSync(join(repo, 'src', 'app', 'staged.txt'), stagedBase());
  git(repo, ['init', '-q']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', `fixture: ${n} files`]);
  git(repo, ['repack', '-adq']);
  git(repo, ['prune-packed']);
  const count = Number(git(repo, ['ls-files', '-z']).split('\0').filter(Boolean).length);
  log(`built ${name}: ${count} files, committed and packed, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const buildMs = performance.now() - t;
  settle();
  return {
    repo,
    direct: join(repo, 'src', 'app', 'direct.txt'),
    staged: join(repo, 'src', 'app', 'staged.txt'),
    files: count,
    buildMs,
  };
};
/** Big repos go as soon as their case is done (disk space); --keep keeps them for a look. */
export const removeRepo = (r) => {
  if (opts.keep) return;
  rmSync(r.repo, { recursive: true, force: true });
  settle();
};

/**
 * Flushes dirty pages before timing: building a 100,000-file repo leaves hundreds of MB for the kernel to
 * write back, and an fsync made meanwhile can wait for it, which would charge the build to fettle.
 */
export function settle() {
  spawnSync('sync', [], { stdio: 'ignore', timeout: PROCESS_TIMEOUT_MS });
}
