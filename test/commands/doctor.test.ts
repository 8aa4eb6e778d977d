// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptOf } from '../../src/commands/doctor';
import { checkGitVersion, checkNode } from '../../src/setup/doctor';
import { runCli, SELF, withFettleOnPath } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { keepsUserState, stageWrite, T0 } from '../helpers/stage';

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

const doctor = (repo: Repo, env: Record<string, string> = {}) => {
  const r = runCli(['doctor', '--json'], { cwd: repo.dir, env: { ...repo.env, ...env } });
  const { checks } = JSON.parse(r.stdout) as { checks: Check[] };
  return { code: r.code, checks, of: (name: string) => checks.filter((c) => c.name === name) };
};
const installed = (): Repo => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const env = withFettleOnPath(repo.env, repo.home);
  assert.equal(runCli(['install', '--scope', 'project'], { cwd: repo.dir, env }).code, 0);
  return repo;
};

test('checkNode and checkGitVersion', () => {
  const cases: [string, string][] = [
    ['v20.1.0', 'ok'],
    ['v22.3.0', 'ok'],
    ['v18.19.0', 'fail'],
  ];
  for (const [version, status] of cases) assert.equal(checkNode(version).status, status, version);
  const gits: [string | null, string][] = [
    ['git version 2.39.5', 'ok'],
    ['git version 2.36.0', 'ok'],
    ['git version 2.35.8', 'fail'],
    ['git version 3.0.0', 'ok'],
    [null, 'fail'],
  ];
  for (const [output, status] of gits) assert.equal(checkGitVersion(output).status, status, String(output));
  assert.match(checkGitVersion('git version 2.37.1').detail, /newline need 2\.38/);
});

test('scriptOf finds the script a hook command runs, quoted or not', () => {
  const cases: [string, string | undefined][] = [
    [`'/usr/bin/node' '/opt/it'\\''s/dist/cli.js' hook`, "/opt/it's/dist/cli.js"],
    [`'/usr/bin/node' '/opt/f/dist/cli.js' hook`, '/opt/f/dist/cli.js'],
    ['node "${CLAUDE_PLUGIN_ROOT}/dist/cli.js" hook', '${CLAUDE_PLUGIN_ROOT}/dist/cli.js'],
    ['node /opt/f/dist/cli.js hook', '/opt/f/dist/cli.js'],
    ['fettle hook', undefined],
  ];
  for (const [command, script] of cases) assert.equal(scriptOf(command), script, command);
});

test('a healthy setup: every check ok, exit 0, and doctor changes nothing', () => {
  const repo = installed();
  keepsUserState(repo, () => {
    const d = doctor(repo);
    assert.equal(d.code, 0);
    assert.deepEqual(
      d.checks.filter((c) => c.status !== 'ok'),
      [],
    );
    assert.deepEqual(
      d.checks.map((c) => c.name),
      ['node', 'git', 'config', 'hooks', 'store', 'policy', 'journal', 'changes', 'objects', 'leftovers', 'locks'],
    );
    assert.match(d.of('hooks')[0]?.detail ?? '', /\.claude\/settings\.json \(project\)$/);
  });
  const text = runCli(['doctor'], { cwd: repo.dir, env: repo.env });
  assert.match(text.stdout, /^ok {4}node {6}Node v\d+/m);
});

test('not installed anywhere: a warning that says how to install, exit 0', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const d = doctor(repo);
  assert.equal(d.code, 0);
  assert.deepEqual(
    d.of('hooks').map((c) => [c.status, c.fix]),
    [['warn', `Run \`${SELF} install\` (user scope) or \`${SELF} install --scope project\`.`]],
  );
});

test('installed in two scopes: every write would run fettle twice', () => {
  const repo = installed();
  assert.equal(runCli(['install'], { cwd: repo.dir, env: repo.env }).code, 0);
  const warned = doctor(repo)
    .of('hooks')
    .find((c) => c.status === 'warn');
  assert.match(warned?.detail ?? '', /registered in 2 scopes \(user, project\): every write runs fettle 2 times/);
});

// [installed first, then, the scope the one answer uninstalls]
const doubles: [string, string, string][] = [
  ['user', 'project', 'project'],
  ['project', 'user', 'project'],
  ['user', 'local', 'local'],
  ['local', 'project', 'local'],
];
for (const [first, second, removed] of doubles)
  test(`installed in ${first}, then ${second} scope: install's warning and doctor give one answer`, () => {
    const repo = makeRepo({ 'a.txt': lines(30) });
    const env = withFettleOnPath(repo.env, repo.home);
    assert.equal(runCli(['install', '--scope', first], { cwd: repo.dir, env }).code, 0);
    const again = runCli(['install', '--scope', second], { cwd: repo.dir, env });
    const warned = /Keep one: .*$/m.exec(again.stderr)?.[0] ?? assert.fail(again.stderr);
    const fix = doctor(repo, env)
      .of('hooks')
      .find((c) => c.status === 'warn')?.fix;
    assert.equal(fix, warned);
    assert.match(warned, new RegExp(`^Keep one: \`fettle uninstall --scope ${removed}\` \\(`));
  });

test('an install from before PostToolUseFailure was registered: a warning to install again', () => {
  const repo = installed();
  const path = join(repo.dir, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, unknown> };
  delete settings.hooks.PostToolUseFailure;
  writeFileSync(path, JSON.stringify(settings));
  const [hooks] = doctor(repo).of('hooks');
  assert.equal(hooks?.status, 'warn');
  assert.match(hooks?.detail ?? '', /without PostToolUseFailure/);
  assert.equal(hooks?.fix, `Run \`${SELF} install --scope project\` again.`);
});

