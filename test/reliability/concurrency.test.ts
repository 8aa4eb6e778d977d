// B.5 rows 1, 2, 15 and 19: many hook processes at once, on different files and on one file, in two linked
// worktrees of one repository, while the user runs `git gc --prune=now` in a loop. Every process succeeds or
// fails cleanly; no snapshot is lost; no ref is corrupted or moved without its expected old value.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { repoAt, type Repo } from '../helpers/repo';
import {
  agentWrite,
  count,
  repoWith,
  decisionOf,
  edit,
  hostProceeds,
  pool,
  reportAs,
  scenario,
  show,
  spawnArgv,
  spawnFettle,
  spawnHook,
  STRESS,
  text,
  type Proc,
} from './harness';
import { checkInvariants, expectOutcome, userState } from './invariants';

reportAs('concurrency');

const WIDTH = 8;
const ROUNDS = 3 * STRESS;

/** `git gc --prune=now` over and over until stopped, as a user or an IDE might; returns how many completed. */
const gcLoop = (repo: Repo): (() => Promise<number>) => {
  let stop = false;
  let runs = 0;
  let completed = 0;
  const loop = (async () => {
    while (!stop) {
      const r = await spawnArgv(['git', 'gc', '--prune=now', '--quiet'], { cwd: repo.dir, env: repo.env });
      // gc itself refuses to run on a ref to a missing object; the invariants at the end say whether one is left.
      if (r.code !== 0) count('gcFailures');
      else completed++;
      runs++;
    }
  })();
  return async () => {
    stop = true;
    await loop;
    count('gcRuns', runs);
    return completed;
  };
};

const post = (p: Proc | undefined) => p && expectOutcome(p, { exit: [0, 1], hook: true });

/**
 * One agent's Write of `file` through the host, small or large. A large one is denied and then confirmed.
 * Returns the bytes the file holds afterwards. A Pre that blocks (exit 2) is a clean failure.
 */
const write = async (repo: Repo, cwd: string, file: string, content: string): Promise<void> => {
  const run = await agentWrite(
    { file, content, cwd, toolUseId: `toolu_${Math.random().toString(36).slice(2)}` },
    repo.env,
  );
  count('processes', run.post ? 2 : 1);
  expectOutcome(run.pre, { exit: [0, 2], hook: true });
  if (run.pre.code === 2) return failedCleanly(run.pre);
  post(run.post);
  if (decisionOf(run.pre) === 'deny') {
    const id = /\bconfirm ([0-9a-z]{8})\b/.exec(run.pre.stdout)?.[1];
    assert.ok(id, show(run.pre));
    const c = await spawnFettle(['confirm', id], { cwd, env: repo.env });
    count('processes');
    expectOutcome(c, { exit: [0, 1, 5] });
    if (c.code !== 0) failedCleanly(c);
  }
};

/** Why processes failed cleanly, for the diagnostics of each scenario. */
const reasons = new Map<string, number>();
const failedCleanly = (p: Proc): void => {
  count('cleanFailures');
  const why =
    p.stderr
      .split('\n')[0]
      ?.replace(/[0-9a-f]{40}|\b(?=[0-9a-z]*\d)[0-9a-z]{8}\b|\/tmp\/\S+/g, '…')
      .slice(0, 160) ?? '';
  reasons.set(why, (reasons.get(why) ?? 0) + 1);
};
after(() => {
  for (const [why, n] of reasons) process.stdout.write(`# clean failure ×${n}: ${why}\n`);
});

/** Files each written by one agent: every content a file held before its last is owed. */
const historyOf = (files: string[]) => {
  const seen = new Map(files.map((f) => [f, [readFileSync(f)]]));
  return {
    look: () => {
      for (const [f, list] of seen) if (!list[list.length - 1]?.equals(readFileSync(f))) list.push(readFileSync(f));
    },
    owed: () => [...seen.values()].flatMap((list) => list.slice(0, -1)),
  };
};

const dirtyRepo = (names: string[]): Repo => {
  const repo = repoWith(Object.fromEntries(names.map((n) => [n, text(40, `${n} head`)])));
  for (const n of names) repo.write(n, text(40, `${n} dirty`));
  return repo;
};

