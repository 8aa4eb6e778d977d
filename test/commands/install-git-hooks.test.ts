// `fettle install --git-hooks` / `uninstall --git-hooks`: the hooks go where git runs them from (core.hooksPath
// read, never set), a hook fettle did not write is never replaced, and uninstall leaves the hooks directory exactly
// as it was before install.
// Tier: slow, installs, commits and uninstalls through the built CLI in fresh repositories (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { notesSettled } from '../helpers/notes';
import { runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

const cli = (repo: Repo, ...args: string[]) => runCli(args, { cwd: repo.dir, env: repo.env });
const config = (repo: Repo) => readFileSync(repo.path('.git/config'), 'utf8');

/** Every file under `dir` with its bytes and mode: what uninstall must give back. */
const tree = (dir: string): string =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .sort()
        .map((f) => `${f} ${statSync(join(dir, f)).mode.toString(8)} ${readFileSync(join(dir, f), 'latin1')}`)
        .join('\n')
    : '<none>';

test('install writes both hooks, executable, into .git/hooks; a second install changes nothing; uninstall gives the directory back', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const hooks = repo.path('.git/hooks');
  const [before, settings] = [tree(hooks), config(repo)];
  const first = cli(repo, 'install', '--git-hooks', '--json');
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(
    JSON.parse(first.stdout).gitHooks.map((h: { name: string; result: string }) => `${h.name} ${h.result}`),
    ['post-commit changed', 'post-rewrite changed'],
  );
  for (const name of ['post-commit', 'post-rewrite']) {
    assert.equal(statSync(join(hooks, name)).mode & 0o111, 0o111, name);
    assert.match(readFileSync(join(hooks, name), 'utf8'), new RegExp(` git-hook ${name} "\\$@" \\|\\| true\n$`));
  }
  assert.match(cli(repo, 'install', '--git-hooks').stdout, /already installed .*; nothing changed\./);
  // A commit with no agent line gets no note, and goes through.
  repo.write('a.txt', 'b\n');
  repo.commit('person');
  notesSettled(repo);
  assert.equal(repo.git('notes', '--ref=fettle', 'list'), '');
  assert.match(cli(repo, 'uninstall', '--git-hooks').stdout, /^Removed fettle's git hooks: /);
  assert.equal(tree(hooks), before);
  assert.equal(config(repo), settings);
  assert.equal(cli(repo, 'uninstall', '--git-hooks').stdout, 'No fettle git hooks here; nothing changed.\n');
});

test("a post-commit hook of the user's: install refuses, writes neither hook, and names the line to add to it", () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('.git/hooks/post-commit', '#!/bin/sh\necho mine\n', 0o755);
  const before = tree(repo.path('.git/hooks'));
  const r = cli(repo, 'install', '--git-hooks');
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /post-commit is a hook fettle did not write; it was left as it was, and no hook was installed\./,
  );
  assert.match(r.stderr, /git-hook post-commit "\$@" \|\| true` in post-commit/);
  assert.equal(tree(repo.path('.git/hooks')), before);
  // Uninstall leaves it alone too.
  assert.equal(cli(repo, 'uninstall', '--git-hooks').code, 0);
  assert.equal(tree(repo.path('.git/hooks')), before);
});

test('core.hooksPath: the hooks go into the directory it names, made for them, and uninstall takes it away; config is never written', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.git('config', 'core.hooksPath', 'tools/hooks');
  const settings = config(repo);
  const r = cli(repo, 'install', '--git-hooks');
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(repo.path('tools/hooks/post-commit')));
  assert.equal(existsSync(repo.path('.git/hooks/post-commit')), false);
  assert.equal(cli(repo, 'uninstall', '--git-hooks').code, 0);
  assert.equal(existsSync(repo.path('tools')), false);
  assert.equal(config(repo), settings);
});

test('uninstall refuses a hook of fettle a person edited since, and keeps it', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.equal(cli(repo, 'install', '--git-hooks').code, 0);
  const file = repo.path('.git/hooks/post-rewrite');
  repo.write('.git/hooks/post-rewrite', `${readFileSync(file, 'utf8')}echo also mine\n`, 0o755);
  const before = tree(repo.path('.git/hooks'));
  const r = cli(repo, 'uninstall', '--git-hooks');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /post-rewrite changed since fettle installed it; nothing was removed\./);
  assert.equal(tree(repo.path('.git/hooks')), before);
});

test('outside a repository there are no git hooks to install', () => {
  const repo = makeRepo();
  const r = runCli(['install', '--git-hooks'], { cwd: repo.home, env: repo.env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /not in a git repository/);
});

test("an earlier install's post-commit (one line running fettle) is fettle's own: install replaces it, uninstall removes it", () => {
  for (const then of ['install', 'uninstall']) {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    assert.equal(cli(repo, 'install', '--git-hooks').code, 0);
    const path = repo.path('.git/hooks/post-commit');
    const lines = readFileSync(path, 'utf8').split('\n');
    // the hook as installs wrote it before the shell's first half: the header, then the line that runs fettle
    const earlier = [...lines.slice(0, 3), ...lines.slice(-2)].join('\n');
    writeFileSync(path, earlier);
    const r = cli(repo, then, '--git-hooks', '--json');
    assert.equal(r.code, 0, r.stderr);
    const results = JSON.parse(r.stdout).gitHooks.map((h: { name: string; result: string }) => `${h.name} ${h.result}`);
    assert.deepEqual(
      results,
      then === 'install'
        ? ['post-commit changed', 'post-rewrite unchanged']
        : ['post-commit changed', 'post-rewrite changed'],
    );
    assert.equal(existsSync(path), then === 'install');
  }
});
