// `fettle log` and `fettle show`, human and --json, and the same history read with plain git.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines, makeRepo } from '../helpers/repo';
import { T0, directWrite, fettle, keepsUserState, ok, scriptSession, stageWrite } from '../helpers/stage';
import { literal, SELF } from '../helpers/cli';

const BASE = lines(30);
const edit = (n: number, word: string, text = BASE): string => text.replace(`line ${n}\n`, `${word} ${n}\n`);

interface Row {
  id: string;
  state: string;
  path: string;
  tier: string;
  added: number | null;
  removed: number | null;
  session: string | null;
  rolledBackBy: string | null;
  reverts: string | null;
  at: string;
  commit: string;
}

/** One change in each state, a minute apart: applied, rolled back (and its rollback), discarded, expired, pending. */
const history = () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE, 'c.txt': BASE });
  const s1 = { env: { FETTLE_SESSION: 'agent-1' } };
  const applied = directWrite(repo, 'a.txt', edit(3, 'one'), { ...s1, now: T0 });
  const undone = directWrite(repo, 'b.txt', edit(4, 'two'), { ...s1, now: T0 + 60 });
  const rollback =
    new RegExp(`Undo this with \`${literal(SELF)} rollback (\\w+)\``).exec(
      ok(fettle(repo, ['rollback', undone], { now: T0 + 120 })).stdout,
    )?.[1] ?? '';
  const discarded = stageWrite(repo, 'c.txt', lines(30, 'x'), { ...s1, now: T0 + 180 });
  ok(fettle(repo, ['discard', discarded], { now: T0 + 190 }));
  const expired = stageWrite(repo, 'c.txt', lines(30, 'y'), { now: T0 + 240 });
  const pending = stageWrite(repo, 'a.txt', lines(30, 'z'), { ...s1, now: T0 + 1200 });
  return { repo, applied, undone, rollback, discarded, expired, pending };
};

test('log lists every change newest first: id, when, tier, path, +N -M, session, state, who decided', () => {
  const { repo, applied, undone, rollback, discarded, expired, pending } = history();
  const out = keepsUserState(repo, () => ok(fettle(repo, ['log'], { now: T0 + 1260 })).stdout);
  // `fettle write` without FETTLE_SESSION records under the branch's session (the ladder); a person's rollback, none.
  const script = scriptSession(repo);
  const col = (session: string) => session.padEnd(script.length);
  assert.deepEqual(out.split('\n'), [
    `ID        WHEN     TIER    PATH   CHANGE   ${col('SESSION')}  STATE                          DECIDED BY`,
    `${pending}  1m ago   staged  a.txt  +30 -30  ${col('agent-1')}  pending                        threshold`,
    `${expired}  17m ago  staged  c.txt  +30 -30  ${script}  expired                        threshold`,
    `${discarded}  18m ago  staged  c.txt  +30 -30  ${col('agent-1')}  discarded                      script`,
    `${rollback}  19m ago  direct  b.txt  +1 -1    ${col('-')}  applied (rolls back ${undone})  script`,
    `${undone}  20m ago  direct  b.txt  +1 -1    ${col('agent-1')}  rolled back by ${rollback}        threshold`,
    `${applied}  21m ago  direct  a.txt  +1 -1    ${col('agent-1')}  applied                        threshold`,
    '',
  ]);
});

test('log <path> and --session filter; --json has one row per change with its state', () => {
  const { repo, applied, pending, undone, rollback } = history();
  const ids = (args: string[]) =>
    ok(fettle(repo, args, { now: T0 + 1260 }))
      .stdout.split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split(' ')[0]);
  assert.deepEqual(ids(['log', 'a.txt']), [pending, applied]);
  // A script's rollback of a session's change is the script's, not the session's (only the agent's own lands there).
  assert.deepEqual(ids(['log', '--session', 'agent-1', 'b.txt']), [undone]);
  assert.deepEqual(ids(['log', 'b.txt']), [rollback, undone]);
  assert.equal(ok(fettle(repo, ['log', 'nothing.txt'])).stdout, 'fettle has no record of changes to nothing.txt.\n');
  const rows = (JSON.parse(ok(fettle(repo, ['log', '--json'], { now: T0 + 1260 })).stdout) as { changes: Row[] })
    .changes;
  assert.deepEqual(
    rows.map((r) => r.state),
    ['pending', 'expired', 'discarded', 'applied', 'rolled-back', 'applied'],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.deepEqual(
    (({ id, path, tier, added, removed, session, rolledBackBy, reverts, at }) => ({
      id,
      path,
      tier,
      added,
      removed,
      session,
      rolledBackBy,
      reverts,
      at,
    }))(byId.get(undone) as Row),
    {
      id: undone,
      path: 'b.txt',
      tier: 'direct',
      added: 1,
      removed: 1,
      session: 'agent-1',
      rolledBackBy: rollback,
      reverts: null,
      at: new Date((T0 + 60) * 1000).toISOString(),
    },
  );
  assert.equal(byId.get(rollback)?.reverts, undone);
  assert.equal(byId.get(applied)?.commit, repo.git('rev-parse', `refs/fettle/${applied}`));
});

