// Turns through the built CLI: each UserPromptSubmit starts one (no git process), every change records its turn,
// `log --session` groups by turn, `status` names the current session and turn, and `rollback --turn <n>` puts the
// tree back as it was when turn n began: all or nothing, merging or refusing over a hand edit, undoable.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentWrite, literal, runHook, SELF } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import { errorLine, fettle, keepsUserState, ok } from '../helpers/stage';

const FILES = ['a.txt', 'b.txt', 'c.txt', 'new1.txt', 'new2.txt', 'new3.txt'];
const BASE = lines(40);
const edit = (text: string, n: number, word: string) => text.replace(`line ${n}\n`, `${word} ${n}\n`);
const snapshot = (repo: Repo) =>
  Object.fromEntries(FILES.map((p) => [p, existsSync(repo.path(p)) ? repo.read(p).toString('base64') : null]));

const prompt = (repo: Repo, session: string, env = repo.env) => {
  const r = runHook(
    {
      hook_event_name: 'UserPromptSubmit',
      session_id: session,
      cwd: repo.dir,
      prompt: 'go on',
      transcript_path: '/dev/null',
    },
    { cwd: repo.dir, env },
  );
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], 'a prompt is counted silently');
};

let tool = 0;
const write = (repo: Repo, session: string, file: string, content: string) => {
  const r = agentWrite(
    { file: repo.path(file), content, cwd: repo.dir, session, toolUseId: `toolu_${++tool}` },
    repo.env,
    (p, c) => writeFileSync(p, c),
  );
  assert.deepEqual([r.pre.code, r.post?.code], [0, 0], `${r.pre.stderr}${r.post?.stderr}`);
};

/** Three turns of one session; returns the tree as it was at the end of each. */
const threeTurns = () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE, 'c.txt': BASE });
  const ends: Record<string, string | null>[] = [];
  prompt(repo, 'S');
  write(repo, 'S', 'a.txt', edit(BASE, 1, 'turn1'));
  write(repo, 'S', 'new1.txt', 'one\n');
  ends.push(snapshot(repo));
  prompt(repo, 'S');
  write(repo, 'S', 'a.txt', edit(edit(BASE, 1, 'turn1'), 10, 'turn2'));
  write(repo, 'S', 'b.txt', edit(BASE, 20, 'turn2'));
  write(repo, 'S', 'new2.txt', 'two\n');
  ends.push(snapshot(repo));
  prompt(repo, 'S');
  write(repo, 'S', 'c.txt', edit(BASE, 30, 'turn3'));
  write(repo, 'S', 'a.txt', edit(edit(edit(BASE, 1, 'turn1'), 10, 'turn2'), 39, 'turn3'));
  write(repo, 'S', 'new3.txt', 'three\n');
  ends.push(snapshot(repo));
  return { repo, ends };
};

test('rollback --turn 2 puts the tree back as it was at the end of turn 1, byte for byte; its undo redoes it', () => {
  const { repo, ends } = threeTurns();
  // Run by the agent itself (in its shell): a person's rollback is the person's, in no session (sessions-shared.test.ts).
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', '--turn', '2'], { env: { CLAUDECODE: '1' } })));
  assert.match(r.stdout, /^Rolled back 6 changes of session S since turn 2 began:/);
  assert.deepEqual(snapshot(repo), ends[0]);
  // The agent's session ref shows it: its view is the end of turn 1 again.
  assert.equal(repo.git('diff', '--stat', 'HEAD', 'fettle/sessions/S', '--', 'b.txt', 'c.txt', 'new2.txt'), '');
  const undo =
    new RegExp(`Undo this with \`${literal(SELF)} rollback ([^\`]+)\``).exec(r.stdout)?.[1] ?? assert.fail(r.stdout);
  ok(fettle(repo, ['rollback', ...undo.split(' ')]));
  assert.deepEqual(snapshot(repo), ends[2], 'redone');
});

