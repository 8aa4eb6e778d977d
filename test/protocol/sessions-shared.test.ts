// Several agent sessions on one tree, and a person beside them: a person's own rollback is the person's, not a change
// of the agent's session; the session a command means is the one the person prompts, not whichever wrote last; and a
// rollback of one session never overwrites what another session (or a person) wrote after it: it merges or refuses,
// naming who and which file (Claude Code #28078: one session's rewind destroyed the other's uncommitted work).
// Tier: slow, end-to-end scenarios of several sessions through the built CLI, some in a terminal (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { bashHook, shell } from '../helpers/bash';
import { agentWrite, literal, runHook, SELF } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { errorLine, fettle, keepsUserState, ok } from '../helpers/stage';

const BASE = lines(40);
const edit = (text: string, n: number, word: string) => text.replace(`line ${n}\n`, `${word} ${n}\n`);

const prompt = (repo: Repo, session: string) => {
  const payload = { hook_event_name: 'UserPromptSubmit', session_id: session, cwd: repo.dir, prompt: 'go on' };
  const r = runHook({ ...payload, transcript_path: '/dev/null' }, { cwd: repo.dir, env: repo.env });
  assert.deepEqual([r.code, r.stderr], [0, ''], 'a prompt is counted');
};

let tool = 0;
const write = (repo: Repo, session: string, file: string, content: string) => {
  const call = { file: repo.path(file), content, cwd: repo.dir, session, toolUseId: `toolu_${++tool}` };
  const r = agentWrite(call, repo.env, (p, c) => writeFileSync(p, c));
  assert.deepEqual([r.pre.code, r.post?.code], [0, 0], `${r.pre.stderr}${r.post?.stderr}`);
};

const trailer = (repo: Repo, ref: string, key: string) =>
  repo.git('log', '-1', `--format=%(trailers:key=${key},valueonly)`, ref).trim();

/** Two turns of session S: a.txt in turn 1, b.txt and a.txt in turn 2. */
const twoTurns = () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE });
  prompt(repo, 'S');
  write(repo, 'S', 'a.txt', edit(BASE, 1, 'turn1'));
  prompt(repo, 'S');
  write(repo, 'S', 'b.txt', edit(BASE, 20, 'turn2'));
  write(repo, 'S', 'a.txt', edit(edit(BASE, 1, 'turn1'), 10, 'turn2'));
  return repo;
};

const statusSession = (repo: Repo) => ok(fettle(repo, ['status'])).stdout.split('\n')[0] ?? '';

test("a person's rollback --turn is the person's: not on the session's ref, not offered again by status", () => {
  const repo = twoTurns();
  const r = keepsUserState(repo, () => ok(fettle(repo, ['rollback', '--turn', '2', '--json'], { terminal: true })));
  const undo = (JSON.parse(r.stdout) as { undo: string[] }).undo[0] ?? assert.fail(r.stdout);
  assert.deepEqual(
    ['Fettle-Decided-By', 'Fettle-Session', 'Fettle-Turn'].map((k) => trailer(repo, `fettle/${undo}`, k)),
    ['person', '', ''],
  );
  assert.equal(trailer(repo, 'fettle/sessions/S', 'Fettle-Event'), 'write', "the session's ref ends at its own write");
  const review = JSON.parse(ok(fettle(repo, ['review', '--session', 'S', '--json'])).stdout) as { changes: number };
  assert.equal(review.changes, 3, "the session's own three changes, not the person's rollbacks");
  assert.equal(statusSession(repo), 'Session S, turn 2 (its 2 changes are rolled back).');
  assert.doesNotMatch(ok(fettle(repo, ['status'])).stdout, /rollback --turn/);
});

test("an agent's own rollback (in its shell) stays a change of its session", () => {
  const repo = twoTurns();
  ok(fettle(repo, ['rollback', '--turn', '2'], { env: { CLAUDECODE: '1' } }));
  assert.equal(trailer(repo, 'fettle/sessions/S', 'Fettle-Event'), 'rollback');
});

test('status and rollback --turn mean the session the person prompts, not one hand-fed write; --session picks', () => {
  const repo = twoTurns();
  write(repo, 'stray', 'c.txt', 'a hand-fed payload\n');
  assert.match(
    statusSession(repo),
    new RegExp(`^Session S, turn 2 \\(2 changes so far; undo them with \`${literal(SELF)} rollback --turn 2\`\\)\\.$`),
  );
  const json = JSON.parse(ok(fettle(repo, ['status', '--json'])).stdout) as { session: unknown };
  assert.deepEqual(json.session, { id: 'S', turn: 2 });
  assert.match(ok(fettle(repo, ['status', '--session', 'stray'])).stdout, /^Session stray \(turns not counted\)\./);
  const r = ok(fettle(repo, ['rollback', '--turn', '2']));
  assert.match(r.stdout, /^Rolled back 2 changes of session S since turn 2 began/);
  assert.equal(repo.read('c.txt').toString(), 'a hand-fed payload\n', "the other session's file is left alone");
});

