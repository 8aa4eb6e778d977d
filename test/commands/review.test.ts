// `fettle review`: a staged change as a pull request in the terminal, and pushed as a branch of a remote.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { T0, directWrite, fettle, keepsUserState, ok, scriptSession, stageWrite } from '../helpers/stage';

const BASE = lines(30);
const PROPOSED = lines(30, 'new');

const allRefs = (git: (...a: string[]) => string): string => git('for-each-ref', '--format=%(refname) %(objectname)');

/** A bare repository holding the user's main branch, registered as `origin`. */
const withRemote = (repo: Repo): { bare: string; bareGit: (...a: string[]) => string } => {
  const bare = join(tempDir(), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', bare], { env: repo.env });
  repo.git('remote', 'add', 'origin', bare);
  repo.git('push', '-q', 'origin', 'main');
  const bareGit = (...a: string[]) =>
    execFileSync('git', ['--git-dir', bare, ...a], { env: repo.env })
      .toString('utf8')
      .trim();
  return { bare, bareGit };
};

test('review shows the title, base, files with +N -M, the diff and the commands to run', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', PROPOSED, { env: { FETTLE_SESSION: 'agent-1' } });
  const head = repo.git('rev-parse', 'HEAD').slice(0, 12);
  const out = keepsUserState(repo, () => ok(fettle(repo, ['review', id], { now: T0 + 60 })).stdout);
  const [top = '', files = '', diff = '', commands = ''] = out.split('\n\n');
  assert.deepEqual(top.split('\n'), [
    'fettle: stage a.txt (+30 -30)',
    `Change ${id}: pending, expires in 9m; staged 1m ago by session agent-1 (fettle write).`,
    `Base: ${head} (HEAD when it was staged); HEAD has not moved since.`,
  ]);
  assert.equal(files, 'Files changed (1):\n  a.txt  +30 -30');
  assert.match(diff, /^diff --git a\/a\.txt b\/a\.txt\n/);
  assert.match(diff, /\n-line 1\n/);
  assert.match(diff, /\n\+new 30$/);
  const steps = commands.trimEnd().split('\n');
  assert.match(steps[0] ?? '', new RegExp(`^To apply it:  .+ confirm ${id}$`));
  assert.match(steps[1] ?? '', new RegExp(`^To drop it:   .+ discard ${id}$`));
  assert.match(steps[2] ?? '', new RegExp(`^To test it:   .+ test ${id} -- <command>$`));
  assert.match(steps[3] ?? '', new RegExp(`^To push it:   .+ review ${id} --push \\[remote\\]$`));
  assert.equal(steps[4], `With git:     git show fettle/${id}`);
  assert.ok(!out.includes('\u001b['), 'no colour when stdout is not a terminal');
});

test('review says how far HEAD moved since staging and whether the file changed there', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': 'b\n' });
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  const base = repo.git('rev-parse', 'HEAD').slice(0, 12);
  repo.write('b.txt', 'b2\n');
  repo.commit('user commit 1');
  const out = ok(fettle(repo, ['review', id], { now: T0 + 60 })).stdout;
  assert.match(
    out,
    new RegExp(
      `^Base: ${base} \\(HEAD when it was staged\\); HEAD has moved 1 commit ahead since \\(now ${repo.git('rev-parse', 'HEAD').slice(0, 12)}\\)\\.$`,
      'm',
    ),
  );
  repo.write('a.txt', BASE.replace('line 2\n', 'user 2\n'));
  repo.commit('user commit 2');
  assert.match(
    ok(fettle(repo, ['review', id], { now: T0 + 60 })).stdout,
    /HEAD has moved 2 commits ahead since \(now \w+\); a\.txt differs on HEAD, so expect a merge\.$/m,
  );
});

test('review --json; review of an expired change offers no confirm; of a direct change is refused', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  const j = JSON.parse(ok(fettle(repo, ['review', id, '--json'])).stdout) as Record<string, unknown>;
  assert.deepEqual(
    [j.id, j.title, j.base, j.head, j.ahead, j.fileChangedOnHead],
    [id, 'fettle: stage a.txt (+30 -30)', repo.git('rev-parse', 'HEAD'), repo.git('rev-parse', 'HEAD'), 0, false],
  );
  const expired = ok(fettle(repo, ['review', id], { now: T0 + 3600 })).stdout;
  assert.match(
    expired,
    new RegExp(
      `^Change ${id}: expired 50m ago; staged 1h ago by session ${scriptSession(repo)} \\(fettle write\\)\\.$`,
      'm',
    ),
  );
  assert.match(
    expired,
    new RegExp(`^To apply it:  .+ confirm ${id} --expired   \\(past its time: a person only\\)$`, 'm'),
  );
  const direct = directWrite(repo, 'b.txt', 'b\n');
  const r = fettle(repo, ['review', direct]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /was written directly, not staged/);
});