// Regression: a ref named a commit a concurrent `git gc --prune=now` deleted (1 run in 3, then every run).
// Records were checked after their ref existed, but the commits confirm and discard write were not: prune could
// take them between their writing and the ref naming them. Every new object is now checked once the ref names
// it and any running gc is done, and written again if it went.
const GC_BUG = ', git gc --prune=now looping (regression: commits pruned before their ref named them)';

for (const gc of [false, true])
  scenario(`${WIDTH} agents on ${WIDTH} different files × ${ROUNDS} rounds${gc ? GC_BUG : ''}`, undefined, async () => {
    const names = Array.from({ length: WIDTH }, (_, i) => `src/f${i}.txt`);
    const repo = dirtyRepo(names);
    const before = userState(repo);
    const files = names.map((n) => repo.path(n));
    const history = historyOf(files);
    const stopGc = gc ? gcLoop(repo) : async () => -1;
    for (let r = 0; r < ROUNDS; r++) {
      // Every third round rewrites whole files, so they are staged and then confirmed concurrently.
      const large = r % 3 === 2;
      await Promise.all(
        files.map((f, i) =>
          write(repo, repo.dir, f, large ? text(40, `f${i} r${r}`) : edit(readFileSync(f, 'utf8'), 2, `r${r}`)),
        ),
      );
      history.look();
      count('rounds');
    }
    // Without a single completed gc, the scenario would quietly be its gc-less twin.
    assert.notEqual(await stopGc(), 0, 'git gc --prune=now completed at least once meanwhile');
    checkInvariants(repo, before, { owed: history.owed(), litter: 'none' });
  });

scenario(
  `${WIDTH} \`fettle write\` processes on one file × ${ROUNDS} rounds: serialized, nothing lost`,
  undefined,
  async () => {
    const repo = dirtyRepo(['shared.txt']);
    const before = userState(repo);
    const file = repo.path('shared.txt');
    const base = readFileSync(file, 'utf8').split('\n');
    const written: Buffer[] = [readFileSync(file)];
    for (let r = 0; r < ROUNDS; r++) {
      // Writer w changes only its own line, so any two versions differ by a few lines: always direct.
      const contents = Array.from({ length: WIDTH }, (_, w) =>
        base.map((l, i) => (i === w * 4 ? `${l} w${w} r${r}` : l)).join('\n'),
      );
      const runs = await Promise.all(
        contents.map((c) => spawnFettle(['write', 'shared.txt'], { cwd: repo.dir, env: repo.env, input: c })),
      );
      count('processes', runs.length);
      runs.forEach((p, w) => {
        expectOutcome(p, { exit: [0, 1, 5] });
        if (p.code === 0) written.push(Buffer.from(contents[w] ?? ''));
        else failedCleanly(p);
      });
      count('rounds');
    }
    const final = readFileSync(file);
    assert.ok(
      written.some((w) => w.equals(final)),
      "the file holds one writer's bytes",
    );
    checkInvariants(repo, before, { owed: written.filter((w) => !w.equals(final)), litter: 'none' });
  },
);

/** PreToolUse of every agent at once, then the host's writes in turn, then every PostToolUse at once. */
const sameFileRound = async (repo: Repo, file: string, r: number): Promise<Buffer[]> => {
  const base = readFileSync(file, 'utf8');
  const contents = Array.from({ length: WIDTH }, (_, w) =>
    edit(base, 1, `w${w} r${r}`).replace(/^/, `# w${w} r${r}\n`),
  );
  const ids = contents.map((_, w) => `toolu_r${r}w${w}`);
  const payload = (w: number, event: string) =>
    JSON.stringify({
      session_id: `s${w}`,
      cwd: repo.dir,
      permission_mode: 'default',
      hook_event_name: event,
      tool_name: 'Write',
      tool_input: { file_path: file, content: contents[w] },
      tool_use_id: ids[w],
    });
  const hook = (w: number, event: string) => spawnHook({ cwd: repo.dir, env: repo.env, input: payload(w, event) });
  const pres = await Promise.all(contents.map((_, w) => hook(w, 'PreToolUse')));
  const landed: Buffer[] = [];
  for (const [w, p] of pres.entries()) {
    expectOutcome(p, { exit: [0], hook: true });
    if (!hostProceeds(p)) continue;
    writeFileSync(file, contents[w] ?? '');
    landed.push(Buffer.from(contents[w] ?? ''));
  }
  const posts = await Promise.all(pres.map((_, w) => hook(w, 'PostToolUse')));
  for (const p of posts) expectOutcome(p, { exit: [0], hook: true });
  count('processes', pres.length + posts.length);
  return landed;
};

