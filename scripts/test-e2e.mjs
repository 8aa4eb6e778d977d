// The real-client suite (test/e2e/): installs the pinned clients into a cache outside the repository when they
// are not there yet, checks each runs, then runs test/e2e/*.test.ts through scripts/test.mjs.
//
// Each client comes from the npm registry, at the version its client.json pins (docs/DEPENDENCIES.md says why):
//   Claude Code (@anthropic-ai/claude-code, test/e2e/client.json): the native binary of the platform package;
//   Codex CLI (@openai/codex, test/e2e/codex/client.json): the native binary of the platform package;
//   Gemini CLI (@google/gemini-cli, test/e2e/gemini/client.json): its bundle, run by this Node;
//   opencode (opencode-ai, test/e2e/opencode-client.json): the native binary of the platform package.
// The cache of each is its FETTLE_E2E_<NAME>_DIR (FETTLE_E2E_CLIENT_DIR for Claude Code), else
// $XDG_CACHE_HOME/fettle-e2e/<name>-<version> (~/.cache when unset). When a client cannot be installed or run,
// the suite fails saying why: CI must not pass empty. A developer without the network may set FETTLE_E2E_SKIP=1
// to skip it, which is refused under CI.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const fail = (why) => {
  console.error(`test:e2e: ${why}`);
  process.exit(1);
};

if (process.env.FETTLE_E2E_SKIP) {
  if (process.env.CI) fail('FETTLE_E2E_SKIP is set, but so is CI: CI always runs the real-client suite.');
  console.log(`test:e2e: skipped, because FETTLE_E2E_SKIP is set; the real-client suite did not run.`);
  process.exit(0);
}

const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
const platform = `${process.platform}-${process.arch}`;
const triple = process.arch === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';

const CLIENTS = [
  {
    title: 'Claude Code',
    pinFile: 'test/e2e/client.json',
    dirVariable: 'FETTLE_E2E_CLIENT_DIR',
    cacheName: 'claude-code',
    pathVariable: 'FETTLE_E2E_CLAUDE',
    program: (dir) => join(dir, 'node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude'),
    version: (program) => spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 30_000 }),
    says: (out, version) => out.startsWith(`${version} `),
  },
  {
    title: 'Codex CLI',
    pinFile: 'test/e2e/codex/client.json',
    dirVariable: 'FETTLE_E2E_CODEX_DIR',
    cacheName: 'codex',
    pathVariable: 'FETTLE_E2E_CODEX',
    program: (dir) => join(dir, 'node_modules', '@openai', `codex-${platform}`, 'vendor', triple, 'bin', 'codex'),
    version: (program) => spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 30_000 }),
    says: (out, version) => out.trim() === `codex-cli ${version}`,
  },
  {
    title: 'Gemini CLI',
    pinFile: 'test/e2e/gemini/client.json',
    dirVariable: 'FETTLE_E2E_GEMINI_DIR',
    cacheName: 'gemini-cli',
    pathVariable: 'FETTLE_E2E_GEMINI',
    program: (dir) => join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'),
    version: (program) =>
      spawnSync(process.execPath, [program, '--version'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, HOME: join(cache, 'fettle-e2e', 'gemini-version-home') },
      }),
    says: (out, version) => out.trim().split('\n').includes(version),
  },
  {
    title: 'opencode',
    pinFile: 'test/e2e/opencode-client.json',
    dirVariable: 'FETTLE_E2E_OPENCODE_DIR',
    cacheName: 'opencode',
    pathVariable: 'FETTLE_E2E_OPENCODE',
    program: (dir) => join(dir, 'node_modules', `opencode-${platform}`, 'bin', 'opencode'),
    version: (program) => spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 60_000 }),
    says: (out, version) => out.trim() === version,
  },
];

const env = { ...process.env };
for (const client of CLIENTS) {
  const pin = JSON.parse(readFileSync(client.pinFile, 'utf8'));
  const dir = process.env[client.dirVariable] || join(cache, 'fettle-e2e', `${client.cacheName}-${pin.version}`);
  const program = client.program(dir);
  if (!existsSync(program)) {
    console.log(`test:e2e: installing ${pin.package}@${pin.version} into ${dir}`);
    mkdirSync(dir, { recursive: true });
    // --ignore-scripts: the wrappers' postinstall steps only find or copy the platform binary, used where it is.
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
    if (npm.status !== 0 || !existsSync(program)) {
      const why = (npm.error?.message ?? `${npm.stderr}${npm.stdout}`).trim().split('\n').slice(-15).join('\n');
      fail(
        `could not install ${pin.package}@${pin.version} for ${platform} into ${dir}` +
          (npm.status === 0 ? `: npm finished but ${program} is missing (no native package for this platform?)` : '') +
          `\n${why}\nThe real-client suite needs the npm registry once; set ${client.dirVariable} to use another cache.`,
      );
    }
  }
  const version = client.version(program);
  if (!client.says(version.stdout ?? '', pin.version))
    fail(
      `${program} does not run as ${pin.package}@${pin.version}: ${version.error?.message ?? version.stdout + version.stderr}`,
    );
  console.log(`test:e2e: ${client.title} ${pin.version} at ${program}`);
  env[client.pathVariable] = program;
}

const requested = process.argv.slice(2);
const files = requested.length
  ? requested
  : readdirSync('test/e2e')
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test/e2e', f));
const run = spawnSync(process.execPath, ['scripts/test.mjs', ...files], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