test('review --push creates the branch fettle/<id> on the remote, HEAD then the change, and changes nothing else', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const { bareGit } = withRemote(repo);
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  const [remoteBefore, localBefore] = [allRefs(bareGit), allRefs(repo.git)];
  const r = keepsUserState(repo, () => ok(fettle(repo, ['review', id, '--push'])));
  const pushed = bareGit('rev-parse', `fettle/${id}`);
  assert.equal(
    r.stdout,
    `Pushed change ${id} (commit ${pushed.slice(0, 12)}) to origin as branch fettle/${id}; open a pull request from it. No local branch was created or changed.\n`,
  );
  assert.equal(allRefs(bareGit), `${remoteBefore}\nrefs/heads/fettle/${id} ${pushed}`.split('\n').sort().join('\n'));
  assert.equal(allRefs(repo.git), localBefore, 'no local ref moved, not even a remote-tracking one');
  assert.equal(bareGit('show', `fettle/${id}:a.txt`) + '\n', PROPOSED);
  // The empty "before" commit (the file was as HEAD has it) is left out: the branch is main, then the change.
  assert.equal(bareGit('rev-parse', `fettle/${id}^`), bareGit('rev-parse', 'main'));
  assert.equal(bareGit('log', '--format=%s', `main..fettle/${id}`), 'fettle: stage a.txt (+30 -30)');
  assert.equal(bareGit('rev-parse', `fettle/${id}^{tree}`), repo.git('rev-parse', `refs/fettle/${id}^{tree}`));
  // Pushed again: the same commit, so nothing moves.
  const again = ok(fettle(repo, ['review', id, '--push']));
  assert.equal(
    again.stdout,
    `Branch fettle/${id} of origin already holds change ${id} (commit ${pushed.slice(0, 12)}); nothing was pushed.\n`,
  );
});

test('review --push --base disk keeps a "before" commit that holds uncommitted edits of the file', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const { bareGit } = withRemote(repo);
  repo.write('a.txt', BASE.replace('line 1\n', 'mine 1\n'));
  const id = stageWrite(repo, 'a.txt', PROPOSED);
  ok(fettle(repo, ['review', id, '--push', '--base', 'disk']));
  assert.equal(bareGit('rev-parse', `fettle/${id}`), repo.git('rev-parse', `refs/fettle/${id}`));
  assert.equal(
    bareGit('log', '--format=%s', `main..fettle/${id}`),
    'fettle: stage a.txt (+30 -30)\nfettle: before a.txt',
  );
});

test('review --push never moves an existing branch of the remote (main included) without --force', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const { bare, bareGit } = withRemote(repo);
  const first = stageWrite(repo, 'a.txt', PROPOSED);
  ok(fettle(repo, ['review', first, '--push', bare, '--branch', 'review/big-change']));
  const second = stageWrite(repo, 'a.txt', lines(30, 'other'));
  const remoteBefore = allRefs(bareGit);
  for (const branch of ['review/big-change', 'main']) {
    const r = fettle(repo, ['review', second, '--push', 'origin', '--branch', branch]);
    assert.equal(r.code, 5, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^fettle: branch '${branch}' already exists on origin \\(at [0-9a-f]{12}\\); fettle does not move a branch that exists\\. Nothing was pushed\\.$`,
        'm',
      ),
    );
    assert.match(r.stderr, /or add --force to move/);
  }
  assert.equal(allRefs(bareGit), remoteBefore, 'main and the review branch are where they were');
  const was = bareGit('rev-parse', 'review/big-change');
  const forced = ok(fettle(repo, ['review', second, '--push', 'origin', '--branch', 'review/big-change', '--force']));
  const now = bareGit('rev-parse', 'review/big-change');
  assert.equal(
    forced.stdout,
    `Pushed change ${second} (commit ${now.slice(0, 12)}) to origin and moved branch review/big-change from ${was.slice(0, 12)} to it (--force); open a pull request from it. No local branch was created or changed.\n`,
  );
  assert.equal(bareGit('show', 'review/big-change:a.txt') + '\n', lines(30, 'other'));
  assert.equal(fettle(repo, ['review', second, '--push', 'origin', '--branch', 'bad..name']).code, 2);
  assert.equal(fettle(repo, ['review', second, '--force']).code, 2, '--force goes with --push');
});
