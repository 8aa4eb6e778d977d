// The last write of a headless session: `claude -p` exits right after the model's last answer and cancels the
// background PostToolUse, so the record stays open. What landed is on disk: the Stop/SessionEnd hook, and any
// command that meets such a record, settle it from the disk, as PostToolUse would have, but only what the disk
// proves (a record whose call still waits at a permission prompt is open legitimately).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHook } from '../helpers/cli';
import { lines, type Repo } from '../helpers/repo';
import { fettle, kinds, ok, statusJson, T0 } from '../helpers/stage';
import {
  editInput,
  fettleRefs,
  hook,
  hso,
  kindAt,
  newChange,
  scenario,
  show,
  type Env,
  type Input,
} from '../helpers/tools';

const A30 = { 'a.txt': lines(30) };
const OLD = lines(30);
const SMALL = OLD.replace('line 3\n', 'three\n');
const smallEdit = (repo: Repo): Input => editInput(repo.path('a.txt'), 'line 3\n', 'three\n');
const bigEdit = (repo: Repo): Input =>
  editInput(repo.path('a.txt'), lines(15).slice(0, -1), lines(15, 'LINE').slice(0, -1));
const BIG = lines(15, 'LINE') + lines(15, 'line', 16);

const links = (repo: Repo): string[] => {
  const dir = repo.path('.git/fettle/tool-use');
  return existsSync(dir) ? readdirSync(dir) : [];
};

/** A Stop or SessionEnd hook call of `session`, with `transcript` (a file the test wrote) or none. */
const endHook = (
  repo: Repo,
  event: 'Stop' | 'SessionEnd',
  o: { session?: string; transcript?: string; env?: Env } = {},
) =>
  runHook(
    {
      session_id: o.session ?? 'session-1',
      transcript_path: o.transcript ?? '/nonexistent/transcript.jsonl',
      cwd: repo.dir,
      permission_mode: 'default',
      hook_event_name: event,
      ...(event === 'Stop' ? { stop_hook_active: false } : { reason: 'other' }),
    },
    { cwd: repo.dir, env: { ...repo.env, FETTLE_NOW: String(T0), ...o.env } },
  );

/** A transcript whose last turn holds the result of `toolUseId` (the call is over: written, failed or refused). */
const transcriptWith = (repo: Repo, toolUseId: string, text: string): string => {
  const path = join(repo.home, `transcript-${toolUseId}.jsonl`);
  const entries = [
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'Edit' }] } },
    {
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: toolUseId, type: 'tool_result', content: text, is_error: true }],
      },
    },
  ];
  writeFileSync(path, `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return path;
};

const silent = (r: ReturnType<typeof endHook>, what: string) =>
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `${what}: ${show(r)}`);

/** PreToolUse of a small Edit, then the tool's write, and no PostToolUse (cancelled at exit). */
const lastWrite = (repo: Repo): string => {
  const known = fettleRefs(repo);
  assert.deepEqual([hook(repo, 'Edit', smallEdit(repo)).code], [0]);
  writeFileSync(repo.path('a.txt'), SMALL);
  return newChange(repo, known);
};

scenario('without a Stop hook, show settles the last write from the disk, and rollback by id works', A30, (repo) => {
  const id = lastWrite(repo);
  const shown = ok(fettle(repo, ['show', id])).stdout;
  assert.match(shown, /^State: +applied \(direct\)$/m, shown);
  assert.match(shown, /^-line 3$/m);
  assert.match(shown, /^\+three$/m);
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before']);
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}`), /PostToolUse never reported/);
  assert.deepEqual(links(repo), [], 'the link is taken');
  ok(fettle(repo, ['rollback', id]));
  assert.equal(repo.read('a.txt').toString(), OLD);
});

scenario('a link a killed process took is open again: the next command settles its record', A30, (repo) => {
  const id = lastWrite(repo);
  const [name] = links(repo);
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const dir = repo.path('.git/fettle/tool-use');
  renameSync(join(dir, name as string), join(dir, `${name}.${dead}.0badc0de.taken`));
  assert.equal(kindAt(repo, `fettle/${id}`), 'before');
  ok(fettle(repo, ['status']));
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before']);
  assert.deepEqual(links(repo), []);
});

