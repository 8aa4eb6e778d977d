// fettle's write paths as replayable scenes: set up a repository, run the operation once (which a
// test may kill or fault), then "run fettle again" until the operation is done, and say what the invariants
// owe. Shared by the failpoint, random-kill and fault suites.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Failpoint } from '../../src/io/failpoint';
import type { Repo } from '../helpers/repo';
import { agentWrite, count, repoWith, show, spawnFettle, text, edit, type Proc, type SpawnOpts } from './harness';
import { checkInvariants, expectOutcome, track, userState, type Tracked } from './invariants';

export interface Scene {
  repo: Repo;
  before: string;
  tracked: Tracked;
  /** the operation under test */
  act(o: Partial<SpawnOpts>): Promise<Proc[]>;
  /** runs fettle again until the operation is complete; asserts every run's outcome */
  recover(): Promise<void>;
  /** every content the file held and lost along the way, except those a host wrote over with no record */
  owed(): Buffer[];
}

export interface PathCase {
  name: string;
  /** failpoints this path passes, in order */
  points: Failpoint[];
  make(): Promise<Scene>;
}

const FILE = 'a.txt';
const OLD = text(30, 'dirty'); // not in HEAD, so only fettle's records can keep it
const SMALL = edit(OLD, 2, 'small');
const LARGE = text(30, 'large');
/** Replaces lines 1-15 (staged: 30 changed lines); the user's edit of line 30 merges cleanly with it. */
const PROPOSAL = text(15, 'proposed') + OLD.split('\n').slice(15).join('\n');
const USER_EDIT = OLD.replace('dirty 30\n', 'dirty 30 edited by the user\n');
const MERGED = PROPOSAL.replace('dirty 30\n', 'dirty 30 edited by the user\n');

export const fettle = (repo: Repo, args: string[], o: Partial<SpawnOpts> = {}): Promise<Proc> =>
  spawnFettle(args, { cwd: repo.dir, env: repo.env, ...o });

const ok = async (p: Promise<Proc>, exit = [0]): Promise<Proc> => {
  const r = await p;
  expectOutcome(r, { exit });
  return r;
};

const stagedId = (p: Proc): string => {
  const id = /Staged change ([0-9a-z]{8})/.exec(p.stdout)?.[1];
  assert.ok(id, show(p));
  return id;
};
const recordedId = (p: Proc): string => {
  const id = /as ([0-9a-z]{8}); undo with/.exec(p.stdout)?.[1];
  assert.ok(id, show(p));
  return id;
};

/** A repo whose a.txt holds OLD, uncommitted on top of a committed version. */
const fresh = (): Repo => {
  const repo = repoWith({ [FILE]: text(30, 'head'), 'README.md': 'readme\n' });
  repo.write(FILE, OLD);
  return repo;
};

/**
 * Follows the file through the steps of a scene: each step changes it at most once, so looking after every
 * step sees every content it held. A content replaced by a step is owed unless that step was a host write
 * fettle never recorded (failOpen).
 */
const watcher = (repo: Repo) => {
  const read = (): Buffer | null => (existsSync(repo.path(FILE)) ? readFileSync(repo.path(FILE)) : null);
  let last = read();
  const owed: Buffer[] = [];
  return {
    step: (recorded = true): void => {
      const now = read();
      const same = last === null || now === null ? last === now : last.equals(now);
      if (!same && last && recorded) owed.push(last);
      last = now;
    },
    owed: () => owed,
  };
};

type Watch = ReturnType<typeof watcher>;

const scene = (
  repo: Repo,
  next: string[],
  make: (w: Watch) => Omit<Scene, 'repo' | 'before' | 'tracked' | 'owed'>,
): Scene => {
  const w = watcher(repo);
  return { repo, tracked: track(repo.path(FILE), next), before: userState(repo), owed: w.owed, ...make(w) };
};

/** `step` after one operation; for a hook, a Pre that failed open let the host write unrecorded. */
const stepped = (w: Watch, procs: Proc[], hook = false): Proc[] => {
  w.step(!(hook && failOpen(procs)));
  return procs;
};

