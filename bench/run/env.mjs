// The isolated environment: one temp dir holding a private copy of dist/, HOME, XDG dirs and TMPDIR;
// removed at the end unless --keep.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, opts } from './options.mjs';

export const TMP = mkdtempSync(join(tmpdir(), 'fettle-bench-'));
// The bench runs a private copy of dist/, so a rebuild during the run cannot change or break what is measured.
export const CLI = join(TMP, 'dist', 'cli.js');
if (existsSync(join(DIST, 'cli.js'))) cpSync(DIST, join(TMP, 'dist'), { recursive: true });
/** --baseline-dist: another build's dist/, also copied, for case 1 old against new in the same run. */
export const BASE_CLI = opts.baselineDist ? join(TMP, 'base-dist', 'cli.js') : null;
if (opts.baselineDist) cpSync(opts.baselineDist, join(TMP, 'base-dist'), { recursive: true });
export const dirs = {
  home: join(TMP, 'home'),
  data: join(TMP, 'xdg-data'),
  config: join(TMP, 'xdg-config'),
  cache: join(TMP, 'xdg-cache'),
  state: join(TMP, 'xdg-state'),
  tmp: join(TMP, 'tmp'),
  shim: join(TMP, 'shim'),
};
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });

let cleaned = false;
export const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  if (opts.keep) process.stderr.write(`[bench] kept ${TMP}\n`);
  else rmSync(TMP, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

/** The environment of every process: the caller's, minus git/fettle/node settings, with private dirs. */
export const baseEnv = (() => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k.startsWith('GIT_') ||
      k.startsWith('FETTLE_') ||
      k.startsWith('XDG_') ||
      k.startsWith('CLAUDE')
    )
      continue;
    // NODE_EXTRA_CA_CERTS makes every node start parse a certificate bundle (tens of ms), which is neither
    // fettle's cost nor the baseline's: it would only dilute the ratios.
    if (k === 'NODE_EXTRA_CA_CERTS' && !opts.keepCaCerts) continue;
    if (k === 'NODE_OPTIONS' || k === 'NODE_PATH' || k === 'TMPDIR' || k === 'HOME') continue;
    env[k] = v;
  }
  return {
    ...env,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_CONFIG_HOME: dirs.config,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    TMPDIR: dirs.tmp,
    GIT_CONFIG_NOSYSTEM: '1',
    // Each case says which path it times: the command hook in process, unless the case starts a server itself.
    FETTLE_SERVE_AUTOSTART: '0',
  };
})();

/** For building fixtures: a fixed identity, no auto gc. */
export const fixtureEnv = {
  ...baseEnv,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};
export const git = (cwd, args, extra = {}) =>
  execFileSync('git', ['-c', 'gc.auto=0', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: extra.env ?? fixtureEnv,
    input: extra.input,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  }).toString('utf8');
