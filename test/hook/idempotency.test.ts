// One answer per tool call: a retried PreToolUse, or two fettle hooks answering the same call at once (fettle
// installed both as a plugin and in settings: the client runs both in parallel), record or stage once. And a
// newer proposal for a file the same session has one pending for supersedes it.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hookInBackground, runHook, writePayload, type HookRun, type WriteCall } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { fettle, ok, refOid, statusJson } from '../helpers/stage';
import { directNote, landedText } from '../helpers/tools';

const BASE = lines(40);
const LARGE = lines(40, 'large');
const SMALL = BASE.replace('line 2\n', 'line two\n');

const payload = (repo: Repo, content: string, over: Partial<WriteCall> = {}) =>
  writePayload({ file: repo.path('a.txt'), content, cwd: repo.dir, session: 'S', ...over });

const reasonOf = (r: { stdout: string }): string => {
  try {
    return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput
      .permissionDecisionReason;
  } catch {
    return '';
  }
};

const changeRefs = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle/', 'refs/fettle-discarded/')
    .split('\n')
    .filter((r) => r && !r.startsWith('refs/fettle/sessions/'));

const callsDir = (repo: Repo) => join(repo.dir, '.git', 'fettle', 'calls');
const markers = (repo: Repo): string[] => (existsSync(callsDir(repo)) ? readdirSync(callsDir(repo)) : []);

/** The hook as a separate process, started without waiting: two of these run at the same moment. */
const hookAsync = (repo: Repo, input: unknown): Promise<HookRun> => hookInBackground(repo.dir, input, repo.env);

test('a retried PreToolUse of a large Write returns the same text and leaves one pending change', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const call = payload(repo, LARGE, { toolUseId: 'toolu_retry' });
  const first = runHook(call, { cwd: repo.dir, env: repo.env });
  const id = /Staged change ([0-9a-z]{8})/.exec(reasonOf(first))?.[1];
  assert.ok(id, first.stdout + first.stderr);
  const again = runHook(call, { cwd: repo.dir, env: repo.env });
  assert.equal(again.code, 0);
  assert.equal(again.stdout, first.stdout, 'the same answer, byte for byte');
  assert.deepEqual(changeRefs(repo), [`refs/fettle/${id}`], 'staged once');
  assert.deepEqual(
    statusJson(repo).pending.map((c) => c.id),
    [id],
  );
});

test('a retried PreToolUse of a small Write records once; its PostToolUse removes the marker', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const call = payload(repo, SMALL, { toolUseId: 'toolu_small' });
  const first = runHook(call, { cwd: repo.dir, env: repo.env });
  const again = runHook(call, { cwd: repo.dir, env: repo.env });
  assert.deepEqual([first.code, first.stdout, again.code, again.stdout], [0, '', 0, '']);
  assert.equal(changeRefs(repo).length, 1, 'one before record');
  assert.equal(markers(repo).length, 1, 'the answer is kept for retries');
  writeFileSync(repo.path('a.txt'), SMALL);
  const post = runHook({ ...call, hook_event_name: 'PostToolUse' }, { cwd: repo.dir, env: repo.env });
  const [ref] = changeRefs(repo);
  const note = (JSON.parse(post.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput;
  assert.match(
    note.additionalContext,
    directNote('a.txt', `${landedText(SMALL)}, +1 -1 ~1`, ref?.split('/').pop() ?? ''),
  );
  assert.deepEqual(markers(repo), [], 'the call reported back: its marker is gone');
});

test('installed twice: two hook processes answering one tool call at once stage it once (5 rounds)', async () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE, 'c.txt': BASE, 'd.txt': BASE, 'e.txt': BASE });
  for (const [n, file] of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt'].entries()) {
    const call = payload(repo, LARGE, { file: repo.path(file), toolUseId: `toolu_twice_${n}`, session: `S${n}` });
    const both = await Promise.all([hookAsync(repo, call), hookAsync(repo, call)]);
    assert.deepEqual(
      both.map((r) => r.code),
      [0, 0],
      both.map((r) => r.stderr).join('\n'),
    );
    const ids = both.map((r) => /Staged change ([0-9a-z]{8})/.exec(reasonOf(r))?.[1]).filter(Boolean);
    assert.ok(ids.length >= 1, 'at least one denies with the staged change: the client takes the deny');
    assert.equal(new Set(ids).size, 1, 'both answers, when both answer, name the same change');
    assert.ok(
      both.every((r) => r.stdout === '' || reasonOf(r) !== ''),
      'the other answers nothing, or the same deny',
    );
  }
  assert.equal(statusJson(repo).pending.length, 5, 'one pending change per tool call');
  assert.equal(changeRefs(repo).length, 5);
});

test('installed twice, a small Write: both let it through and one before record is made', async () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const call = payload(repo, SMALL, { toolUseId: 'toolu_twice_small' });
  const both = await Promise.all([hookAsync(repo, call), hookAsync(repo, call)]);
  assert.deepEqual(
    both.map((r) => [r.code, r.stdout]),
    [
      [0, ''],
      [0, ''],
    ],
  );
  assert.equal(changeRefs(repo).length, 1);
});

