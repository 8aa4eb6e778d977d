// A confirm of three files killed (SIGKILL) at every step, then any fettle command: all three applied or none,
// the refs agreeing with the disk, and no bytes lost; with a merge among them (its snapshot step included), and
// with a person's save made between the crash and the recovery, which the recovery keeps.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Failpoint } from '../../src/io/failpoint';
import type { Repo } from '../helpers/repo';
import { count, repoWith, reportAs, scenario, show, spawnFettle, text, type Proc } from './harness';
import { checkInvariants, expectOutcome, track, userState } from './invariants';

reportAs('changeset-crash');

const FILES = ['a.txt', 'b.txt', 'c.txt'];
const OLD = (f: string) => text(30, `dirty ${f}`); // not in HEAD: only fettle's records keep it
/** Replaces lines 1-15: staged; a user's edit of line 30 merges cleanly with it. */
const PROPOSAL = (f: string) => text(15, `proposed ${f}`) + OLD(f).split('\n').slice(15).join('\n');
const userEdit = (content: string) => content.replace(/ 30\n$/, ' 30 edited by the user\n');

const run = (repo: Repo, args: string[], o: { failpoints?: string; input?: string } = {}): Promise<Proc> =>
  spawnFettle(args, { cwd: repo.dir, env: { ...repo.env, FETTLE_SESSION: 'S' }, ...o });

/** Three staged changes of session S; with `merge`, b.txt edited by the user after it was staged. */
const setup = async (merge: boolean) => {
  const repo = repoWith(Object.fromEntries([...FILES.map((f) => [f, text(30, `head ${f}`)]), ['README.md', 'r\n']]));
  for (const f of FILES) repo.write(f, OLD(f));
  const ids: Record<string, string> = {};
  for (const f of FILES) {
    const r = await run(repo, ['write', f], { input: PROPOSAL(f) });
    expectOutcome(r, { exit: [3] });
    ids[f] = /Staged change ([0-9a-z]{8})/.exec(r.stdout)?.[1] ?? assert.fail(show(r));
  }
  if (merge) repo.write('b.txt', userEdit(OLD('b.txt')));
  const before = Object.fromEntries(FILES.map((f) => [f, readFileSync(repo.path(f), 'utf8')]));
  const after = Object.fromEntries(FILES.map((f) => [f, merge && f === 'b.txt' ? userEdit(PROPOSAL(f)) : PROPOSAL(f)]));
  return { repo, ids, before, after, state: userState(repo) };
};

type Setup = Awaited<ReturnType<typeof setup>>;

const kindOf = (repo: Repo, id: string): string =>
  repo.git('log', '-1', '--format=%(trailers:key=Fettle-Kind,valueonly)', `refs/fettle/${id}`).trim();

/** All applied or none, and every change's ref says what its file holds. */
const allOrNone = (s: Setup): 'all' | 'none' => {
  const disk = Object.fromEntries(FILES.map((f) => [f, readFileSync(s.repo.path(f), 'utf8')]));
  const applied = FILES.filter((f) => disk[f] === s.after[f]);
  const untouched = FILES.filter((f) => disk[f] === s.before[f]);
  assert.ok(
    applied.length === 3 || untouched.length === 3,
    `all or none: applied ${applied.join(',') || '-'}, untouched ${untouched.join(',') || '-'}`,
  );
  const outcome = applied.length === 3 ? 'all' : 'none';
  for (const f of FILES) {
    const kind = kindOf(s.repo, s.ids[f] as string);
    if (outcome === 'all') assert.equal(kind, 'applied', `${f}: the ref agrees with the disk`);
    else assert.ok(kind === 'proposal' || kind === 'snapshot', `${f}: pending, as the disk says (${kind})`);
  }
  return outcome;
};

const invariants = (s: Setup, litter: 'crash' | 'none') =>
  checkInvariants(s.repo, s.state, {
    files: FILES.map((f) => ({
      ...track(s.repo.path(f), [s.after[f] as string]),
      old: Buffer.from(s.before[f] as string),
    })),
    owed: FILES.map((f) => Buffer.from(OLD(f))),
    litter,
  });

const POINTS = (merge: boolean): string[] => [
  'confirm.locked',
  ...(merge ? ['confirm.snapshot-written'] : []),
  'confirm.prepared',
  'confirm.journal-written',
  ...['replace.temp-synced', 'replace.checked', 'replace.renamed', 'confirm.file-written'].flatMap((p) =>
    [1, 2, 3].map((n) => `${p}@${n}`),
  ),
  'confirm.ref-updated',
];