test('a rolled-back change is applied again once its rollback is rolled back', () => {
  const { repo, undone, rollback } = history();
  ok(fettle(repo, ['rollback', rollback], { now: T0 + 1300 }));
  const rows = (
    JSON.parse(ok(fettle(repo, ['log', 'b.txt', '--json'], { now: T0 + 1300 })).stdout) as { changes: Row[] }
  ).changes;
  assert.deepEqual(
    rows.map((r) => [r.reverts, r.state]),
    [
      [rollback, 'applied'],
      [undone, 'rolled-back'],
      [null, 'applied'],
    ],
  );
});

test('show prints the metadata, the commits and the diff of what the change did', () => {
  const { repo, applied } = history();
  const head = repo.git('rev-parse', 'HEAD');
  const [after, before] = [
    repo.git('rev-parse', `refs/fettle/${applied}`),
    repo.git('rev-parse', `refs/fettle/${applied}^`),
  ];
  const out = keepsUserState(repo, () => ok(fettle(repo, ['show', applied], { now: T0 + 60 })).stdout);
  const [meta = '', diff = ''] = out.split('\n\n');
  assert.deepEqual(meta.split('\n'), [
    `change ${applied}: fettle: write a.txt (+1 -1)`,
    'State:    applied (direct)',
    'Path:     a.txt',
    `File:     ${repo.path('a.txt')}`,
    `When:     ${new Date(T0 * 1000).toISOString()} (1m ago)`,
    'Change:   +1 -1 (small)',
    'Session:  agent-1',
    'Tool:     fettle write',
    'Decided:  the size thresholds (floor, ceil, ratio)',
    `Ref:      refs/fettle/${applied}`,
    `Base:     ${head.slice(0, 12)} (HEAD when it was recorded)`,
    'Commits:',
    `  ${after.slice(0, 12)}  after     fettle: write a.txt (+1 -1)`,
    `  ${before.slice(0, 12)}  before    fettle: before a.txt`,
  ]);
  assert.match(diff, /^diff --git a\/a\.txt b\/a\.txt\n/);
  assert.match(out, /\n-line 3\n\+one 3\n/);
  assert.equal(ok(fettle(repo, ['show', after], { now: T0 + 60 })).stdout, out, 'a commit of the change names it too');
});

test('show --json of a pending staged change: fields, commits, base and the proposed diff', () => {
  const { repo, pending } = history();
  const j = JSON.parse(ok(fettle(repo, ['show', pending, '--json'], { now: T0 + 1260 })).stdout) as Row & {
    base: string;
    expiresAt: string;
    commits: { kind: string }[];
    diff: string;
  };
  assert.equal(j.state, 'pending');
  assert.equal(j.expiresAt, new Date((T0 + 1800) * 1000).toISOString());
  assert.equal(j.base, repo.git('rev-parse', 'HEAD'));
  assert.deepEqual(
    j.commits.map((c) => c.kind),
    ['proposal', 'before'],
  );
  assert.match(j.diff, /\n-line 1\n/);
  assert.match(j.diff, /\n\+z 1\n/);
});

test('show of an unknown change: the baseline error', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const r = fettle(repo, ['show', 'zzzzzzzz']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.split('\n')[0], "fettle: No change 'zzzzzzzz'. It may have expired or been discarded.");
});

test('plain git reads the same history: log --glob, log -p, show, diff HEAD, trailers', () => {
  const { repo, applied, pending, discarded, undone, rollback } = history();
  const subjects = repo.git('log', '--format=%s', '--glob=fettle/*').split('\n');
  assert.ok(subjects.includes('fettle: write a.txt (+1 -1)'));
  assert.ok(subjects.includes('fettle: stage a.txt (+30 -30)'));
  assert.ok(subjects.includes(`fettle: roll back ${undone} in b.txt (+1 -1)`));
  assert.ok(
    !repo.git('log', '--format=%(trailers:key=Fettle-Id,valueonly)', '--glob=fettle/*').includes(discarded),
    'discarded changes leave the glob',
  );
  assert.match(repo.git('log', '-p', `fettle/${applied}`), /\n-line 3\n\+one 3\n/);
  assert.match(repo.git('show', `fettle/${pending}`), /^\+z 30$/m);
  assert.match(repo.git('diff', '--stat', 'HEAD', `fettle/${pending}`), /a\.txt \| 60 \+{30}-{30}/);
  assert.equal(repo.git('show', `fettle/${applied}^:a.txt`) + '\n', BASE);
  const trailers = repo.git('log', '-1', '--format=%(trailers)', `fettle/${rollback}`);
  assert.match(
    trailers,
    new RegExp(`^Fettle-Id: ${rollback}\nFettle-Kind: after\nFettle-Tier: direct\nFettle-Path: b\\.txt\n`),
  );
  assert.match(trailers, new RegExp(`\nFettle-Reverts: ${undone}(\n|$)`));
  assert.match(
    repo.git('log', '-1', '--format=%B', `fettle/${rollback}`),
    new RegExp(
      `^fettle: roll back ${undone} in b\\.txt \\(\\+1 -1\\)\n\nfettle rolled back change ${undone}, restoring the bytes it had replaced`,
    ),
  );
});