/** A hook Pre that did not exit 0 cleanly let the host write unprotected (B.0: only exit 2 blocks). */
export const failOpen = (acted: Proc[]): boolean => {
  const pre = acted[0];
  const open = !!pre && pre.code !== 0 && pre.code !== 2;
  if (open) count('failOpenWindows');
  return open;
};

const pendingIds = async (repo: Repo): Promise<string[]> => {
  const r = await ok(fettle(repo, ['status', '--json']));
  return (JSON.parse(r.stdout) as { pending: { id: string; state: string }[] }).pending
    .filter((c) => c.state === 'pending')
    .map((c) => c.id);
};

const hookWrite = (
  repo: Repo,
  content: string,
  o: Partial<SpawnOpts> = {},
  toolUseId = `toolu_${Math.random().toString(36).slice(2)}`,
) => agentWrite({ file: repo.path(FILE), content, cwd: repo.dir, toolUseId }, repo.env, o, o);

const procsOf = (r: Awaited<ReturnType<typeof hookWrite>>): Proc[] => (r.post ? [r.pre, r.post] : [r.pre]);

/** A command of the recovery: its outcome checked, then the file looked at. */
const runner =
  (repo: Repo, w: Watch) =>
  async (args: string[], exit: number[] = [0], input?: string): Promise<Proc> => {
    const r = await ok(fettle(repo, args, { input }), exit);
    w.step();
    return r;
  };

/** A Write through the hook in the recovery: it must be handled cleanly. */
const cleanHookWrite = async (repo: Repo, w: Watch, content: string) => {
  const r = await hookWrite(repo, content);
  expectOutcome(r.pre, { exit: [0], hook: true });
  if (r.post) expectOutcome(r.post, { exit: [0], hook: true });
  w.step();
  return r;
};