test('an install from before Stop and SessionEnd were registered: a warning to install again', () => {
  const repo = installed();
  const path = join(repo.dir, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(path, 'utf8')) as { hooks: Record<string, unknown> };
  delete settings.hooks.Stop;
  writeFileSync(path, JSON.stringify(settings));
  const [hooks] = doctor(repo).of('hooks');
  assert.equal(hooks?.status, 'warn');
  assert.match(
    hooks?.detail ?? '',
    /without Stop and SessionEnd: the last write of a headless session stays incomplete/,
  );
  assert.equal(hooks?.fix, `Run \`${SELF} install --scope project\` again.`);
});

test('a hook that runs a fettle that is gone fails the check, exit 1', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const gone = join(repo.home, 'old', 'dist', 'cli.js');
  const hook = {
    type: 'command',
    command: `'/usr/bin/node' '${gone}' hook`,
    statusMessage: 'fettle: keeping the previous version',
  };
  mkdirSync(join(repo.dir, '.claude'));
  const settings = {
    hooks: {
      PreToolUse: [{ matcher: 'Write|Edit|MultiEdit|NotebookEdit', hooks: [hook] }],
      PostToolUse: [{ matcher: 'Write|Edit|MultiEdit|NotebookEdit', hooks: [hook] }],
    },
  };
  writeFileSync(join(repo.dir, '.claude', 'settings.json'), JSON.stringify(settings));
  const d = doctor(repo);
  assert.equal(d.code, 1);
  const [hooks] = d.of('hooks');
  assert.equal(hooks?.status, 'fail');
  assert.match(
    hooks?.detail ?? '',
    new RegExp(`the hook runs ${gone.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, which does not exist`),
  );
});

test('an invalid variable fails the config check and the other checks still run', () => {
  const repo = installed();
  const d = doctor(repo, { FETTLE_WRITE_RATIO: 'lots' });
  assert.equal(d.code, 1);
  assert.equal(d.of('config')[0]?.status, 'fail');
  assert.match(d.of('config')[0]?.detail ?? '', /FETTLE_WRITE_RATIO/);
  assert.equal(d.of('objects')[0]?.status, 'ok');
});

test('an expired staged change, a missing object and an old git lock are each reported with their fix', () => {
  const repo = installed();
  const id = stageWrite(repo, 'a.txt', lines(30, 'new'));
  const expired = doctor(repo, { FETTLE_NOW: String(T0 + 3600) }).of('expired')[0];
  assert.deepEqual([expired?.status, expired?.detail], ['warn', `1 staged change expired without a decision: ${id}`]);
  // The proposal's blob, which only fettle's history holds: fettle's packs unpacked, then that object deleted.
  const blob = repo.git('rev-parse', `refs/fettle/${id}:a.txt`);
  const packDir = join(repo.dir, '.git', 'objects', 'pack');
  for (const name of readdirSync(join(repo.dir, '.git', 'fettle', 'packs'))) {
    const bytes = readFileSync(join(packDir, `${name}.pack`));
    for (const ext of ['idx', 'pack']) unlinkSync(join(packDir, `${name}.${ext}`));
    execFileSync('git', ['unpack-objects', '-q'], { cwd: repo.dir, env: repo.env, input: bytes });
  }
  unlinkSync(join(repo.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
  const objects = doctor(repo).of('objects')[0];
  assert.equal(objects?.status, 'fail');
  assert.match(objects?.fix ?? '', /git fsck/);
  const lock = join(repo.dir, '.git', 'refs', 'fettle', `${id}.lock`);
  writeFileSync(lock, '');
  utimesSync(lock, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  const locks = doctor(repo).of('locks')[0];
  assert.equal(locks?.status, 'warn');
  assert.match(
    locks?.detail ?? '',
    new RegExp(`^git's lock on a ref of fettle's, .*: refs/fettle/${id}\\.lock \\(\\d+ s old\\)$`),
  );
  assert.deepEqual(
    readdirSync(join(repo.dir, '.git', 'refs', 'fettle')).sort(),
    [id, `${id}.lock`].sort(),
    'doctor removed nothing',
  );
});

test("the git hooks' background run: a commit still without its note after 10 minutes, and an error it logged, are reported", () => {
  const repo = installed();
  const fettleDir = join(repo.dir, '.git', 'fettle');
  mkdirSync(join(fettleDir, 'notes-pending'), { recursive: true });
  const head = repo.git('rev-parse', 'HEAD');
  writeFileSync(join(fettleDir, 'notes-pending', head), '');
  assert.deepEqual(doctor(repo).of('git hooks'), [], 'a mark of a minute ago is a note being written');
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(join(fettleDir, 'notes-pending', head), old, old);
  writeFileSync(join(fettleDir, 'git-hook.log'), 'fettle: earlier\nfettle: could not write the note (disk full)\n');
  const [late, log] = doctor(repo).of('git hooks');
  assert.equal(late?.status, 'warn');
  assert.match(late?.detail ?? '', /^1 commit still waits for its attribution note \(the oldest 60 min\)/);
  assert.match(late?.fix ?? '', /blame <file>` or `.*trace`: .* is in .*git-hook\.log\.$/);
  assert.equal(log?.status, 'warn');
  assert.match(log?.detail ?? '', /reported an error \(last at .*\): fettle: could not write the note \(disk full\)$/);
  assert.ok(existsSync(join(fettleDir, 'notes-pending', head)), 'doctor settles nothing');
});