for (const merge of [false, true]) {
  for (const point of POINTS(merge)) {
    const name = `kill -9 at ${point} of a 3-file confirm${merge ? ' with a merge' : ''}, then \`fettle status\`: all or none applied`;
    scenario(name, undefined, async () => {
      const s = await setup(merge);
      const [at, nth] = point.split('@');
      const killed = await run(s.repo, ['confirm', '--session', 'S'], {
        failpoints: `${at}=kill${nth ? `@${nth}` : ''}`,
      });
      assert.equal(killed.signal, 'SIGKILL', `the failpoint ${point as Failpoint} was reached: ${show(killed)}`);
      count('kills');
      invariants(s, 'crash');
      const status = await run(s.repo, ['status']);
      expectOutcome(status, { exit: [0] });
      const outcome = allOrNone(s);
      count(outcome === 'all' ? 'recoveredAll' : 'recoveredNone');
      // Once recovered, the confirm can be run again (or says it is done), and ends with all applied.
      const again = await run(s.repo, ['confirm', '--session', 'S']);
      expectOutcome(again, { exit: outcome === 'all' ? [1] : [0] });
      for (const f of FILES) assert.equal(readFileSync(s.repo.path(f), 'utf8'), s.after[f]);
      invariants(s, 'none');
    });
  }
}

scenario(
  'a save made between the crash and the recovery is kept; the files fettle wrote go back',
  undefined,
  async () => {
    const s = await setup(false);
    const killed = await run(s.repo, ['confirm', '--session', 'S'], { failpoints: 'confirm.file-written=kill@2' });
    assert.equal(killed.signal, 'SIGKILL');
    // Two files hold their proposals now; the person edits the first one before any fettle command runs.
    const saved = `${PROPOSAL('a.txt')}saved by the person\n`;
    s.repo.write('a.txt', saved);
    const status = await run(s.repo, ['status']);
    expectOutcome(status, { exit: [0] });
    assert.match(
      status.stderr,
      /was undone: .*b\.txt put back to the bytes held before it\..*a\.txt kept as saved since\./s,
    );
    assert.equal(readFileSync(s.repo.path('a.txt'), 'utf8'), saved, 'never clobbered');
    assert.equal(readFileSync(s.repo.path('b.txt'), 'utf8'), s.before['b.txt']);
    assert.equal(readFileSync(s.repo.path('c.txt'), 'utf8'), s.before['c.txt']);
    for (const f of FILES) assert.equal(kindOf(s.repo, s.ids[f] as string), 'proposal', `${f} stays pending`);
    // Confirming again merges the person's save or refuses naming it; it never overwrites it.
    const again = await run(s.repo, ['confirm', '--session', 'S']);
    expectOutcome(again, { exit: [0, 1, 5] });
    assert.ok(readFileSync(s.repo.path('a.txt'), 'utf8').includes('saved by the person'));
  },
);

scenario('`fettle write` of another file is a command that recovers first', undefined, async () => {
  const s = await setup(false);
  const killed = await run(s.repo, ['confirm', '--session', 'S'], { failpoints: 'confirm.file-written=kill@2' });
  assert.equal(killed.signal, 'SIGKILL');
  const write = await run(s.repo, ['write', 'README.md'], { input: 'r2\n' });
  expectOutcome(write, { exit: [0] });
  assert.match(write.stderr, /a confirm of 3 changes .* was undone: a\.txt, b\.txt put back/);
  assert.equal(allOrNone(s), 'none');
});

scenario('doctor recovers an interrupted confirm and says what it did', undefined, async () => {
  const s = await setup(false);
  const killed = await run(s.repo, ['confirm', '--session', 'S'], { failpoints: 'confirm.file-written=kill@1' });
  assert.equal(killed.signal, 'SIGKILL');
  const doctor = await run(s.repo, ['doctor', '--json']);
  const checks = JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] };
  const journal = checks.checks.find((c) => c.name === 'journal');
  assert.equal(journal?.status, 'warn', doctor.stdout);
  assert.match(journal?.detail ?? '', /^recovered: a confirm of 3 changes .* was undone: a\.txt put back/);
  assert.equal(allOrNone(s), 'none');
  const clean = JSON.parse((await run(s.repo, ['doctor', '--json'])).stdout) as typeof checks;
  assert.equal(clean.checks.find((c) => c.name === 'journal')?.status, 'ok');
});