// Seen with the real client (test/e2e/protocol.test.ts): a PostToolUse cancelled after it took the link but
// before it recorded left the record incomplete for good. It keeps the link claimed until it has recorded.
scenario(
  'a PostToolUse killed before it recorded leaves its claim: the next command settles the record',
  A30,
  (repo) => {
    const id = lastWrite(repo);
    const post = hook(repo, 'Edit', smallEdit(repo), {
      event: 'PostToolUse',
      env: { FETTLE_FAILPOINTS: 'after.claimed=kill' },
    });
    assert.notEqual(post.code, 0, 'killed at the failpoint');
    assert.equal(kindAt(repo, `fettle/${id}`), 'before');
    assert.match(links(repo)[0] ?? '', /\.taken$/, 'still claimed, by a process now dead');
    const shown = ok(fettle(repo, ['show', id])).stdout;
    assert.match(shown, /^State: +applied \(direct\)$/m, shown);
    assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before']);
    ok(fettle(repo, ['rollback', id]));
    assert.equal(repo.read('a.txt').toString(), OLD);
  },
);

scenario('without a Stop hook, rollback by path settles and undoes the last write', A30, (repo) => {
  const id = lastWrite(repo);
  assert.match(ok(fettle(repo, ['rollback', 'a.txt'])).stdout, new RegExp(`^Rolled back ${id}: a\\.txt`));
  assert.equal(repo.read('a.txt').toString(), OLD);
});

scenario('status and log settle what the disk proves and leave a write that has not happened open', A30, (repo) => {
  const id = lastWrite(repo);
  const known = fettleRefs(repo);
  hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line 9\n', 'nine\n'), { toolUseId: 'toolu_waiting' });
  const waiting = newChange(repo, known);
  const rows = new Map(statusJson(repo).recent.map((c) => [c.id, c.state]));
  assert.deepEqual([rows.get(id), rows.get(waiting)], ['applied', 'incomplete']);
  ok(fettle(repo, ['log']));
  assert.equal(kindAt(repo, `fettle/${waiting}`), 'before', 'a call that may wait at a prompt stays open');
  assert.match(
    ok(fettle(repo, ['show', waiting])).stdout,
    /the tool call has not reported back; it may wait at a permission prompt/,
  );
  assert.equal(links(repo).length, 1);
});

scenario('Stop settles the session’s last write; a PostToolUse arriving after it stays quiet', A30, (repo) => {
  const id = lastWrite(repo);
  silent(endHook(repo, 'Stop'), 'Stop');
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before']);
  assert.deepEqual(links(repo), []);
  const late = hook(repo, 'Edit', smallEdit(repo), { event: 'PostToolUse' });
  assert.deepEqual([late.code, late.stdout, late.stderr], [0, '', ''], show(late));
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before'], 'recorded once');
});

scenario('Stop leaves other sessions’ records alone', A30, (repo) => {
  const id = lastWrite(repo);
  silent(endHook(repo, 'Stop', { session: 'another-session' }), 'Stop of another session');
  assert.equal(kindAt(repo, `fettle/${id}`), 'before');
  assert.equal(links(repo).length, 1);
});

