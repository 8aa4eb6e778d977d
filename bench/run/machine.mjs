// What the numbers were measured on and with: the machine, git, node, and the bundle under test.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { cleanup, CLI, git, TMP } from './env.mjs';
import { DIST, ROOT } from './options.mjs';

export const describeMachine = () => {
  const gitVersion = git(TMP, ['--version']).trim();
  return {
    node: process.version,
    git: gitVersion.replace(/^git version /, ''),
    cpus: typeof availableParallelism === 'function' ? availableParallelism() : cpus().length,
    cpuModel: cpus()[0]?.model?.trim() ?? 'unknown',
    os: `${platform()} ${release()}`,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    /** 1-minute load average at the start and the end: other work on the machine skews every number */
    loadAverage: { start: Math.round(loadavg()[0] * 100) / 100, end: null },
  };
};

export const recordEndLoad = (machine) => {
  machine.loadAverage.end = Math.round(loadavg()[0] * 100) / 100;
};

export const requireBuiltCli = () => {
  if (!existsSync(CLI)) {
    process.stderr.write(`dist/cli.js not found in ${DIST}; run \`npm run build\` first (\`npm run bench\` does).\n`);
    cleanup();
    process.exit(1);
  }
};

/** What was measured: the bundles' sizes and a hash of them all, and the source commit they were built from. */
export const describeBuild = () => {
  const names = readdirSync(dirname(CLI))
    .filter((f) => f.endsWith('.js'))
    .sort();
  const hash = createHash('sha256');
  const sizes = names.map((f) => {
    const bytes = readFileSync(join(dirname(CLI), f));
    hash.update(bytes);
    return `${f} ${bytes.length}`;
  });
  const out = { bundles: sizes.join(', '), sha256: hash.digest('hex').slice(0, 16) };
  try {
    out.commit = git(ROOT, ['rev-parse', '--short', 'HEAD']).trim();
    out.uncommittedChanges =
      git(ROOT, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no', '--', 'src']).trim() !== '';
  } catch {
    // not a git checkout: leave it out
  }
  return out;
};