export const PATHS: PathCase[] = [
  {
    name: 'hook direct (PreToolUse records, the host writes, PostToolUse records)',
    points: [
      'record.blob-written',
      'record.commit-written',
      'record.beside-written',
      'record.ref-written',
      'after.ref-written',
    ],
    make: async () => {
      const repo = fresh();
      const again = edit(SMALL, 1, 'again');
      return scene(repo, [SMALL, again], (w) => ({
        act: async (o) => stepped(w, procsOf(await hookWrite(repo, SMALL, o)), true),
        recover: async () => {
          await runner(repo, w)(['status']);
          await cleanHookWrite(repo, w, again);
        },
      }));
    },
  },
  {
    name: 'hook staged (PreToolUse stages and denies; confirm applies)',
    points: ['stage.commits-written', 'stage.ref-written'],
    make: async () => {
      const repo = fresh();
      const again = text(30, 'again');
      return scene(repo, [LARGE, again], (w) => ({
        act: async (o) => stepped(w, procsOf(await hookWrite(repo, LARGE, o)), true),
        recover: async () => {
          const run = runner(repo, w);
          for (const id of await pendingIds(repo)) await run(['confirm', id]);
          const r = await cleanHookWrite(repo, w, again);
          const id = /\bconfirm ([0-9a-z]{8})\b/.exec(r.pre.stdout)?.[1];
          assert.ok(id && !r.written, show(r.pre));
          await run(['confirm', id]);
        },
      }));
    },
  },
  {
    name: '`fettle write`, direct',
    points: [
      'record.blob-written',
      'record.commit-written',
      'record.ref-written',
      'write.recorded',
      'replace.temp-synced',
      'replace.renamed',
      'write.file-written',
      'after.ref-written',
    ],
    make: async () => {
      const repo = fresh();
      return scene(repo, [SMALL], (w) => ({
        act: async (o) => stepped(w, [await fettle(repo, ['write', FILE], { input: SMALL, ...o })]),
        recover: async () => void (await runner(repo, w)(['write', FILE], [0], SMALL)),
      }));
    },
  },
  {
    name: '`fettle write`, staged, then confirm',
    points: ['stage.commits-written', 'stage.ref-written'],
    make: async () => {
      const repo = fresh();
      return scene(repo, [LARGE], (w) => ({
        act: async (o) => stepped(w, [await fettle(repo, ['write', FILE], { input: LARGE, ...o })]),
        recover: async () => {
          const run = runner(repo, w);
          const id = (await pendingIds(repo))[0] ?? stagedId(await run(['write', FILE], [3], LARGE));
          await run(['confirm', id]);
        },
      }));
    },
  },
  ...[false, true].map(
    (merge): PathCase => ({
      name: merge ? 'confirm with a 3-way merge (the user edited the file after staging)' : 'confirm',
      points: [
        'confirm.locked',
        ...(merge ? ['confirm.snapshot-written' as const] : []),
        'replace.temp-synced',
        'replace.renamed',
        'confirm.file-written',
        'confirm.ref-updated',
      ],
      make: async () => {
        const repo = fresh();
        const id = stagedId(await ok(fettle(repo, ['write', FILE], { input: PROPOSAL }), [3]));
        if (merge) repo.write(FILE, USER_EDIT);
        return scene(repo, [merge ? MERGED : PROPOSAL], (w) => ({
          act: async (o) => stepped(w, [await fettle(repo, ['confirm', id], o)]),
          recover: async () => void (await runner(repo, w)(['confirm', id], [0, 1, 5])),
        }));
      },
    }),
  ),
  {
    name: 'discard',
    points: ['discard.marker-written', 'discard.refs-moved'],
    make: async () => {
      const repo = fresh();
      const id = stagedId(await ok(fettle(repo, ['write', FILE], { input: LARGE }), [3]));
      return scene(repo, [], (w) => ({
        act: async (o) => stepped(w, [await fettle(repo, ['discard', id], o)]),
        recover: async () => {
          await runner(repo, w)(['discard', id], [0, 1, 5]);
          assert.deepEqual(await pendingIds(repo), [], 'the change is no longer pending');
        },
      }));
    },
  },
  {
    name: 'rollback',
    points: [
      'record.blob-written',
      'record.commit-written',
      'record.ref-written',
      'rollback.recorded',
      'replace.temp-synced',
      'replace.renamed',
      'rollback.file-written',
      'after.ref-written',
    ],
    make: async () => {
      const repo = fresh();
      const id = recordedId(await ok(fettle(repo, ['write', FILE], { input: SMALL })));
      return scene(repo, [OLD], (w) => ({
        act: async (o) => stepped(w, [await fettle(repo, ['rollback', id], o)]),
        // A second rollback after a completed one says "nothing to roll back" (E_NOTHING_TO_ROLL_BACK, exit 1).
        recover: async () => void (await runner(repo, w)(['rollback', id], [0, 1])),
      }));
    },
  },
];

/** The final content every path must reach once recovered. */
export const FINAL: Record<string, string> = {
  [PATHS[0]?.name ?? '']: edit(SMALL, 1, 'again'),
  [PATHS[1]?.name ?? '']: text(30, 'again'),
  [PATHS[2]?.name ?? '']: SMALL,
  [PATHS[3]?.name ?? '']: LARGE,
  [PATHS[4]?.name ?? '']: PROPOSAL,
  [PATHS[5]?.name ?? '']: MERGED,
  [PATHS[6]?.name ?? '']: OLD,
  [PATHS[7]?.name ?? '']: OLD,
};

/** The checks after the crash and after the recovery that every kill scenario shares. */
export const crashThenRecover = async (s: Scene, name: string, litter: 'none' | 'crash' = 'crash'): Promise<void> => {
  checkInvariants(s.repo, s.before, { files: [{ ...s.tracked, owe: false }], owed: s.owed(), litter: 'crash' });
  await s.recover();
  assert.equal(readFileSync(s.tracked.file, 'utf8'), FINAL[name], 'the recovered operation left the intended bytes');
  const files = [{ ...s.tracked, next: [Buffer.from(FINAL[name] ?? '')], owe: false }];
  checkInvariants(s.repo, s.before, { owed: s.owed(), files, litter });
};
