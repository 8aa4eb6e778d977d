// What `fettle git-hook` costs each commit in git processes: it runs inside the person's `git commit`, so it finds
// the repository, lists fettle's refs, reads every object through one `cat-file`, and writes the note: no process
// per read, none to ask what the commit changed (the trees say it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentWrite, runCli } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';

/** An environment whose git logs each of its runs' subcommands (after the `-c` pairs) to the returned file. */
const countingGit = (repo: Repo): { env: Record<string, string>; taken: () => string[] } => {
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  const log = join(bin, 'git.log');
  const real = execFileSync('/bin/sh', ['-c', 'command -v git'], { env: repo.env }).toString().trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const taken = () => {
    const text = readFileSync(log, 'utf8');
    writeFileSync(log, '');
    const words = (l: string) =>
      l
        .replace(/(^| )-c \S+/g, '')
        .trim()
        .split(' ');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => words(l).slice(0, 2).join(' '))
      .sort();
  };
  writeFileSync(log, '');
  return { env: { ...repo.env, PATH: `${bin}:${repo.env.PATH}` }, taken };
};

test('post-commit after an agent Write: four git processes, one cat-file for every read, and the note', () => {
  const repo = makeRepo({ 'src/app.ts': lines(3), 'other.txt': 'o\n' });
  const file = repo.path('src/app.ts');
  const write = agentWrite({ file, content: `${lines(3)}agent line\n`, cwd: repo.dir }, repo.env, writeFileSync);
  assert.equal(write.written, true);
  repo.commit('person commits the agent line');
  const { env, taken } = countingGit(repo);
  const r = runCli(['git-hook', 'post-commit'], { cwd: repo.dir, env });
  assert.deepEqual([r.code, r.stderr], [0, '']);
  assert.deepEqual(taken(), [
    'cat-file --batch-command',
    'for-each-ref --format=%(objectname)',
    'notes --ref=refs/notes/fettle',
    'rev-parse --is-inside-git-dir',
  ]);
  const note = repo.git('notes', '--ref=fettle', 'show', 'HEAD');
  assert.match(note, /^fettle-attribution v1\nfile src\/app\.ts\n4 claude session=session-1 tool=Write change=\w+$/);
});
