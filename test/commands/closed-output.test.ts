// A command whose reader stops reading (`fettle log | head`): no stack trace, the command's own exit code, and a
// command that changes something still finishes its change.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { stageWrite, statusJson, T0 } from '../helpers/stage';

/** Runs fettle with stdout a pipe whose reading end is closed before fettle writes anything. */
const unread = (repo: Repo, args: string[]): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: repo.dir,
      env: { ...repo.env, FETTLE_NOW: String(T0) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });

const listings: [string, (id: string) => string[]][] = [
  ['log', () => ['log']],
  ['log --json', () => ['log', '--json']],
  ['status', () => ['status']],
  ['show', (id) => ['show', id]],
  ['review', (id) => ['review', id]],
];
for (const [what, args] of listings)
  test(`${what} to a closed reader: exit 0 and nothing on stderr`, async () => {
    const repo = makeRepo({ 'a.txt': lines(30) });
    const id = stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
    const run = await unread(repo, args(id));
    assert.deepEqual(run, { code: 0, stderr: '' });
  });

test('confirm to a closed reader still applies the change, and exits 0', async () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const id = stageWrite(repo, 'a.txt', lines(30, 'rewritten'));
  const run = await unread(repo, ['confirm', id]);
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /EPIPE|\n\s+at /);
  assert.equal(readFileSync(join(repo.dir, 'a.txt'), 'utf8'), lines(30, 'rewritten'));
  assert.deepEqual(statusJson(repo).pending, []);
});