test('rollback --turn merges a hand edit made in between, or refuses naming the file and changes nothing', () => {
  const { repo, ends } = threeTurns();
  // The user edits b.txt away from the agent's lines: the undo merges around it.
  repo.write('b.txt', edit(edit(BASE, 20, 'turn2'), 2, 'user'));
  ok(fettle(repo, ['rollback', '--turn', '3', '--session', 'S']));
  assert.equal(repo.read('b.txt').toString(), edit(edit(BASE, 20, 'turn2'), 2, 'user'), 'turn 3 never touched b.txt');
  // Over the agent's own line of turn 2: cannot be merged.
  repo.write('b.txt', edit(BASE, 20, 'user'));
  const before = snapshot(repo);
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--turn', '2', '--session', 'S']));
  assert.equal(r.code, 5, r.stdout); // refused: E_CONFLICT
  assert.match(errorLine(r), /b\.txt changed after fettle wrote it/);
  assert.deepEqual(snapshot(repo), before, 'nothing was changed');
  repo.write('b.txt', edit(edit(BASE, 20, 'turn2'), 2, 'user'));
  ok(fettle(repo, ['rollback', '--turn', '2', '--session', 'S']));
  assert.deepEqual({ ...snapshot(repo), 'b.txt': null }, { ...ends[0], 'b.txt': null });
  assert.equal(repo.read('b.txt').toString(), edit(BASE, 2, 'user'), 'merged: the hand edit stays');
});

test('log --session groups the changes by turn; status names the current session and turn', () => {
  const { repo } = threeTurns();
  const log = ok(fettle(repo, ['log', '--session', 'S'])).stdout.split('\n');
  assert.deepEqual(
    log.filter((l) => l.startsWith('Turn')),
    ['Turn 3:', 'Turn 2:', 'Turn 1:'],
  );
  assert.equal(log.indexOf('Turn 2:') - log.indexOf('Turn 3:'), 4, 'three changes in turn 3');
  const json = JSON.parse(ok(fettle(repo, ['log', '--session', 'S', '--json'])).stdout) as {
    changes: { turn: number }[];
  };
  assert.deepEqual(
    json.changes.map((c) => c.turn),
    [3, 3, 3, 2, 2, 2, 1, 1],
  );
  const status = ok(fettle(repo, ['status'])).stdout;
  assert.match(
    status,
    new RegExp(
      `^Session S, turn 3 \\(3 changes so far; undo them with \`${literal(SELF)} rollback --turn 3\`\\)\\.$`,
      'm',
    ),
  );
  assert.deepEqual(JSON.parse(ok(fettle(repo, ['status', '--json'])).stdout).session, { id: 'S', turn: 3 });
});

test('a prompt starts no git process, and the first one is turn 1', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  const marker = join(bin, 'ran');
  writeFileSync(join(bin, 'git'), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
  chmodSync(join(bin, 'git'), 0o755);
  prompt(repo, 'fresh', { ...repo.env, PATH: `${bin}:${repo.env.PATH}` });
  assert.equal(existsSync(marker), false, 'no git');
  write(repo, 'fresh', 'a.txt', edit(BASE, 1, 'x'));
  assert.equal(repo.git('log', '-1', '--format=%(trailers:key=Fettle-Turn,valueonly)', 'fettle/sessions/fresh'), '1');
});

test('a prompt that cannot be counted warns (exit 1) and never blocks the prompt', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const dataDir = join(tempDir(), 'data');
  writeFileSync(dataDir, 'a file where the data directory should be');
  const r = runHook(
    { hook_event_name: 'UserPromptSubmit', session_id: 'S', cwd: repo.dir, prompt: 'hi' },
    { cwd: repo.dir, env: { ...repo.env, FETTLE_DATA_DIR: dataDir } },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^fettle: could not count this prompt as a new turn: .*Writes stay protected/);
});
