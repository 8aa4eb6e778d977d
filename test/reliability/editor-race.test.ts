// A person's editor saves the file while `confirm` or `rollback` is replacing it. Whatever the person saved must
// end up on disk or in fettle's history, never only in an inode fettle's rename unlinked. The window is widened
// with a sleep failpoint at each step of the replace; the editor saves in place (same inode, as `vim` with
// backupcopy=yes does) or by renaming a temp file over the path (as most editors do).
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Repo } from '../helpers/repo';
import { count, repoWith, reportAs, scenario, show, spawnFettle, text, type Proc } from './harness';
import { expectOutcome } from './invariants';

reportAs('editor-race');

const OLD = text(30, 'old');
const LARGE = text(30, 'large');
const SMALL = OLD.replace('old 2\n', 'old 2 small\n');
const SAVED = OLD.replace('old 30\n', 'old 30 saved by the person\n');

type Save = 'in place' | 'by rename';
const save = (repo: Repo, how: Save): void => {
  if (how === 'in place') writeFileSync(repo.path('a.txt'), SAVED);
  else {
    writeFileSync(repo.path('.a.txt.swp'), SAVED);
    renameSync(repo.path('.a.txt.swp'), repo.path('a.txt'));
  }
};

/** Whether `bytes` are a blob some fettle ref reaches. */
const inHistory = (repo: Repo, bytes: string): boolean => {
  const git = (args: string[], input?: string) =>
    spawnSync('git', args, { cwd: repo.dir, input, encoding: 'utf8', env: repo.env }).stdout.trim();
  const oid = git(['hash-object', '--stdin'], bytes);
  const objects = git(['rev-list', '--objects', '--glob=refs/fettle/*', '--glob=refs/fettle-discarded/*']);
  return objects.split('\n').some((line) => line.startsWith(oid));
};

const run = (repo: Repo, args: string[], failpoints?: string, input?: string): Promise<Proc> =>
  spawnFettle(args, { cwd: repo.dir, env: repo.env, failpoints, input });

/** Runs `args` with `point` stalled for 400 ms; the "editor" saves once fettle's temp file exists (the window). */
const raceEditor = async (repo: Repo, args: string[], point: string, how: Save): Promise<Proc> => {
  let done = false;
  const op = run(repo, args, `${point}=sleep:400`).finally(() => {
    done = true;
  });
  const inWindow = () => readdirSync(repo.dir).some((name) => name.startsWith('.a.txt.fettle-'));
  while (!done && !inWindow()) await new Promise((r) => setTimeout(r, 5));
  assert.ok(!done, 'fettle finished before replacing the file: the race was not run');
  await new Promise((r) => setTimeout(r, 50));
  save(repo, how);
  const r = await op;
  count('editorSaves');
  return r;
};

const kept = (repo: Repo, r: Proc): void => {
  expectOutcome(r, { exit: [0, 5] });
  const disk = readFileSync(repo.path('a.txt'), 'utf8');
  assert.ok(disk === SAVED || inHistory(repo, SAVED), `the person's save was lost\n${show(r)}`);
  if (r.code === 5) {
    assert.equal(disk, SAVED, `a refused replace leaves the person's bytes on disk\n${show(r)}`);
    assert.match(r.stderr, /changed while fettle was writing it/, show(r));
  }
};

const fresh = (): Repo => repoWith({ 'a.txt': OLD });

for (const point of ['replace.temp-synced', 'replace.checked']) {
  for (const how of ['in place', 'by rename'] as const) {
    scenario(`confirm: an editor save ${how} during ${point} is kept on disk or in history`, undefined, async () => {
      const repo = fresh();
      const staged = await run(repo, ['write', 'a.txt'], undefined, LARGE);
      const id = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1];
      assert.ok(id, show(staged));
      kept(repo, await raceEditor(repo, ['confirm', id], point, how));
    });

    scenario(`rollback: an editor save ${how} during ${point} is kept on disk or in history`, undefined, async () => {
      const repo = fresh();
      const direct = await run(repo, ['write', 'a.txt'], undefined, SMALL);
      const id = /as ([0-9a-z]{8}); undo with/.exec(direct.stdout)?.[1];
      assert.ok(id, show(direct));
      kept(repo, await raceEditor(repo, ['rollback', id], point, how));
    });
  }
}
