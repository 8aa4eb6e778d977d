// The real-client suite (test/e2e/): installs the pinned Claude Code client into a cache outside the repository
// when it is not there yet, checks it runs, then runs test/e2e/*.test.ts through scripts/test.mjs.
//
// The client comes from the npm registry (@anthropic-ai/claude-code, version in test/e2e/client.json); its
// program is the native binary of the platform package, so Node's version does not matter to it. The cache is
// FETTLE_E2E_CLIENT_DIR, else $XDG_CACHE_HOME/fettle-e2e/claude-code-<version> (~/.cache when unset).
// When the client cannot be installed or run, the suite fails saying why: CI must not pass empty. A developer
// without the network may set FETTLE_E2E_SKIP=1 to skip it, which is refused under CI.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const pin = JSON.parse(readFileSync('test/e2e/client.json', 'utf8'));
const fail = (why) => {
  console.error(`test:e2e: ${why}`);
  process.exit(1);
};

if (process.env.FETTLE_E2E_SKIP) {
  if (process.env.CI) fail('FETTLE_E2E_SKIP is set, but so is CI: CI always runs the real-client suite.');
  console.log(`test:e2e: skipped, because FETTLE_E2E_SKIP is set; the real-client suite did not run.`);
  process.exit(0);
}

const dir =
  process.env.FETTLE_E2E_CLIENT_DIR ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'fettle-e2e', `claude-code-${pin.version}`);
const platform = `${process.platform}-${process.arch}`;
const binary = join(dir, 'node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude');

if (!existsSync(binary)) {
  console.log(`test:e2e: installing ${pin.package}@${pin.version} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  // --ignore-scripts: the wrapper's postinstall only copies the platform binary, which is used where it is.
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--engine-strict=false',
      `${pin.package}@${pin.version}`,
    ],
    { encoding: 'utf8' },
  );
  if (npm.status !== 0 || !existsSync(binary)) {
    const why = (npm.error?.message ?? `${npm.stderr}${npm.stdout}`).trim().split('\n').slice(-15).join('\n');
    fail(
      `could not install ${pin.package}@${pin.version} for ${platform} into ${dir}` +
        (npm.status === 0 ? `: npm finished but ${binary} is missing (no native package for this platform?)` : '') +
        `\n${why}\nThe real-client suite needs the npm registry once; set FETTLE_E2E_CLIENT_DIR to use another cache.`,
    );
  }
}

const version = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
if (!version.stdout?.startsWith(`${pin.version} `))
  fail(
    `${binary} does not run as ${pin.package}@${pin.version}: ${version.error?.message ?? version.stdout + version.stderr}`,
  );
console.log(`test:e2e: Claude Code ${version.stdout.trim()} at ${binary}`);

const requested = process.argv.slice(2);
const files = requested.length
  ? requested
  : readdirSync('test/e2e')
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test/e2e', f));
const run = spawnSync(process.execPath, ['scripts/test.mjs', ...files], {
  stdio: 'inherit',
  env: { ...process.env, FETTLE_E2E_CLAUDE: binary },
});
process.exit(run.status ?? 1);