scenario(
  `${WIDTH} agents writing one file at once through the host × ${ROUNDS} rounds: the bytes each PreToolUse saw are kept`,
  undefined,
  async () => {
    const repo = dirtyRepo(['one.txt']);
    const before = userState(repo);
    const file = repo.path('one.txt');
    const starts: Buffer[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      starts.push(readFileSync(file));
      await sameFileRound(repo, file, r);
      count('rounds');
    }
    checkInvariants(repo, before, { owed: starts, litter: 'none' });
  },
);

// Regression (design): the bytes of a direct Write that another agent replaced before its PostToolUse ran were
// recorded nowhere. PostToolUse now records the Write's own bytes, then what it found on disk.
scenario(
  `${WIDTH} agents writing one file at once through the host: a write another agent overwrote before its PostToolUse is kept`,
  undefined,
  async () => {
    const repo = dirtyRepo(['one.txt']);
    const before = userState(repo);
    const file = repo.path('one.txt');
    const landed = await sameFileRound(repo, file, 0);
    checkInvariants(repo, before, { owed: landed.slice(0, -1), litter: 'none' });
  },
);

const twoWorktrees = (): { main: Repo; wt: Repo } => {
  const main = dirtyRepo(['a.txt', 'b.txt']);
  main.git('worktree', 'add', '-q', '-b', 'wt2', join(main.dir, '..', 'wt2'));
  const wt = repoAt(join(main.dir, '..', 'wt2'), main.home);
  wt.env.FETTLE_HISTORY_MAX_COUNT = main.env.FETTLE_HISTORY_MAX_COUNT ?? '';
  for (const n of ['a.txt', 'b.txt']) wt.write(n, text(40, `${n} wt2 dirty`));
  return { main, wt };
};

for (const gc of [false, true])
  scenario(
    `two linked worktrees writing same-named files at once × ${ROUNDS} rounds${gc ? GC_BUG : ''}`,
    undefined,
    async () => {
      const { main, wt } = twoWorktrees();
      const before = userState(main);
      const files = [main, wt].flatMap((r) => ['a.txt', 'b.txt'].map((n) => ({ repo: r, file: r.path(n) })));
      const history = historyOf(files.map((f) => f.file));
      const stopGc = gc ? gcLoop(main) : async () => -1;
      for (let r = 0; r < ROUNDS; r++) {
        const large = r % 3 === 2;
        await pool(
          WIDTH,
          files.map(
            ({ repo, file }, i) =>
              () =>
                write(
                  repo,
                  repo.dir,
                  file,
                  large ? text(40, `${i} r${r}`) : edit(readFileSync(file, 'utf8'), 2, `r${r}`),
                ),
          ),
        );
        history.look();
        count('rounds');
      }
      // Without a single completed gc, the scenario would quietly be its gc-less twin.
      assert.notEqual(await stopGc(), 0, 'git gc --prune=now completed at least once meanwhile');
      checkInvariants(main, before, { owed: history.owed(), litter: 'none' });
    },
  );

scenario(
  'a change staged in one linked worktree and confirmed from another is applied to the file it was staged for',
  undefined,
  async () => {
    const { main, wt } = twoWorktrees();
    // Same bytes in both, so nothing but the path can tell the two files apart.
    main.write('a.txt', readFileSync(wt.path('a.txt')));
    const staged = await spawnFettle(['write', 'a.txt'], { cwd: wt.dir, env: wt.env, input: text(40, 'for wt2') });
    const id = /Staged change ([0-9a-z]{8})/.exec(staged.stdout)?.[1];
    assert.ok(id, show(staged));
    const mainBefore = readFileSync(main.path('a.txt'));
    const c = await spawnFettle(['confirm', id], { cwd: main.dir, env: main.env });
    expectOutcome(c, { exit: [0] });
    assert.ok(
      readFileSync(main.path('a.txt')).equals(mainBefore),
      `the main worktree's a.txt is untouched (confirm: ${show(c)})`,
    );
    assert.equal(readFileSync(wt.path('a.txt'), 'utf8'), text(40, 'for wt2'));
  },
);
