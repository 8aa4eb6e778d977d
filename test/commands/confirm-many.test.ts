// `fettle confirm` and `fettle discard` of several changes at once (ids, changeset ids, --session, --all): all or
// nothing, end to end against real repositories, with the staged changes made by the hook as Claude Code sends it.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { test } from 'node:test';
import { SELF, literal, runHook, writePayload } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { T0, errorLine, fettle, keepsUserState, kinds, ok, refOid, stageWrite, statusJson } from '../helpers/stage';

const BASE = lines(40);
/** Rewrites lines 21-40 (staged), leaving lines 1-20 for a user's edit. */
const PROPOSAL = lines(20) + lines(20, 'new', 21);
const FILES = ['a.txt', 'b.txt', 'c.txt'];

let calls = 0;
/** A large Write through the hook, in session `session`: staged, and denied with the commands. */
const stageByHook = (repo: Repo, file: string, content: string, session = 'S'): string => {
  const payload = writePayload({
    file: repo.path(file),
    content,
    cwd: repo.dir,
    session,
    toolUseId: `toolu_many_${++calls}`,
  });
  const r = runHook(payload, { cwd: repo.dir, env: repo.env });
  const reason = r.json?.hookSpecificOutput?.permissionDecisionReason ?? '';
  const id = /Staged change ([0-9a-z]{8})/.exec(reason)?.[1];
  assert.ok(id, `staged: ${r.stdout}${r.stderr}`);
  return id;
};

const threeStaged = (): { repo: Repo; ids: string[] } => {
  const repo = makeRepo(Object.fromEntries(FILES.map((f) => [f, BASE])));
  return { repo, ids: FILES.map((f) => stageByHook(repo, f, PROPOSAL)) };
};

const pendingIds = (repo: Repo): string[] =>
  statusJson(repo)
    .pending.map((c) => c.id)
    .sort();

test('confirm --session refuses all three when one file was edited in the same lines: nothing written, that file named, all pending; after its discard the other two apply', () => {
  const { repo, ids } = threeStaged();
  const [a, b, c] = ids as [string, string, string];
  repo.write('b.txt', BASE.replace('line 30\n', 'user 30\n'));
  const r = keepsUserState(repo, () => fettle(repo, ['confirm', '--session', 'S']));
  assert.equal(r.code, 5, r.stderr);
  assert.equal(
    errorLine(r),
    '1 of 3 changes cannot be confirmed, so none was. Nothing was written; every change stays pending.',
  );
  assert.match(
    r.stderr,
    new RegExp(
      `^- ${repo.path('b.txt')} changed after change ${b} was staged, and those edits overlap the staged ones \\(1 conflict\\)\\.`,
      'm',
    ),
  );
  assert.match(r.stderr, new RegExp(`\`${literal(SELF)} discard ${b}\``), 'the next step is named');
  assert.equal(repo.read('a.txt').toString(), BASE, 'nothing was written');
  assert.equal(repo.read('c.txt').toString(), BASE);
  assert.deepEqual(pendingIds(repo), [...ids].sort(), 'all three stay pending');

  ok(fettle(repo, ['discard', b]));
  const applied = keepsUserState(repo, () => ok(fettle(repo, ['confirm', '--session', 'S'])));
  assert.match(applied.stdout, /^Applied 2 changes of session S, all or nothing:$/m);
  assert.equal(repo.read('a.txt').toString(), PROPOSAL);
  assert.equal(repo.read('c.txt').toString(), PROPOSAL);
  assert.equal(repo.read('b.txt').toString(), BASE.replace('line 30\n', 'user 30\n'), 'the discarded one was not');
  assert.deepEqual(kinds(repo, `refs/fettle/${a}`), ['applied', 'proposal', 'before']);
  assert.deepEqual(kinds(repo, `refs/fettle/${c}`), ['applied', 'proposal', 'before']);
  // The session's ref got both landings, in the same transaction as the changes' refs.
  const events = repo
    .git('log', '--format=%(trailers:key=Fettle-Change,valueonly)', 'fettle/sessions/S')
    .split('\n')
    .filter(Boolean);
  assert.deepEqual(events.slice(0, 2).sort(), [a, c].sort());
});

test('several files named, each with why: every refusal is listed and nothing is written', () => {
  const { repo, ids } = threeStaged();
  const [a, b, c] = ids as [string, string, string];
  repo.write('a.txt', BASE.replace('line 25\n', 'user 25\n'));
  chmodSync(repo.path('c.txt'), 0o444);
  const r = fettle(repo, ['confirm', a, b, c]);
  assert.equal(r.code, 5);
  assert.equal(
    errorLine(r),
    '2 of 3 changes cannot be confirmed, so none was. Nothing was written; every change stays pending.',
  );
  assert.match(r.stderr, new RegExp(`^- ${repo.path('a.txt')} changed after change ${a} was staged`, 'm'));
  assert.match(r.stderr, new RegExp(`^- ${repo.path('c.txt')} is read-only .*chmod u\\+w`, 'm'));
  assert.equal(repo.read('b.txt').toString(), BASE, 'the file that could be written was not');
  assert.deepEqual(pendingIds(repo), [...ids].sort());
});

