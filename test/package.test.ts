// The package as a new user gets it: `npm pack` holds exactly what an install needs, and the tarball (or a clone,
// `npm install -g .`) installed into an empty npm prefix, with HOME in a temp dir and no `fettle` on PATH before,
// runs `fettle demo` and `fettle install` as the README prints them. The bundles in dist/ hold every library
// fettle uses, so installing needs no registry: npm runs here with --offline.
// Tier: slow, packs and installs the package (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { writePayload } from './helpers/cli';
import { baseEnv, makeRepo, PATH_WITHOUT_FETTLE, tempDir } from './helpers/repo';

const ROOT = join(__dirname, '..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * What the package must hold, and nothing else: the program, the plugin's files, the published schemas (policy
 * and contract files name them), the manifest, README, LICENSE.
 */
const PACKED = [
  '.claude-plugin/plugin.json',
  'LICENSE',
  'README.md',
  'bin/fettle',
  'dist/LICENSES.txt',
  'dist/agents.js',
  'dist/cli.js',
  'dist/commands.js',
  'dist/glance.js',
  'dist/hook.js',
  'dist/mcp.js',
  'dist/page/favicon.svg',
  'dist/page/highlight.js',
  'dist/page/index.html',
  'dist/page/page.css',
  'dist/page/page.js',
  'dist/serve.js',
  'dist/web.js',
  'dist/xdg-open',
  'hooks/hooks.json',
  'package.json',
  'plugins/opencode/fettle.mjs',
  'schema/contract.v1.json',
  'schema/policy.v1.json',
  'schema/policy.v2.json',
];

/** npm with every file it writes in `home` (cache, logs, global prefix), never the developer's; its stdout. */
const npm = (home: string, args: string[], cwd = ROOT) => npmRun(home, args, cwd).stdout;

const npmRun = (home: string, args: string[], cwd = ROOT) => {
  const env = {
    ...baseEnv(home),
    npm_config_cache: join(home, '.npm-cache'),
    npm_config_prefix: join(home, 'prefix'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  const r = spawnSync('npm', args, { cwd, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `npm ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r;
};

/**
 * Scripts npm runs when it installs a package (prepare: from a folder, a tarball or git), which npm 11 lists as not
 * covered by allowScripts and npm 12 blocks. The package ships dist/ built, so installing it runs none.
 */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
const quietInstall = (stderr: string): void => {
  assert.doesNotMatch(stderr, /install-scripts|allowScripts/, 'npm has no install script of fettle to warn about');
};

/** A shell of a new user: HOME in a temp dir, PATH with the npm prefix's bin first and no other fettle. */
const userShell = (home: string) => {
  const env = { ...baseEnv(home), PATH: [join(home, 'prefix', 'bin'), PATH_WITHOUT_FETTLE].join(delimiter) };
  return (line: string, cwd = home, input = '') => spawnSync('sh', ['-c', line], { cwd, env, input, encoding: 'utf8' });
};

test('npm pack holds exactly the program, the plugin files, the schemas, README and LICENSE; its launchers are executable', () => {
  const home = tempDir();
  const [packed] = JSON.parse(npm(home, ['pack', '--dry-run', '--json', '--ignore-scripts'])) as {
    files: { path: string; mode: number }[];
  }[];
  const files = packed?.files ?? [];
  assert.deepEqual(files.map((f) => f.path).sort(), PACKED);
  // dist/xdg-open: the review page opens the browser with it (the `open` package ships it beside itself)
  for (const launcher of ['bin/fettle', 'dist/cli.js', 'dist/xdg-open'])
    assert.equal((files.find((f) => f.path === launcher)?.mode ?? 0) & 0o111, 0o111, `${launcher} is executable`);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(manifest.dependencies, undefined, 'dist/ bundles every library: an install fetches nothing');
});

/** The demo and the install, each as the README prints it, in a new user's shell. */
const demoAndInstall = (home: string, installed: string) => {
  const sh = userShell(home);
  assert.equal(sh('command -v fettle').stdout.trim(), join(home, 'prefix', 'bin', 'fettle'));
  const demo = sh('fettle demo');
  assert.equal(demo.status, 0, demo.stdout + demo.stderr);
  assert.match(
    demo.stdout,
    /^  fettle recorded notes\.txt \(261 B, 16 lines, \+1 -1 ~1\) as ([0-9a-z]{8}); undo with: fettle rollback \1$/m,
  );
  assert.match(demo.stdout, /^  To apply it, run: fettle confirm [0-9a-z]{8}$/m, 'fettle is on PATH: printed plain');
  assert.match(demo.stdout, /Applied [0-9a-z]{8} to notes\.txt/);

  const install = sh('fettle install');
  assert.equal(install.status, 0, install.stdout + install.stderr);
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  const command: string = settings.hooks.PreToolUse[0].hooks[0].command;
  assert.ok(command.includes(realpathSync(join(installed, 'dist', 'cli.js'))), command);

  // The hook command as Claude Code runs it (sh -c, JSON on stdin) records a write in a project.
  const repo = makeRepo({ 'a.txt': 'one\n' });
  const call = { file: repo.path('a.txt'), content: 'two\n', cwd: repo.dir };
  const pre = sh(command, repo.dir, JSON.stringify(writePayload({ ...call, event: 'PreToolUse' })));
  assert.equal(pre.status, 0, pre.stderr);
  writeFileSync(call.file, call.content);
  const post = sh(command, repo.dir, JSON.stringify(writePayload({ ...call, event: 'PostToolUse' })));
  assert.equal(post.status, 0, post.stderr);
  const note = JSON.parse(post.stdout).hookSpecificOutput.additionalContext as string;
  const undo = /undo with: (.+)$/.exec(note)?.[1] ?? assert.fail(note);
  assert.match(undo, /^fettle rollback [0-9a-z]{8}$/);
  const rolled = sh(undo, repo.dir);
  assert.equal(rolled.status, 0, rolled.stderr);
  assert.equal(readFileSync(call.file, 'utf8'), 'one\n');
};

test('the packed tarball, installed with npm install -g into an empty prefix, runs the demo and installs the hooks', () => {
  const home = tempDir();
  mkdirSync(join(home, 'packs'));
  npm(home, ['pack', '--ignore-scripts', '--pack-destination', join(home, 'packs')]);
  const tarball = join(home, 'packs', `${PACKAGE.name}-${PACKAGE.version}.tgz`);
  assert.ok(existsSync(tarball), tarball);
  quietInstall(npmRun(home, ['install', '--global', '--offline', tarball], home).stderr);
  const installed = join(home, 'prefix', 'lib', 'node_modules', PACKAGE.name);
  assert.ok(statSync(join(installed, 'bin', 'fettle')).mode & 0o100, 'the plugin launcher stays executable');
  demoAndInstall(home, installed);
});

test('a clone installed with npm install -g . runs the demo and installs the hooks', () => {
  const home = tempDir();
  // No install script runs: dist/ is built by `npm run build` (the README's step before this one).
  quietInstall(npmRun(home, ['install', '--global', '--offline', '.']).stderr);
  demoAndInstall(home, ROOT);
});

test('installing fettle runs no script of its own: `npm pack` builds dist/, a clone builds it with npm run build', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.deepEqual(
    INSTALL_SCRIPTS.filter((s) => s in scripts),
    [],
  );
  assert.equal(scripts.prepack, 'node scripts/build.mjs', 'the tarball carries a fresh dist/');
  assert.equal(scripts.build, 'node scripts/build.mjs');
});

test('the plugin launcher runs this fettle, and says how to build it when dist/ is missing', () => {
  const r = spawnSync(join(ROOT, 'bin', 'fettle'), ['--version'], { encoding: 'utf8', env: baseEnv(tempDir()) });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), PACKAGE.version);
  const copy = tempDir();
  mkdirSync(join(copy, 'bin'));
  writeFileSync(join(copy, 'bin', 'fettle'), readFileSync(join(ROOT, 'bin', 'fettle')), { mode: 0o755 });
  const missing = spawnSync(join(copy, 'bin', 'fettle'), ['status'], { encoding: 'utf8', env: baseEnv(copy) });
  assert.equal(missing.status, 1);
  assert.equal(
    missing.stderr,
    `fettle: ${join(copy, 'dist', 'cli.js')} is missing: run \`npm install && npm run build\` in ${copy} to build it.\n`,
  );
});

test('the version agrees in package.json, the plugin manifest and fettle --version', () => {
  const plugin = JSON.parse(readFileSync(join(ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string };
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), '--version'], { encoding: 'utf8' });
  assert.deepEqual([plugin.version, r.stdout.trim()], [PACKAGE.version, PACKAGE.version]);
});