test('a marker left unanswered by a process that died is taken over: the retry records', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const call = payload(repo, LARGE, { toolUseId: 'toolu_dead' });
  const first = runHook(call, { cwd: repo.dir, env: repo.env });
  const [name] = markers(repo);
  assert.ok(name);
  // As a PreToolUse killed after claiming the call would leave it: its pid, no answer.
  writeFileSync(join(callsDir(repo), name), JSON.stringify({ pid: 2 ** 22 + 12345 }));
  ok(fettle(repo, ['discard', '--all']));
  const again = runHook(call, { cwd: repo.dir, env: repo.env });
  const id = /Staged change ([0-9a-z]{8})/.exec(reasonOf(again))?.[1];
  assert.ok(id && !first.stdout.includes(id), 'staged anew');
});

test('two different large Writes to one file in one session leave one pending (the newer); the older is superseded', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const first = runHook(payload(repo, LARGE, { toolUseId: 'toolu_one' }), { cwd: repo.dir, env: repo.env });
  const older = /Staged change ([0-9a-z]{8})/.exec(reasonOf(first))?.[1] as string;
  const second = runHook(payload(repo, lines(40, 'again'), { toolUseId: 'toolu_two' }), {
    cwd: repo.dir,
    env: repo.env,
  });
  const newer = /Staged change ([0-9a-z]{8})/.exec(reasonOf(second))?.[1] as string;
  assert.ok(older && newer && older !== newer);
  assert.match(
    reasonOf(second),
    new RegExp(`^It replaces staged change ${older}, which is dropped: only ${newer} is pending\\.$`, 'm'),
  );
  assert.deepEqual(
    statusJson(repo).pending.map((c) => c.id),
    [newer],
  );
  assert.equal(refOid(repo, `refs/fettle/${older}`), null);
  const marker = `refs/fettle-discarded/${older}`;
  assert.equal(repo.git('log', '-1', '--format=%(trailers:key=Fettle-Superseded-By,valueonly)', marker).trim(), newer);
  assert.match(ok(fettle(repo, ['log'])).stdout, new RegExp(`^${older} .* superseded by ${newer} +model$`, 'm'));
  // Confirming the newer one works and writes its bytes.
  ok(fettle(repo, ['confirm', newer]));
  assert.equal(repo.read('a.txt').toString(), lines(40, 'again'));
});

test('proposals of two sessions for one file do not supersede each other; a decided one is not superseded', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const hook = (content: string, session: string, toolUseId: string) =>
    /Staged change ([0-9a-z]{8})/.exec(
      reasonOf(runHook(payload(repo, content, { session, toolUseId }), { cwd: repo.dir, env: repo.env })),
    )?.[1] as string;
  const one = hook(LARGE, 'one', 'toolu_s1');
  const two = hook(lines(40, 'two'), 'two', 'toolu_s2');
  assert.deepEqual(
    statusJson(repo)
      .pending.map((c) => c.id)
      .sort(),
    [one, two].sort(),
  );
  ok(fettle(repo, ['discard', one]));
  const three = hook(lines(40, 'three'), 'one', 'toolu_s3');
  assert.deepEqual(
    statusJson(repo)
      .pending.map((c) => c.id)
      .sort(),
    [two, three].sort(),
  );
  assert.equal(
    repo
      .git('log', '-1', '--format=%(trailers:key=Fettle-Superseded-By,valueonly)', `refs/fettle-discarded/${one}`)
      .trim(),
    '',
    'discarded by the person, not superseded',
  );
});

test('the end of a turn removes the session answers; gc removes old ones', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE });
  runHook(payload(repo, LARGE, { toolUseId: 'toolu_turn' }), { cwd: repo.dir, env: repo.env });
  runHook(payload(repo, LARGE, { file: repo.path('b.txt'), toolUseId: 'toolu_other', session: 'other' }), {
    cwd: repo.dir,
    env: repo.env,
  });
  assert.equal(markers(repo).length, 2);
  const stop = { session_id: 'S', hook_event_name: 'Stop', cwd: repo.dir, transcript_path: '/dev/null' };
  assert.equal(runHook(stop, { cwd: repo.dir, env: repo.env }).code, 0);
  assert.equal(markers(repo).length, 1, "the other session's answer stays");
  const dry = JSON.parse(ok(fettle(repo, ['gc', '--json', '--dry-run'])).stdout) as { bookkeeping: string[] };
  assert.deepEqual(dry.bookkeeping, [], 'a fresh answer is kept');
  const later = Math.floor(Date.now() / 1000) + 2 * 3600;
  const r = JSON.parse(ok(fettle(repo, ['gc', '--json'], { now: later })).stdout) as { bookkeeping: string[] };
  assert.equal(r.bookkeeping.filter((n) => n.endsWith('.json')).length >= 1, true);
  assert.deepEqual(markers(repo), []);
});
