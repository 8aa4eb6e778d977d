// `fettle demo` end to end: the whole protocol in a throwaway repository that is gone afterwards.
// Tier: slow, runs the whole demo in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, SELF } from '../helpers/cli';
import { makeRepo, tempDir } from '../helpers/repo';
import { keepsUserState } from '../helpers/stage';

/** A private TMPDIR, so that what the demo leaves behind (and nothing else) shows up in its listing. */
const demoEnv = (home: string, tmp: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  TMPDIR: tmp,
  LANG: 'C',
});

test('demo runs the protocol, exits 0, and leaves no temp dir behind', () => {
  const tmp = tempDir('fettle-demo-tmp-');
  const home = tempDir('fettle-demo-home-');
  const r = runCli(['demo'], { cwd: home, env: demoEnv(home, tmp) });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stderr, '');
  const throwaway = /in a throwaway repository: (\S+)/.exec(r.stdout)?.[1] ?? '';
  assert.ok(throwaway.startsWith(join(tmp, 'fettle-demo-')), `the demo works under TMPDIR: ${throwaway}`);
  assert.equal(existsSync(throwaway), false);
  assert.deepEqual(readdirSync(tmp), [], 'nothing left in TMPDIR');
  // Only Node's compiled code, in the cache directory every CLI may use (src/code-cache.ts).
  const written = readdirSync(home, { recursive: true })
    .map(String)
    .filter((p) => !existsSync(join(home, p)) || !statSync(join(home, p)).isDirectory());
  assert.ok(
    written.every((p) => /^\.cache\/fettle\/(hook|commands)-[0-9a-f]{16}\.v8$/.test(p)),
    `nothing else written to HOME: ${written.join(', ')}`,
  );
});

test('demo output shows a direct write, a staged change applied, another discarded', () => {
  const tmp = tempDir('fettle-demo-tmp-');
  const r = runCli(['demo'], { cwd: tmp, env: demoEnv(tmp, tmp) });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = r.stdout;
  assert.match(
    out,
    /^  fettle recorded notes\.txt \(261 B, 16 lines, \+1 -1 ~1\) as ([0-9a-z]{8}); undo with: .+ rollback \1$/m,
  );
  const staged = [...out.matchAll(/Staged change ([0-9a-z]{8}):/g)].map((m) => m[1]);
  assert.equal(staged.length, 2, out);
  assert.match(out, new RegExp(`Applied ${staged[0]} to notes\\.txt \\(\\+16 -16\\)\\.`));
  assert.match(out, new RegExp(`Discarded ${staged[1]}; notes\\.txt was not touched\\.`));
  assert.match(out, /No staged changes waiting\./);
  // Each step is printed as a shell runs it: the glob quoted (zsh stops at an unmatched one), fettle spelled as
  // this one runs (no `fettle` on the test's PATH).
  assert.match(out, /^\$ git log --oneline '--glob=fettle\/\*'$/m);
  const steps = [...out.matchAll(/^\$ (.+)$/gm)].map((m) => m[1] ?? '');
  assert.ok(steps.length >= 9, steps.join('\n'));
  for (const step of steps) assert.ok(step.startsWith('git ') || step.startsWith(`${SELF} `), step);
  assert.doesNotMatch(out, /internal error|fettle: (No session|Session|No change)/);
  assert.deepEqual(
    readdirSync(tmp).filter((name) => name.startsWith('fettle-demo-')),
    [],
  );
});

test('demo run inside a repository leaves that repository alone', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const tmp = tempDir('fettle-demo-tmp-');
  keepsUserState(repo, () =>
    assert.equal(runCli(['demo'], { cwd: repo.dir, env: { ...repo.env, TMPDIR: tmp } }).code, 0),
  );
  assert.equal(repo.git('for-each-ref', 'refs/fettle', 'refs/fettle-discarded'), '');
  assert.equal(
    repo
      .git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length,
    1,
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from('a\n')));
  assert.deepEqual(readdirSync(tmp), []);
});

test('demo ignores GIT_DIR/GIT_WORK_TREE inherited from the caller', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  repo.write('staged.txt', 'in the index, not committed\n');
  repo.git('add', 'staged.txt');
  const tmp = tempDir('fettle-demo-tmp-');
  const env = { ...repo.env, TMPDIR: tmp, GIT_DIR: join(repo.dir, '.git'), GIT_WORK_TREE: repo.dir };
  const r = keepsUserState(repo, () => runCli(['demo'], { cwd: repo.home, env }));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /Applied [0-9a-z]{8} to notes\.txt \(\+16 -16\)\./, 'the demo ran in its own repository');
  assert.equal(repo.git('for-each-ref', 'refs/fettle', 'refs/fettle-discarded'), '');
  assert.deepEqual(readdirSync(tmp), []);
});