const FILES = ['f.txt', 'g.txt', 'new.txt'];
const tree = (repo: Repo) => Object.fromEntries(FILES.map((p) => [p, repo.read(p).toString()]));
const idOf = (repo: Repo, session: string, path: string) => {
  const log = JSON.parse(ok(fettle(repo, ['log', '--session', session, '--json'])).stdout) as {
    changes: { id: string; path: string }[];
  };
  return log.changes.find((c) => c.path === path)?.id ?? assert.fail(`no change of ${session} to ${path}`);
};

/**
 * Claude Code #28078: sessions B and A in one tree. B edits f.txt and creates new.txt in its turn 1; A, later, edits
 * f.txt elsewhere, adds to B's new.txt and writes g.txt; a person edits f.txt by hand. None of it is committed.
 */
const twoSessions = () => {
  const repo = makeRepo({ 'f.txt': BASE, 'g.txt': BASE });
  prompt(repo, 'B');
  write(repo, 'B', 'f.txt', edit(BASE, 5, 'B'));
  write(repo, 'B', 'new.txt', 'by B\n');
  prompt(repo, 'A');
  write(repo, 'A', 'f.txt', edit(edit(BASE, 5, 'B'), 30, 'A'));
  write(repo, 'A', 'new.txt', 'by B\nand A\n');
  write(repo, 'A', 'g.txt', edit(BASE, 1, 'A'));
  repo.write('f.txt', edit(edit(edit(BASE, 5, 'B'), 30, 'A'), 38, 'person'));
  return repo;
};

test("#28078: B's rollback --turn refuses over A's later work, naming session A and the file; 0 bytes lost", () => {
  const repo = twoSessions();
  const before = tree(repo);
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--turn', '1', '--session', 'B']));
  assert.equal(r.code, 5, r.stdout); // refused: E_CONFLICT
  assert.match(
    errorLine(r),
    /new\.txt changed after fettle wrote it \(change \w{8}\), by session A \(change \w{8}\), and the file was created or deleted since\. Nothing was changed\.$/,
  );
  assert.deepEqual(tree(repo), before, 'nothing was changed');
  const dry = ok(fettle(repo, ['rollback', '--turn', '1', '--session', 'B', '--dry-run']), 5).stdout;
  assert.match(
    dry,
    /f\.txt {2}\+1 -1 {2}undo the changes, keeping the edits made since by session A \(change \w{8}\) and a person or a program fettle did not record/,
  );
  assert.match(dry, /refused: .*new\.txt changed after fettle wrote it .*, by session A/);
});

test("#28078: B's change undone by id merges around A's and a person's edits, naming both; theirs stay byte for byte", () => {
  const repo = twoSessions();
  const before = tree(repo);
  const id = idOf(repo, 'B', 'f.txt');
  const r = ok(fettle(repo, ['rollback', id]));
  assert.match(
    r.stdout,
    new RegExp(
      `^Rolled back ${id}: f\\.txt: undid the change, keeping the edits made since by session A \\(change \\w{8}\\) and a person or a program fettle did not record\\.`,
    ),
  );
  assert.equal(repo.read('f.txt').toString(), edit(edit(BASE, 30, 'A'), 38, 'person'), "only B's line undone");
  assert.deepEqual({ ...tree(repo), 'f.txt': '' }, { ...before, 'f.txt': '' }, "A's other files untouched");
  const json = JSON.parse(ok(fettle(repo, ['rollback', idOf(repo, 'A', 'g.txt'), '--json'])).stdout) as object;
  assert.equal('by' in json, false, 'a file nobody wrote since names nobody');
});

test('#28078: an undo over the lines another session changed refuses, naming that session and the file', () => {
  const repo = twoSessions();
  write(repo, 'A', 'f.txt', edit(BASE, 5, 'A took over'));
  const before = tree(repo);
  const r = fettle(repo, ['rollback', idOf(repo, 'B', 'f.txt')]);
  assert.equal(r.code, 5, r.stdout);
  assert.match(
    errorLine(r),
    /f\.txt changed after fettle wrote it \(change \w{8}\), by session A \(changes \w{8}, \w{8}\), and undoing it conflicts/,
  );
  assert.deepEqual(tree(repo), before, 'nothing was changed');
});

