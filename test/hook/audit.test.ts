// FETTLE_AUDIT=1: every hook decision, pass-throughs included, is one JSON line in .git/fettle/audit.jsonl, the
// file rotated at 1 MiB with 5 kept; without the variable nothing is written; a log that cannot be written never
// fails the call.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { lines, type Repo } from '../helpers/repo';
import { editInput, hook, hso, payload, scenario, show, toolCall, type Env } from '../helpers/tools';
import { runHook } from '../helpers/cli';
import { T0 } from '../helpers/stage';

const AUDIT: Env = { FETTLE_AUDIT: '1' };
const log = (repo: Repo): Record<string, unknown>[] =>
  readFileSync(repo.path('.git/fettle/audit.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const pick = (e: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, e[k] ?? null]));
const KEYS = ['event', 'tool', 'answer', 'exit', 'decision'];

scenario(
  'every hook call is one line: direct, staged, blocked, a tool fettle does not handle, and plan mode',
  { 'a.txt': lines(30) },
  (repo) => {
    repo.write(
      '.fettle/policy.json',
      JSON.stringify({ version: 1, rules: [{ name: 'env', path: '.env', action: 'block', message: 'No.' }] }),
    );
    const small = editInput(repo.path('a.txt'), 'line 3\n', 'three\n');
    const run = toolCall(
      repo,
      'Edit',
      small,
      () => writeFileSync(repo.path('a.txt'), lines(30).replace('line 3\n', 'three\n')),
      { env: AUDIT },
    );
    assert.ok(run.ran, show(run.pre));
    hook(repo, 'Edit', editInput(repo.path('a.txt'), `three\n${lines(12, 'line', 4)}`, lines(13, 'X')), {
      env: AUDIT,
      toolUseId: 't2',
    });
    hook(repo, 'Write', { file_path: repo.path('.env'), content: 'K=1\n' }, { env: AUDIT, toolUseId: 't3' });
    runHook(
      { ...payload(repo, 'Bash', { command: 'ls' }, { toolUseId: 't4' }) },
      { cwd: repo.dir, env: { ...repo.env, ...AUDIT, FETTLE_NOW: String(T0) } },
    );
    hook(repo, 'Write', { file_path: repo.path('a.txt'), content: 'x' }, { env: AUDIT, mode: 'plan', toolUseId: 't5' });
    const entries = log(repo);
    assert.deepEqual(
      entries.map((e) => pick(e, KEYS)),
      [
        { event: 'PreToolUse', tool: 'Edit', answer: 'pass', exit: 0, decision: 'pass' },
        { event: 'PostToolUse', tool: 'Edit', answer: 'context', exit: 0, decision: 'recorded' },
        { event: 'PreToolUse', tool: 'Edit', answer: 'deny', exit: 0, decision: 'staged' },
        { event: 'PreToolUse', tool: 'Write', answer: 'deny', exit: 0, decision: 'blocked' },
        { event: 'PreToolUse', tool: 'Bash', answer: 'pass', exit: 0, decision: 'passed-through' },
        { event: 'PreToolUse', tool: 'Write', answer: 'pass', exit: 0, decision: 'passed-through' },
      ],
    );
    const [pre, post, staged, blocked] = entries as Record<string, unknown>[];
    assert.match(String(pre?.id), /^[0-9a-z]{8}$/);
    assert.equal(post?.id, pre?.id, 'Pre and Post of one call name the same change');
    assert.deepEqual(pick(pre ?? {}, ['file', 'session', 'toolUse', 'mode', 'time']), {
      file: repo.path('a.txt'),
      session: 'session-1',
      toolUse: 'toolu_01',
      mode: 'acceptEdits',
      time: new Date(T0 * 1000).toISOString(),
    });
    assert.deepEqual(pick(staged ?? {}, ['review', 'reason']), { review: 'model', reason: 'ratio' });
    assert.equal(blocked?.rule, 'policy:env');
    assert.equal(statSync(repo.path('.git/fettle/audit.jsonl')).mode & 0o777, 0o600, "the log is the user's alone");
  },
);

scenario('without FETTLE_AUDIT nothing is logged', { 'a.txt': lines(30) }, (repo) => {
  hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line 3\n', 'three\n'));
  assert.equal(existsSync(repo.path('.git/fettle/audit.jsonl')), false);
});

scenario(
  'FETTLE_AUDIT with another value than 0 or 1 is a configuration error naming it',
  { 'a.txt': lines(30) },
  (repo) => {
    const r = hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line 3\n', 'three\n'), {
      env: { FETTLE_AUDIT: 'yes' },
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /FETTLE_AUDIT must be '1' or '0', got 'yes'\./);
  },
);

scenario('the log is rotated at 1 MiB and 5 rotated files are kept', { 'a.txt': lines(30) }, (repo) => {
  const dir = repo.path('.git/fettle');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/audit.jsonl`, `${'{"old":true}\n'.repeat(Math.ceil((1024 * 1024) / 13))}`);
  for (let n = 1; n <= 5; n++) writeFileSync(`${dir}/audit.${n}.jsonl`, `{"rotated":${n}}\n`);
  hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line 3\n', 'three\n'), { env: AUDIT });
  assert.equal(existsSync(`${dir}/audit.jsonl`), false, 'the full log was rotated');
  assert.ok(statSync(`${dir}/audit.1.jsonl`).size >= 1024 * 1024, 'it is audit.1 now, with the last line appended');
  assert.match(readFileSync(`${dir}/audit.1.jsonl`, 'utf8'), /"event":"PreToolUse"[^\n]*\n$/);
  assert.equal(readFileSync(`${dir}/audit.2.jsonl`, 'utf8'), '{"rotated":1}\n');
  assert.equal(readFileSync(`${dir}/audit.5.jsonl`, 'utf8'), '{"rotated":4}\n', 'the oldest one went');
  assert.equal(existsSync(`${dir}/audit.6.jsonl`), false);
  hook(repo, 'Edit', editInput(repo.path('a.txt'), 'line 4\n', 'four\n'), { env: AUDIT, toolUseId: 't2' });
  assert.equal(log(repo).length, 1, 'a fresh log starts');
});

scenario('a log that cannot be written never fails the write', { 'a.txt': lines(30) }, (repo) => {
  mkdirSync(repo.path('.git/fettle/audit.jsonl'), { recursive: true });
  const big = hook(repo, 'Edit', editInput(repo.path('a.txt'), lines(15).slice(0, -1), lines(15, 'X').slice(0, -1)), {
    env: AUDIT,
  });
  assert.equal(hso(big)?.permissionDecision, 'deny', show(big));
  assert.equal(big.stderr, '');
  rmSync(repo.path('.git/fettle/audit.jsonl'), { recursive: true });
});