test('confirm of several ids, and a merge among them, applies every one; a repeat says they are applied', () => {
  const { repo, ids } = threeStaged();
  repo.write('a.txt', BASE.replace('line 2\n', 'user 2\n'));
  const r = ok(fettle(repo, ['confirm', ...ids, '--json']));
  const out = JSON.parse(r.stdout) as { changes: { id: string; how: string }[]; changeset: null };
  assert.deepEqual(out.changes.map((x) => x.how).sort(), ['merged', 'written', 'written']);
  assert.equal(repo.read('a.txt').toString(), PROPOSAL.replace('line 2\n', 'user 2\n'));
  assert.equal(repo.read('b.txt').toString(), PROPOSAL);
  const again = fettle(repo, ['confirm', ...ids]);
  assert.equal(again.code, 1);
  assert.match(errorLine(again), /^3 of 3 changes cannot be confirmed, so none was\./);
  assert.match(again.stderr, new RegExp(`was already applied\\. Undo it with \`${literal(SELF)} rollback`));
});

test('two staged changes of one file in the set: refused, naming both, with the command to keep one', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const first = stageByHook(repo, 'a.txt', PROPOSAL, 'one');
  const second = stageByHook(repo, 'a.txt', lines(40, 'other'), 'two');
  const r = fettle(repo, ['confirm', '--all']);
  assert.equal(r.code, 5);
  assert.match(
    r.stderr,
    new RegExp(`a\\.txt has two staged changes in this set, (${first}|${second}) and (${first}|${second});`),
  );
  const discard = `\`${literal(SELF)} discard \\w{8}\``;
  assert.match(r.stderr, new RegExp(`Keep one: ${discard} or ${discard}`));
  assert.equal(repo.read('a.txt').toString(), BASE);
  ok(fettle(repo, ['discard', first]));
  ok(fettle(repo, ['confirm', '--all']));
  assert.equal(repo.read('a.txt').toString(), lines(40, 'other'));
});

test('confirm --all from the agent shell refuses a change only a person may confirm, and writes none', () => {
  const { repo, ids } = threeStaged();
  const r = fettle(repo, ['confirm', '--all'], { env: { CLAUDECODE: '1', FETTLE_REVIEW: 'human' } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /needs a person's approval \(FETTLE_REVIEW=human is set\)/);
  assert.deepEqual(pendingIds(repo), [...ids].sort());
  for (const f of FILES) assert.equal(repo.read(f).toString(), BASE);
});

test('an expired change named with a pending one refuses the set; --all leaves it out', () => {
  const repo = makeRepo({ 'a.txt': BASE, 'b.txt': BASE });
  const env = { FETTLE_SESSION: 'T' };
  const later = T0 + 3600;
  const old = stageWrite(repo, 'a.txt', PROPOSAL, { env });
  const newer = stageWrite(repo, 'b.txt', PROPOSAL, { env, now: later });
  const r = fettle(repo, ['confirm', old, newer], { now: later });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`Change ${old} expired 50 minutes ago`));
  assert.equal(repo.read('b.txt').toString(), BASE);
  ok(fettle(repo, ['confirm', '--all'], { now: later }));
  assert.equal(repo.read('b.txt').toString(), PROPOSAL);
  assert.equal(repo.read('a.txt').toString(), BASE, 'the expired one was left out');
});

test('discard of several, --session and --all: all or nothing, files never touched', () => {
  const { repo, ids } = threeStaged();
  const [a, b, c] = ids as [string, string, string];
  ok(fettle(repo, ['confirm', a]));
  const refused = fettle(repo, ['discard', a, b]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`Change ${a} was already applied`));
  assert.ok(refOid(repo, `refs/fettle/${b}`), 'b is still pending');
  const r = keepsUserState(repo, () => ok(fettle(repo, ['discard', '--session', 'S'])));
  assert.match(r.stdout, /^Discarded 2 changes of session S; no file was touched:$/m);
  assert.deepEqual(pendingIds(repo), []);
  assert.ok(refOid(repo, `refs/fettle-discarded/${b}`) && refOid(repo, `refs/fettle-discarded/${c}`));
  assert.equal(repo.read('b.txt').toString(), BASE);
  const none = fettle(repo, ['discard', '--all']);
  assert.equal(none.code, 1);
  assert.equal(errorLine(none), 'No pending or expired staged change in --all.');
});

test('usage: nothing named, or ids with --all, is a usage error naming the forms', () => {
  const { repo, ids } = threeStaged();
  const none = fettle(repo, ['confirm']);
  assert.equal(none.code, 2);
  assert.equal(errorLine(none), 'Name what to confirm: change ids or changeset ids, --session <id>, or --all.');
  const both = fettle(repo, ['discard', ids[0] as string, '--all']);
  assert.equal(both.code, 2);
  assert.match(errorLine(both), /^--all already names every staged change/);
});