const noteOf = (repo: Repo, session: string, file: string, content: string) => {
  const call = { file: repo.path(file), content, cwd: repo.dir, session, toolUseId: `toolu_${++tool}` };
  const r = agentWrite(call, repo.env, (p, c) => writeFileSync(p, c));
  assert.equal(r.post?.code, 0, r.post?.stderr);
  return r.post?.json?.hookSpecificOutput?.additionalContext ?? '';
};

test("a session writing over another session's change since it last wrote the file is told which session and when", () => {
  const repo = makeRepo({ 'f.txt': BASE });
  assert.doesNotMatch(noteOf(repo, 'B', 'f.txt', edit(BASE, 5, 'B')), /Note:/);
  const theirs = noteOf(repo, 'A', 'f.txt', edit(edit(BASE, 5, 'B'), 30, 'A'));
  assert.match(
    theirs,
    /Note: another agent session \(B\) changed f\.txt at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(change \w{8}\)/,
  );
  const note = noteOf(repo, 'B', 'f.txt', edit(edit(BASE, 5, 'B2'), 30, 'A'));
  const id = idOf(repo, 'A', 'f.txt');
  assert.match(
    note,
    new RegExp(
      `; undo with: .* rollback \\w{8}\\. Note: another agent session \\(A\\) changed f\\.txt at \\S+Z \\(change ${id}\\) since this session last wrote it; make sure this write kept its work\\.$`,
    ),
  );
  assert.doesNotMatch(noteOf(repo, 'B', 'f.txt', edit(BASE, 5, 'B3')), /Note:/, 'its own bytes: nothing to tell');
  repo.write('f.txt', edit(BASE, 7, 'person'));
  assert.doesNotMatch(noteOf(repo, 'B', 'f.txt', edit(BASE, 7, 'B4')), /Note:/, "a person's edit is no session's");
});

test('sessions lists each session with its agent, turn, changes, pending work and the files it shares', () => {
  const repo = twoSessions();
  const json = JSON.parse(ok(fettle(repo, ['sessions', '--json'])).stdout) as {
    current: string;
    sessions: Record<string, unknown>[];
  };
  assert.equal(json.current, 'A', 'the session prompted last');
  const rows = json.sessions.map(({ session, agent, turn, changes, inEffect, pending, shared, current }) => ({
    session,
    agent,
    turn,
    changes,
    inEffect,
    pending,
    shared,
    current,
  }));
  assert.deepEqual(rows, [
    {
      session: 'A',
      agent: 'claude',
      turn: 1,
      changes: 3,
      inEffect: 3,
      pending: 0,
      current: true,
      shared: [
        { path: 'f.txt', with: ['B'] },
        { path: 'new.txt', with: ['B'] },
      ],
    },
    {
      session: 'B',
      agent: 'claude',
      turn: 1,
      changes: 2,
      inEffect: 2,
      pending: 0,
      current: false,
      shared: [
        { path: 'f.txt', with: ['A'] },
        { path: 'new.txt', with: ['A'] },
      ],
    },
  ]);
  const text = ok(fettle(repo, ['sessions'])).stdout;
  assert.match(text, /^2 agent sessions changed files here; \* marks the one commands act on without --session\.$/m);
  assert.match(text, /^\* A {2}turn 1, 3 changes \(3 in effect\); live, last active .*$/m);
  assert.match(text, /^ {6}shares f\.txt with session B$/m);
});

test("#28078: a file session A wrote while B's shell command ran is A's: undoing B's command refuses over it", () => {
  const repo = makeRepo({ 'f.txt': BASE, 'g.txt': BASE });
  prompt(repo, 'B');
  const call = { command: "printf 'by B\\n' > g.txt", cwd: repo.dir, session: 'B', toolUseId: 'toolu_bash_b' };
  assert.equal(bashHook({ ...call, event: 'PreToolUse' }, repo.env).code, 0);
  write(repo, 'A', 'f.txt', edit(BASE, 3, 'A'));
  assert.equal(shell(call.command, repo.dir, repo.env).status, 0);
  assert.equal(bashHook({ ...call, event: 'PostToolUse' }, repo.env).code, 0);
  const before = { f: repo.read('f.txt').toString(), g: repo.read('g.txt').toString() };
  assert.deepEqual(before, { f: edit(BASE, 3, 'A'), g: 'by B\n' }, 'both landed');
  const r = keepsUserState(repo, () => fettle(repo, ['rollback', '--turn', '1', '--session', 'B']));
  assert.equal(r.code, 5, r.stdout);
  assert.match(
    errorLine(r),
    /f\.txt holds what session A \(change \w{8}\) wrote while the command of change \w{8} ran/,
  );
  assert.deepEqual({ f: repo.read('f.txt').toString(), g: repo.read('g.txt').toString() }, before, 'nothing changed');
});
