// A `git` first on PATH that logs every call fettle makes, to count and check the git processes a step starts.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './repo';

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git']).toString().trim();

/** A `git` on PATH that logs its arguments, then runs the real git. */
export const loggingGit = (): { path: string; log: string; calls: () => string[][] } => {
  const dir = tempDir();
  const log = join(dir, 'calls.log');
  mkdirSync(join(dir, 'bin'));
  const script = join(dir, 'bin', 'git');
  writeFileSync(
    script,
    // One write per call: git processes fettle runs at once would interleave a write per argument.
    `#!/bin/sh\nus=$(printf '\\037')\nline=''\nfor a in "$@"; do line="$line$a$us"; done\nprintf '%s\\n' "$line" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  const calls = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\x1f').filter(Boolean))
      : [];
  return { path: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`, log, calls };
};

/** The git subcommand of a logged call (the first argument that is not a pinned -c option). */
export const subcommand = (args: string[]): string => args.find((a, i) => a !== '-c' && args[i - 1] !== '-c') ?? '';
