// Tier: slow, a bare remote and real pushes per test, and a stub gh run as a process (scripts/test-tiers.mjs).
// `fettle pr`: an agent session pushed as one commit on the commit it started from, and opened with gh (a stub on
// PATH here, its arguments and the body it reads checked) where it is installed and logged in; otherwise the URL
// to open one and the description are printed. The remote is named as GitHub's, and git sends it to a bare one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runHook } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { directWrite, fettle, ok } from '../helpers/stage';

const SECRET = `ghp_${'K'.repeat(36)}`;
const GITHUB = 'https://github.com/acme/widgets.git';

const turn = (repo: Repo, session: string, prompt: string, file: string, content: string): void => {
  const said = { session_id: session, hook_event_name: 'UserPromptSubmit', prompt, cwd: repo.dir };
  assert.equal(runHook(said, { cwd: repo.dir, env: repo.env }).code, 0);
  directWrite(repo, file, content, { env: { FETTLE_SESSION: session } });
};

/** A repository whose origin is named as GitHub's (git sends it to a bare remote), with a session of two turns. */
const setUp = () => {
  const remote = join(tempDir(), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const repo = makeRepo({ 'f.txt': lines(10) });
  repo.git('config', `url.${remote}.insteadOf`, GITHUB);
  repo.git('remote', 'add', 'origin', GITHUB);
  repo.git('push', '-q', 'origin', 'main');
  turn(repo, 's1', `make line 2 loud, token ${SECRET}`, 'f.txt', lines(10).replace('line 2\n', 'LINE 2\n'));
  turn(repo, 's1', 'add a readme', 'README.md', '# widgets\n');
  return { remote, repo };
};

/** A stub gh: logs each call's arguments, keeps the body it reads, answers `auth status` with GH_AUTH. */
const stubGh = (): { bin: string; calls: () => string[][]; body: () => string } => {
  const dir = tempDir();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'calls.jsonl');
  const body = join(dir, 'body.md');
  const script = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
if (args[0] === 'auth') process.exit(Number(process.env.GH_AUTH || 0));
fs.writeFileSync(${JSON.stringify(body)}, fs.readFileSync(0));
console.log('https://github.com/acme/widgets/pull/7');
`;
  writeFileSync(join(bin, 'gh'), script, { mode: 0o755 });
  return {
    bin,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as string[])
        : [],
    body: () => readFileSync(body, 'utf8'),
  };
};

const CREATE = [
  'pr',
  'create',
  '--repo',
  'acme/widgets',
  '--head',
  'fettle/sessions/s1',
  '--title',
  'Agent session s1: 2 changes in 2 files',
  '--body-file',
  '-',
];

test('with gh logged in: the branch is pushed on the base, and gh opens the pull request with the turns', () => {
  const { remote, repo } = setUp();
  const gh = stubGh();
  const r = ok(
    fettle(repo, ['pr', '--session', 's1', '--with-prompts'], { env: { PATH: `${gh.bin}:${repo.env.PATH}` } }),
  );
  assert.match(r.stdout, /^Opened pull request https:\/\/github\.com\/acme\/widgets\/pull\/7$/m);
  assert.deepEqual(gh.calls(), [['auth', 'status'], CREATE]);
  const body = gh.body();
  assert.match(body, /^\*\*Turn 1\*\*: `f\.txt`$/m);
  assert.match(body, /^\*\*Turn 2\*\*: `README\.md`$/m);
  assert.match(body, /^make line 2 loud, token \[redacted GitHub token\]$/m);
  assert.doesNotMatch(body, new RegExp(SECRET));
  assert.match(body, /^- `f\.txt` \(\+1 -1\)$/m);
  const bare = (...a: string[]) => execFileSync('git', ['-C', remote, ...a], { encoding: 'utf8' }).trim();
  assert.equal(bare('rev-parse', 'fettle/sessions/s1^'), repo.git('rev-parse', 'main'));
  assert.equal(bare('show', 'fettle/sessions/s1:README.md'), '# widgets');
});

test('prompts stay out of the description unless --with-prompts', () => {
  const { repo } = setUp();
  const gh = stubGh();
  ok(fettle(repo, ['pr', '--session', 's1'], { env: { PATH: `${gh.bin}:${repo.env.PATH}` } }));
  assert.doesNotMatch(gh.body(), /make line 2 loud/);
  assert.match(gh.body(), /^\*\*Turn 1\*\*: `f\.txt`$/m);
});

test('gh not logged in: no pull request is attempted, and where to open one is printed', () => {
  const { repo } = setUp();
  const gh = stubGh();
  const r = ok(fettle(repo, ['pr', '--session', 's1'], { env: { PATH: `${gh.bin}:${repo.env.PATH}`, GH_AUTH: '1' } }));
  assert.deepEqual(gh.calls(), [['auth', 'status']]);
  assert.match(r.stdout, /not logged in \(`gh auth login`\), so no pull request was opened/);
  assert.match(r.stdout, /^ {2}https:\/\/github\.com\/acme\/widgets\/compare\/fettle\/sessions\/s1\?expand=1$/m);
});

test('without gh: the URL to open the pull request, the gh command and the description are printed', () => {
  const { repo } = setUp();
  // A PATH with git alone: no gh, whatever the machine has installed.
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  const r = ok(fettle(repo, ['pr', '--session', 's1'], { env: { PATH: bin } }));
  assert.match(r.stdout, /^Pushed session s1 \(commit [0-9a-f]{12}\) to origin as branch fettle\/sessions\/s1/m);
  assert.match(r.stdout, /The GitHub CLI \(gh\) is not installed, so no pull request was opened\./);
  assert.match(r.stdout, /^ {2}https:\/\/github\.com\/acme\/widgets\/compare\/fettle\/sessions\/s1\?expand=1$/m);
  assert.match(
    r.stdout,
    /^ {2}gh pr create --repo acme\/widgets --head fettle\/sessions\/s1 --title 'Agent session s1: 2 changes in 2 files' --body-file <file>$/m,
  );
  assert.match(r.stdout, /^\*\*Turn 2\*\*: `README\.md`$/m);
});

test('a remote not on GitHub: the branch is pushed and no gh is run', () => {
  const { remote, repo } = setUp();
  repo.git('remote', 'set-url', 'origin', remote);
  const gh = stubGh();
  const r = ok(fettle(repo, ['pr', '--session', 's1', '--json'], { env: { PATH: `${gh.bin}:${repo.env.PATH}` } }));
  const out = JSON.parse(r.stdout) as { gh: string; branch: string; pullRequest: string | null };
  assert.deepEqual([out.gh, out.branch, out.pullRequest], ['unknown', 'fettle/sessions/s1', null]);
  assert.deepEqual(gh.calls(), []);
});
