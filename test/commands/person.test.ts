// Who counts as a person, for what only a person may do (FETTLE_REVIEW=human, a change the agent asked a person
// about, confirm --expired): a command with no agent's mark in its environment, no agent's process above it, and a
// terminal on stdin and stdout. Dropping the mark (`env -u CLAUDECODE`) leaves the agent's process above the
// command; leaving the terminal out leaves a command fettle cannot tell from a detached agent's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, literal } from '../helpers/cli';
import { runInTerminal } from '../helpers/pty';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { errorLine, fettle, kinds, ok, stageWrite, T0 } from '../helpers/stage';

const HUMAN = { FETTLE_REVIEW: 'human' };
const BASE = lines(30);
const PROPOSAL = lines(30, 'new');

const staged = (env: Record<string, string> = HUMAN): { repo: Repo; id: string } => {
  const repo = makeRepo({ 'a.txt': BASE });
  return { repo, id: stageWrite(repo, 'a.txt', PROPOSAL, { env }) };
};

/**
 * An agent as the system lists it: node under the name `claude` (a link, so the kernel names the process so),
 * running a script that runs `command` as its child, as an agent's shell tool does.
 */
const underAgent = (command: string[]): string[] => {
  const dir = tempDir('fettle-agent-');
  symlinkSync(process.execPath, join(dir, 'claude'));
  const script = join(dir, 'tool.js');
  writeFileSync(
    script,
    "const r = require('node:child_process').spawnSync(process.argv[2], process.argv.slice(3), { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n",
  );
  return [join(dir, 'claude'), script, ...command];
};

const untouched = (repo: Repo, id: string) => {
  assert.equal(repo.read('a.txt').toString(), BASE, 'nothing was written');
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
};

const UNDER_CLAUDE = (id: string) =>
  new RegExp(
    `^Change ${id} to a\\.txt needs a person's approval \\(FETTLE_REVIEW=human is set\\), and this command runs under Claude Code \\(process \\d+, claude\\)\\. Nothing was written\\.$`,
  );

test("`env -u CLAUDECODE fettle confirm` under the agent's process, in a terminal it made: refused, exit 1", () => {
  const { repo, id } = staged();
  const env = { ...repo.env, ...HUMAN, FETTLE_NOW: String(T0) };
  const r = runInTerminal(underAgent([process.execPath, CLI, 'confirm', id]), { cwd: repo.dir, env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(errorLine(r), UNDER_CLAUDE(id));
  assert.match(r.stderr, /^A person must run `.* confirm \w{8}` in their own terminal/m);
  untouched(repo, id);
});

test("`env -u CLAUDECODE fettle confirm` under the agent's process, no terminal: refused the same way", () => {
  const { repo, id } = staged();
  const [node, ...args] = underAgent([process.execPath, CLI, 'confirm', id]);
  const r = spawnSync(node as string, args, {
    cwd: repo.dir,
    env: { ...repo.env, ...HUMAN, FETTLE_NOW: String(T0) },
    encoding: 'utf8',
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(errorLine({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }), UNDER_CLAUDE(id));
  untouched(repo, id);
});

test('a confirm with no terminal and no agent above it (a script, or an agent that detached): refused, exit 1', () => {
  const { repo, id } = staged();
  const r = fettle(repo, ['confirm', id], { env: HUMAN });
  assert.equal(r.code, 1);
  assert.equal(
    errorLine(r),
    `Change ${id} to a.txt needs a person's approval (FETTLE_REVIEW=human is set), and this command has no terminal on stdin and stdout, so fettle cannot tell it from an agent's. Nothing was written.`,
  );
  untouched(repo, id);
});

test("a person's terminal applies it, decided by a person", () => {
  const { repo, id } = staged();
  const r = ok(fettle(repo, ['confirm', id], { env: HUMAN, terminal: true }));
  assert.equal(r.stdout, `Applied ${id} to a.txt (+30 -30).\n`);
  assert.equal(repo.read('a.txt').toString(), PROPOSAL);
  assert.match(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`), /^Fettle-Decided-By: person$/m);
});

test("a script's decision is recorded as a script's, not a person's", () => {
  const { repo, id } = staged({});
  ok(fettle(repo, ['confirm', id]));
  assert.match(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`), /^Fettle-Decided-By: script$/m);
  const shown = ok(fettle(repo, ['show', id])).stdout;
  assert.match(
    shown,
    new RegExp(`^Decided: {2}${literal('a fettle command with no terminal and no agent seen')}`, 'm'),
  );
});

// [how confirm applies an expired change]
const expiredRuns: [string, string[]][] = [
  ['confirm --expired', ['--expired']],
  ['confirm --hunks 1 --expired', ['--hunks', '1', '--expired']],
];
for (const [label, args] of expiredRuns)
  test(`${label} from the agent's shell is refused: applying an expired change is a person's`, () => {
    const { repo, id } = staged({});
    const r = fettle(repo, ['confirm', id, ...args], { now: T0 + 601, env: { CLAUDECODE: '1' } });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      errorLine(r),
      /^confirm --expired applies a change past its time to confirm, and only a person may do that; this command runs in Claude Code's shell \(CLAUDECODE=1\)\. Nothing was written\.$/,
    );
    untouched(repo, id);
  });
