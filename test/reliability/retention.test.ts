// Retention runs after every write; it must never drop the record of a write whose tool call has not come back
// (a PreToolUse answered, the person still looking at the permission prompt): those previous bytes are in no
// other record.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writePayload } from '../helpers/cli';
import { count, repoWith, reportAs, scenario, show, spawnFettle, text } from './harness';
import { expectOutcome } from './invariants';

reportAs('retention');

scenario('a write waiting at a permission prompt keeps its record through retention by count', undefined, async () => {
  const repo = repoWith({
    'waiting.txt': text(20, 'head'),
    ...Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`f${n}.txt`, text(20, `f${n}`)])),
  });
  const previous = text(20, 'dirty'); // only on disk: if its record goes, these bytes are gone
  repo.write('waiting.txt', previous);
  repo.env.FETTLE_HISTORY_MAX_COUNT = '3';
  const hook = (event: 'PreToolUse' | 'PostToolUse', file: string, content: string, toolUseId: string) =>
    spawnFettle(['hook'], {
      cwd: repo.dir,
      env: repo.env,
      input: JSON.stringify(writePayload({ file: repo.path(file), content, cwd: repo.dir, event, toolUseId })),
    });
  const next = previous.replace('dirty 1\n', 'dirty 1 edited\n');
  const pre = await hook('PreToolUse', 'waiting.txt', next, 'toolu_waiting');
  expectOutcome(pre, { exit: [0], hook: true });
  // Five other writes complete while the prompt is open; each runs retention with a limit of three.
  for (const n of [1, 2, 3, 4, 5]) {
    const content = text(20, `f${n}`).replace(`f${n} 1\n`, `f${n} 1 edited\n`);
    expectOutcome(await hook('PreToolUse', `f${n}.txt`, content, `toolu_${n}`), { exit: [0], hook: true });
    repo.write(`f${n}.txt`, content);
    expectOutcome(await hook('PostToolUse', `f${n}.txt`, content, `toolu_${n}`), { exit: [0], hook: true });
    count('writes');
  }
  // The person allows it: the tool writes, PostToolUse reports.
  repo.write('waiting.txt', next);
  const post = await hook('PostToolUse', 'waiting.txt', next, 'toolu_waiting');
  expectOutcome(post, { exit: [0], hook: true });
  const id = /as ([0-9a-z]{8})/.exec(post.stdout)?.[1];
  assert.ok(id, `PostToolUse found the record PreToolUse made\n${show(post)}`);
  const back = await spawnFettle(['rollback', id], { cwd: repo.dir, env: repo.env });
  expectOutcome(back, { exit: [0] });
  assert.equal(readFileSync(repo.path('waiting.txt'), 'utf8'), previous, show(back));
});

scenario('a write waiting at a permission prompt keeps its record through retention by age', undefined, async () => {
  const repo = repoWith({ 'waiting.txt': text(20, 'head'), 'other.txt': text(20, 'other') });
  const previous = text(20, 'dirty'); // only on disk: if its record goes, these bytes are gone
  repo.write('waiting.txt', previous);
  repo.env.FETTLE_HISTORY_MAX_AGE = '2';
  const T0 = 1_750_000_000;
  const hook = (event: 'PreToolUse' | 'PostToolUse', file: string, content: string, toolUseId: string, at: number) =>
    spawnFettle(['hook'], {
      cwd: repo.dir,
      env: { ...repo.env, FETTLE_NOW: String(at) },
      input: JSON.stringify(writePayload({ file: repo.path(file), content, cwd: repo.dir, event, toolUseId })),
    });
  const next = previous.replace('dirty 1\n', 'dirty 1 edited\n');
  expectOutcome(await hook('PreToolUse', 'waiting.txt', next, 'toolu_waiting', T0), { exit: [0], hook: true });
  // The prompt stays open 3 s; another write completes meanwhile and runs retention, past the maximum age.
  const other = text(20, 'other').replace('other 1\n', 'other 1 edited\n');
  expectOutcome(await hook('PreToolUse', 'other.txt', other, 'toolu_other', T0 + 3), { exit: [0], hook: true });
  repo.write('other.txt', other);
  expectOutcome(await hook('PostToolUse', 'other.txt', other, 'toolu_other', T0 + 3), { exit: [0], hook: true });
  count('writes');
  repo.write('waiting.txt', next);
  const post = await hook('PostToolUse', 'waiting.txt', next, 'toolu_waiting', T0 + 3);
  expectOutcome(post, { exit: [0], hook: true });
  const id = /as ([0-9a-z]{8})/.exec(post.stdout)?.[1];
  assert.ok(id, `PostToolUse found the record PreToolUse made\n${show(post)}`);
  const back = await spawnFettle(['rollback', id], { cwd: repo.dir, env: { ...repo.env, FETTLE_NOW: String(T0 + 3) } });
  expectOutcome(back, { exit: [0] });
  assert.equal(readFileSync(repo.path('waiting.txt'), 'utf8'), previous, show(back));
});

scenario(
  'retention removes strictly oldest first over many writes made within the same seconds',
  undefined,
  async () => {
    // Sequential writes land several per second: by the commits' one-second times they tie, and retention once
    // removed a newer change than one it kept. Each write's id is noted in the order it was made.
    const repo = repoWith({ 'a.txt': text(20, 'v0') });
    repo.env.FETTLE_HISTORY_MAX_COUNT = '5';
    const made: string[] = [];
    for (let n = 1; n <= 30; n++) {
      const r = await spawnFettle(['write', 'a.txt'], {
        cwd: repo.dir,
        env: repo.env,
        input: text(20, 'v0').replace('v0 1\n', `v0 1 edit ${n}\n`),
      });
      expectOutcome(r, { exit: [0] });
      made.push(/as ([0-9a-z]{8})/.exec(r.stdout)?.[1] ?? assert.fail(show(r)));
      count('writes');
      // After each write (and its retention step), what is kept is exactly the newest ones.
      const refs = spawnSync('git', ['for-each-ref', '--format=%(refname:lstrip=2)', 'refs/fettle/'], {
        cwd: repo.dir,
        encoding: 'utf8',
      });
      const kept = new Set(refs.stdout.split('\n').filter(Boolean));
      const newest = made.slice(-5);
      assert.deepEqual(
        made.filter((id) => kept.has(id)),
        newest,
        `after write ${n}: kept ${[...kept].join(' ')}`,
      );
    }
  },
);