scenario('Stop with no open record starts no git process', A30, (repo) => {
  // A PATH with `cat` (resident mode's guard reads its input with it) and no git.
  const bin = join(repo.home, 'no-git-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(execFileSync('sh', ['-c', 'command -v cat']).toString().trim(), join(bin, 'cat'));
  const noGit = { PATH: bin };
  silent(endHook(repo, 'Stop', { env: noGit }), 'Stop without git on PATH');
  lastWrite(repo);
  // The same PATH fails once git is needed: the check above would have seen a git process.
  const r = endHook(repo, 'Stop', { env: noGit });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /^fettle: could not settle this session's open records/);
});

scenario('a write that did not happen is dropped only once the call is over', A30, (repo) => {
  const known = fettleRefs(repo);
  hook(repo, 'Edit', smallEdit(repo), { mode: 'dontAsk' }); // the client then refuses it: no tool, no Post
  const id = newChange(repo, known);
  silent(endHook(repo, 'Stop'), 'Stop, no transcript');
  assert.equal(kindAt(repo, `fettle/${id}`), 'before', 'maybe still at a prompt: left open');
  const transcript = transcriptWith(repo, 'toolu_01', 'Permission to use Edit has been denied.');
  silent(endHook(repo, 'Stop', { transcript }), 'Stop, the call ended');
  assert.deepEqual(fettleRefs(repo), [], 'nothing happened, nothing kept');
  assert.deepEqual(links(repo), []);
  assert.equal(repo.read('a.txt').toString(), OLD);
});

scenario('SessionEnd drops a write that never happened: no prompt outlives its session', A30, (repo) => {
  hook(repo, 'Edit', smallEdit(repo), { mode: 'default' });
  silent(endHook(repo, 'SessionEnd'), 'SessionEnd');
  assert.deepEqual(fettleRefs(repo), []);
});

scenario('a change the person denied at the prompt is marked denied at the end of the turn', A30, (repo) => {
  const known = fettleRefs(repo);
  assert.equal(hso(hook(repo, 'Edit', bigEdit(repo), { mode: 'default' }))?.permissionDecision, 'ask');
  const id = newChange(repo, known);
  const transcript = transcriptWith(repo, 'toolu_01', "The user doesn't want to proceed with this tool use.");
  silent(endHook(repo, 'Stop', { transcript }), 'Stop');
  assert.deepEqual(fettleRefs(repo), [`refs/fettle-discarded/${id}`]);
  assert.match(repo.git('log', '-1', '--format=%B', `refs/fettle-discarded/${id}`), /^Denied: /m);
  assert.deepEqual(statusJson(repo).pending, [], 'status no longer offers it');
  const r = fettle(repo, ['confirm', id]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /already discarded/);
  assert.equal(repo.read('a.txt').toString(), OLD);
});

scenario('a change the person allowed, whose PostToolUse was cancelled, is settled as applied', A30, (repo) => {
  const known = fettleRefs(repo);
  hook(repo, 'Edit', bigEdit(repo), { mode: 'default' });
  const id = newChange(repo, known);
  writeFileSync(repo.path('a.txt'), BIG);
  silent(endHook(repo, 'Stop'), 'Stop');
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['applied', 'proposal', 'before']);
  assert.deepEqual(statusJson(repo).pending, []);
});

scenario('an unpredicted result is recorded by a command only once the record is an hour old', A30, (repo) => {
  const known = fettleRefs(repo);
  // An old_string fettle cannot find exactly: it records the previous bytes and lets the tool decide.
  hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line ‘3’', 'x'));
  const id = newChange(repo, known);
  writeFileSync(repo.path('a.txt'), OLD.replace('line 3\n', 'x\n'));
  ok(fettle(repo, ['status']));
  assert.equal(kindAt(repo, `fettle/${id}`), 'before');
  const later = Math.floor(Date.now() / 1000) + 2 * 3600;
  ok(fettle(repo, ['status'], { now: later }));
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before']);
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}`), /^Fettle-Stat: \+1 -1$/m);
});

scenario('Stop never blocks: a failure is reported with exit 1', A30, (repo) => {
  lastWrite(repo);
  const r = endHook(repo, 'Stop', { env: { FETTLE_REVIEW: 'other' } });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /FETTLE_REVIEW must be 'model' or 'human'/);
});

scenario('a command that only reads still lists when settling fails, and says why', A30, (repo) => {
  const id = lastWrite(repo);
  const failing = { env: { FETTLE_FAILPOINTS: 'after.ref-written=throw' } };
  const r = ok(fettle(repo, ['status'], failing));
  assert.match(r.stderr, /^fettle: could not record the result of open records from the disk: /m);
  assert.match(r.stdout, new RegExp(id));
  assert.deepEqual(kinds(repo, `fettle/${id}`), ['after', 'before'], 'recorded before the injected failure');
  ok(fettle(repo, ['gc']));
  assert.deepEqual(links(repo), [], 'the link put back after the failure is stale now: gc takes it');
  ok(fettle(repo, ['rollback', id]));
  assert.equal(repo.read('a.txt').toString(), OLD);
});
