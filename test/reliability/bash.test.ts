// Bash commands at the same time as other Bash commands and as a person's edits: attribution may be ambiguous
// (the record says so), bytes are never lost. Every version a file held before a command is reachable from
// fettle's refs afterwards, the user's state is untouched, and rolling the commands back restores the start.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { bashPayload, fettleIn, shell } from '../helpers/bash';
import type { Repo } from '../helpers/repo';
import {
  count,
  hookJson,
  pool,
  repoWith,
  reportAs,
  scenario,
  show,
  spawnFettle,
  STRESS,
  text,
  type Proc,
} from './harness';
import { checkInvariants, expectOutcome, userState } from './invariants';

reportAs('bash');

const hook = async (repo: Repo, c: Parameters<typeof bashPayload>[0]): Promise<Proc> => {
  const p = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: JSON.stringify(bashPayload(c)) });
  count('hookRuns');
  expectOutcome(p, { exit: [0], hook: true });
  return p;
};
const lineOf = (p: Proc): string => hookJson(p)?.hookSpecificOutput?.additionalContext ?? '';

scenario(
  'two sessions’ Bash calls overlap: both records say so, no byte is lost, both roll back to the start',
  undefined,
  async () => {
    const repo = repoWith({ 'a.txt': text(5, 'a'), 'b.txt': text(5, 'b') });
    repo.write('a.txt', text(5, 'a dirty')); // bytes only on disk
    repo.write('u.txt', text(3, 'untracked'));
    const start = {
      a: readFileSync(repo.path('a.txt')),
      b: readFileSync(repo.path('b.txt')),
      u: readFileSync(repo.path('u.txt')),
    };
    const before = userState(repo);
    const A = { command: 'echo A >> a.txt && rm u.txt', cwd: repo.dir, session: 'sess-A', toolUseId: 'toolu_A' };
    const B = { command: 'echo B >> b.txt', cwd: repo.dir, session: 'sess-B', toolUseId: 'toolu_B' };
    await hook(repo, { ...A, event: 'PreToolUse' });
    await hook(repo, { ...B, event: 'PreToolUse' });
    shell(A.command, repo.dir, repo.env);
    shell(B.command, repo.dir, repo.env);
    const postA = await hook(repo, { ...A, event: 'PostToolUse' });
    const postB = await hook(repo, { ...B, event: 'PostToolUse' });
    for (const p of [postA, postB]) assert.match(lineOf(p), /another Bash call ran at the same time/, show(p));
    const setA = /rollback ([0-9a-z]{8})$/.exec(lineOf(postA))?.[1] as string;
    const setB = /rollback ([0-9a-z]{8})$/.exec(lineOf(postB))?.[1] as string;
    const shown = fettleIn(repo, 'show', setA).stdout;
    assert.match(shown, /a\.txt/);
    const row = (
      JSON.parse(fettleIn(repo, 'log', '--json').stdout) as { changes: { id: string; changeset: string }[] }
    ).changes.find((c) => c.changeset === setA);
    assert.match(
      fettleIn(repo, 'show', row?.id as string).stdout,
      /Another Bash call ran in this repository at the same time \(session sess-B, tool use toolu_B\)/,
    );
    checkInvariants(repo, before, { owed: [start.a, start.b, start.u] });
    // Each command's record holds what the other session wrote meanwhile: one alone would take the other's work.
    const alone = fettleIn(repo, 'rollback', setA);
    assert.equal(alone.code, 5, alone.stderr);
    assert.match(alone.stderr, /holds what session sess-B \(change [0-9a-z]{8}\) wrote while the command/);
    // Both at once take nobody else's.
    const both = fettleIn(repo, 'rollback', setA, setB);
    assert.equal(both.code, 0, both.stderr);
    assert.deepEqual(
      [readFileSync(repo.path('a.txt')), readFileSync(repo.path('b.txt')), readFileSync(repo.path('u.txt'))],
      [start.a, start.b, start.u],
    );
  },
);

scenario(
  'a person saves a file while a command runs: recorded with the command, their bytes and the earlier ones kept',
  undefined,
  async () => {
    const repo = repoWith({ 'p.txt': text(4, 'committed') });
    repo.write('p.txt', text(4, 'the person, earlier'));
    const earlier = readFileSync(repo.path('p.txt'));
    const before = userState(repo);
    const call = { command: 'echo built > out.txt', cwd: repo.dir, toolUseId: 'toolu_person' };
    await hook(repo, { ...call, event: 'PreToolUse' });
    shell(call.command, repo.dir, repo.env);
    writeFileSync(repo.path('p.txt'), text(4, 'the person, during the command'));
    const saved = readFileSync(repo.path('p.txt'));
    const post = await hook(repo, { ...call, event: 'PostToolUse' });
    assert.match(lineOf(post), /2 files changed by this command/);
    checkInvariants(repo, before, { owed: [earlier, saved] });
    const set = /rollback ([0-9a-z]{8})$/.exec(lineOf(post))?.[1] as string;
    assert.equal(fettleIn(repo, 'rollback', set).code, 0);
    assert.deepEqual(readFileSync(repo.path('p.txt')), earlier);
    checkInvariants(repo, before, { owed: [earlier, saved] });
  },
);

scenario(
  `six sessions run Bash commands at once, ${3 * STRESS} rounds: every earlier version stays reachable`,
  undefined,
  async () => {
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, n) => [`s${n}.txt`, text(3, `start ${n}`)]));
    const repo = repoWith(files);
    const before = userState(repo);
    const owed: Buffer[] = [];
    for (let round = 0; round < 3 * STRESS; round++) {
      await pool(
        6,
        Array.from({ length: 6 }, (_, n) => async () => {
          const file = `s${n}.txt`;
          owed.push(readFileSync(repo.path(file)));
          const call = {
            command: `echo round-${round} >> ${file}`,
            cwd: repo.dir,
            session: `sess-${n}`,
            toolUseId: `toolu_${round}_${n}`,
          };
          await hook(repo, { ...call, event: 'PreToolUse' });
          shell(call.command, repo.dir, repo.env);
          const post = await hook(repo, { ...call, event: 'PostToolUse' });
          assert.match(lineOf(post), new RegExp(`s${n}\\.txt|files changed`), show(post));
        }),
      );
    }
    checkInvariants(repo, before, { owed });
  },
);
