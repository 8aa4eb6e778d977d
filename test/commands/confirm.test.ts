// `fettle confirm <id>` end to end: the built CLI against real repositories. Time comes from FETTLE_NOW.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { test } from 'node:test';
import { CLI, literal, runHook, SELF, writePayload } from '../helpers/cli';
import { lines, makeRepo, tempDir, type Repo } from '../helpers/repo';
import {
  T0,
  errorLine,
  fails,
  fettle,
  hasTestTree,
  scriptSession,
  testTreeName,
  keepsUserState,
  kinds,
  ok,
  openTestTree,
  refOid,
  stageWrite,
  statusJson,
} from '../helpers/stage';

const BASE = lines(40);
/** Rewrites lines 21-40: staged (40 changed lines of 40), and leaves lines 1-20 free for a user's edit. */
const PROPOSAL = lines(20) + lines(20, 'new', 21);
const EDIT_TOP = BASE.replace('line 2\n', 'user 2\n');
const EDIT_BOTTOM = BASE.replace('line 30\n', 'user 30\n');

const staged = (files: Record<string, string> = { 'a.txt': BASE }): { repo: Repo; id: string } => {
  const repo = makeRepo(files);
  return { repo, id: stageWrite(repo, 'a.txt', PROPOSAL) };
};

test('confirm writes the staged bytes exactly and marks the ref applied', () => {
  const { repo, id } = staged();
  assert.equal(hasTestTree(repo), false, 'staging makes no test tree');
  const tree = openTestTree(repo, id);
  keepsUserState(repo, () => {
    const r = ok(fettle(repo, ['confirm', id]));
    assert.equal(r.stdout, `Applied ${id} to a.txt (+20 -20).\n`);
  });
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'proposal', 'before']);
  assert.match(repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`), /^Fettle-Kind: applied$/m);
  assert.ok(repo.gitBytes('cat-file', 'blob', `refs/fettle/${id}:a.txt`).equals(Buffer.from(PROPOSAL)));
  assert.ok(existsSync(`${tree}/a.txt`), 'confirm leaves the test tree (no removal on the command path)');
  assert.match(repo.git('worktree', 'list', '--porcelain'), new RegExp(`worktree ${tree}\n`));
});

test('confirm keeps the file mode (0755)', () => {
  const repo = makeRepo();
  repo.write('run.sh', BASE, 0o755);
  repo.commit();
  const id = stageWrite(repo, 'run.sh', PROPOSAL);
  assert.match(repo.git('ls-tree', `refs/fettle/${id}`, 'run.sh'), /^100755 /);
  keepsUserState(repo, () => ok(fettle(repo, ['confirm', id])));
  assert.equal(statSync(repo.path('run.sh')).mode & 0o777, 0o755);
  assert.ok(repo.read('run.sh').equals(Buffer.from(PROPOSAL)));
});

test('confirm keeps bytes that are not valid text exactly (CRLF, no final newline)', () => {
  const old = Buffer.from(lines(30).replace(/\n/g, '\r\n'));
  const next = Buffer.concat([
    Buffer.from(lines(30, 'crlf').replace(/\n/g, '\r\n')),
    Buffer.from('tail without newline'),
  ]);
  const repo = makeRepo({ 'w.txt': old });
  const id = stageWrite(repo, 'w.txt', next);
  keepsUserState(repo, () => ok(fettle(repo, ['confirm', id])));
  assert.ok(repo.read('w.txt').equals(next));
});

test('confirm of a path with spaces and non-ASCII characters, staged through a symlink', () => {
  const repo = makeRepo({ 'dir with space/ü ñ.txt': BASE });
  symlinkSync('dir with space/ü ñ.txt', repo.path('link.txt'));
  const id = stageWrite(repo, 'link.txt', PROPOSAL);
  keepsUserState(repo, () =>
    assert.equal(ok(fettle(repo, ['confirm', id])).stdout, `Applied ${id} to dir with space/ü ñ.txt (+20 -20).\n`),
  );
  assert.ok(repo.read('dir with space/ü ñ.txt').equals(Buffer.from(PROPOSAL)));
  assert.ok(lstatSync(repo.path('link.txt')).isSymbolicLink(), 'the link stays a link');
});

test('the test tree is locked: git worktree prune keeps it, and confirm still works', () => {
  const { repo, id } = staged();
  const tree = openTestTree(repo, id);
  assert.match(
    repo.git('worktree', 'list', '--porcelain'),
    new RegExp(`worktree ${tree}\n(.*\n)*locked fettle test tree of the commands' session ${scriptSession(repo)}`),
  );
  repo.git('worktree', 'prune');
  assert.ok(hasTestTree(repo));
  assert.ok(
    repo.read(`.git/fettle/worktrees/${testTreeName(repo)}/a.txt`).equals(Buffer.from(PROPOSAL)),
    'it holds the proposal',
  );
  ok(fettle(repo, ['confirm', id]));
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
});

test('confirm --json prints the result as one JSON object', () => {
  const { repo, id } = staged();
  const out = JSON.parse(ok(fettle(repo, ['confirm', id, '--json'])).stdout) as Record<string, unknown>;
  assert.deepEqual(out, { id, path: 'a.txt', file: repo.path('a.txt'), how: 'written', added: 20, removed: 20 });
});

test('confirm of a change staged by the hook applies it', () => {
  const repo = makeRepo({ 'a.txt': BASE });
  const pre = runHook(writePayload({ file: repo.path('a.txt'), content: PROPOSAL, cwd: repo.dir }), {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
  });
  const reason = pre.json?.hookSpecificOutput?.permissionDecisionReason ?? '';
  const id = /Staged change ([0-9a-z]{8})/.exec(reason)?.[1];
  assert.ok(id, pre.stdout);
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)), 'the hook wrote nothing');
  keepsUserState(repo, () => ok(fettle(repo, ['confirm', id])));
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
});

test('confirm after a non-overlapping edit on disk applies the clean 3-way merge and keeps the edit in history', () => {
  const { repo, id } = staged();
  repo.write('a.txt', EDIT_TOP);
  const tmp = tempDir();
  keepsUserState(repo, () => {
    const r = ok(fettle(repo, ['confirm', id], { env: { TMPDIR: tmp } }));
    assert.match(r.stdout, new RegExp(`^Applied ${id} to a\\.txt \\(\\+20 -20\\), merged with the edits made on disk`));
  });
  assert.equal(repo.read('a.txt').toString(), lines(1) + 'user 2\n' + lines(18, 'line', 3) + lines(20, 'new', 21));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'snapshot', 'proposal', 'before']);
  assert.ok(
    repo.gitBytes('cat-file', 'blob', `refs/fettle/${id}~1:a.txt`).equals(Buffer.from(EDIT_TOP)),
    "the user's pre-confirm bytes are kept",
  );
  assert.deepEqual(readdirSync(tmp), [], 'the merge leaves no temp files');
});

test('confirm after an overlapping edit refuses, writes nothing, and leaves the change pending', () => {
  const { repo, id } = staged();
  openTestTree(repo, id);
  const tip = refOid(repo, `refs/fettle/${id}`);
  repo.write('a.txt', EDIT_BOTTOM);
  const tmp = tempDir();
  keepsUserState(repo, () => {
    const r = fettle(repo, ['confirm', id], { env: { TMPDIR: tmp } });
    assert.equal(r.code, 5);
    assert.match(
      errorLine(r),
      new RegExp(`^${repo.path('a.txt')} changed after change ${id} was staged, and those edits overlap`),
    );
    assert.match(r.stderr, /Nothing was written; the change stays pending/);
  });
  assert.ok(repo.read('a.txt').equals(Buffer.from(EDIT_BOTTOM)), 'the file is unchanged');
  assert.equal(refOid(repo, `refs/fettle/${id}`), tip, 'the ref did not move');
  assert.deepEqual(
    statusJson(repo).pending.map((c) => [c.id, c.state]),
    [[id, 'pending']],
  );
  assert.ok(hasTestTree(repo), 'the test tree stays');
  assert.deepEqual(readdirSync(tmp), [], 'the merge leaves no temp files');
});

test('confirm after the file was deleted refuses and does not recreate it', () => {
  const { repo, id } = staged();
  unlinkSync(repo.path('a.txt'));
  keepsUserState(repo, () => {
    const r = fettle(repo, ['confirm', id]);
    assert.equal(r.code, 5);
    assert.equal(errorLine(r), `${repo.path('a.txt')} was deleted after change ${id} was staged.`);
    assert.match(r.stderr, /Nothing was written; the change stays pending/);
  });
  assert.equal(existsSync(repo.path('a.txt')), false);
  assert.deepEqual(
    statusJson(repo).pending.map((c) => c.id),
    [id],
  );
});

test('confirm when the file already holds the proposal records it without rewriting', () => {
  const { repo, id } = staged();
  repo.write('a.txt', PROPOSAL);
  const inode = statSync(repo.path('a.txt')).ino;
  const r = ok(fettle(repo, ['confirm', id]));
  assert.equal(r.stdout, `Applied ${id} to a.txt (+20 -20) (the file already held it).\n`);
  assert.equal(statSync(repo.path('a.txt')).ino, inode, 'not rewritten (a replace renames a new file in)');
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'proposal', 'before']);
});

test('confirm twice, and discard after confirm, say it was already applied', () => {
  const { repo, id } = staged();
  ok(fettle(repo, ['confirm', id]));
  const tip = refOid(repo, `refs/fettle/${id}`);
  keepsUserState(repo, () => {
    fails(fettle(repo, ['confirm', id]), `Change ${id} was already applied.`);
    fails(fettle(repo, ['discard', id]), `Change ${id} was already applied.`);
  });
  assert.equal(refOid(repo, `refs/fettle/${id}`), tip);
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
});

// [command, id]: ids of a valid shape that do not exist, and strings that are not ids at all.
const unknown: [string, string][] = [
  ['confirm', 'abcd1234'],
  ['confirm', '../x'],
  ['confirm', 'refs/heads/main'],
  ['confirm', 'ABCD1234'],
  ['discard', 'abcd1234'],
  ['discard', '../x'],
  ['rollback', 'abcd1234'],
  ['rollback', '../../etc/passwd'],
];
for (const [command, id] of unknown) {
  test(`${command} '${id}' (no such change) is refused with the baseline text`, () => {
    const { repo } = staged();
    keepsUserState(repo, () =>
      fails(fettle(repo, [command, id]), `No change '${id}'. It may have expired or been discarded.`),
    );
    assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
  });
}

test('a mistyped id gets the nearest change suggested, for confirm, discard and show', () => {
  const { repo, id } = staged();
  const typo = `${id.slice(0, 7)}${id[7] === 'z' ? 'y' : 'z'}`;
  for (const command of ['confirm', 'discard', 'show']) {
    const r = fettle(repo, [command, typo]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`No change '${typo}'.*\\n.*Did you mean ${id}\\?`, 's'));
  }
});

test('confirm --json of an unknown id prints the error as JSON', () => {
  const { repo } = staged();
  const r = fettle(repo, ['confirm', 'abcd1234', '--json']);
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout) as { error: { code: string; message: string } };
  assert.equal(out.error.code, 'E_NOT_FOUND');
  assert.equal(out.error.message, "No change 'abcd1234'. It may have expired or been discarded.");
});

// [seconds after staging, FETTLE_WRITE_STAGE_TTL, expected error or null when it applies]
const expiry: [number, string | undefined, string | null][] = [
  [599, undefined, null],
  [600, undefined, 'expired 1 minute ago'],
  [601, undefined, 'expired 1 minute ago'],
  [600 + 8 * 60, undefined, 'expired 8 minutes ago'],
  [61, '60', 'expired 1 minute ago'],
  [59, '60', null],
  [601, '3600', null],
];
for (const [after, ttl, expected] of expiry) {
  test(`confirm ${after} s after staging with TTL ${ttl ?? 'default'}: ${expected ?? 'applies'}`, () => {
    const { repo, id } = staged();
    const env: Record<string, string> = ttl ? { FETTLE_WRITE_STAGE_TTL: ttl } : {};
    const r = keepsUserState(repo, () => fettle(repo, ['confirm', id], { now: T0 + after, env }));
    if (expected === null) {
      ok(r);
      assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
      return;
    }
    fails(r, `Change ${id} ${expected}. Re-run the Write to try again.`);
    assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)), 'an expired change writes nothing');
    assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
  });
}

test('an expired change: the refusal names --expired, which a person runs to apply it over its base', () => {
  const { repo, id } = staged();
  const later = T0 + 601;
  const refused = fettle(repo, ['confirm', id], { now: later });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    new RegExp(
      `A person can still apply it, .*: \`${literal(SELF)} confirm ${id} --expired\`\\. Review it first with \`${literal(SELF)} review ${id}\``,
    ),
  );
  const r = keepsUserState(repo, () => ok(fettle(repo, ['confirm', id, '--expired'], { now: later, terminal: true })));
  assert.equal(r.stdout, `Applied ${id} to a.txt (+20 -20).\n`);
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'proposal', 'before']);
});

test("confirm --expired from the agent's shell is refused: the agent re-runs its Write", () => {
  const { repo, id } = staged();
  const r = fettle(repo, ['confirm', id, '--expired'], { now: T0 + 601, env: { CLAUDECODE: '1' } });
  assert.equal(r.code, 1);
  assert.match(
    errorLine(r),
    /^confirm --expired applies a change past its time to confirm, and only a person may do that/,
  );
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['proposal', 'before']);
});

test('confirm --expired still refuses when edits made since overlap the change', () => {
  const { repo, id } = staged();
  repo.write('a.txt', EDIT_BOTTOM);
  const r = fettle(repo, ['confirm', id, '--expired'], { now: T0 + 601, terminal: true });
  assert.equal(r.code, 5);
  assert.match(errorLine(r), /those edits overlap the staged ones/);
  assert.ok(repo.read('a.txt').equals(Buffer.from(EDIT_BOTTOM)));
});

test('confirm --with-conflicts writes the merge with conflict markers, recorded; rollback puts back the bytes it replaced', () => {
  const { repo, id } = staged();
  repo.write('a.txt', EDIT_BOTTOM);
  const refused = fettle(repo, ['confirm', id]);
  assert.match(
    refused.stderr,
    new RegExp(`\`${literal(SELF)} confirm ${id} --with-conflicts\` writes the merge with conflict markers`),
  );
  const r = keepsUserState(repo, () => ok(fettle(repo, ['confirm', id, '--with-conflicts'])));
  assert.equal(
    r.stdout,
    `Applied ${id} to a.txt (+20 -20), merged with the edits made on disk since it was staged; 1 overlapping region is marked in the file (<<<<<<< on disk ... >>>>>>> fettle). Resolve it in your editor, or undo this with \`${SELF} rollback ${id}\`.\n`,
  );
  const text = repo.read('a.txt').toString();
  assert.ok(text.startsWith(lines(20)), 'the lines nobody else changed are as they were');
  assert.match(text, /^<<<<<<< on disk\n(.*\n)*user 30\n(.*\n)*=======\n(.*\n)*new 30\n(.*\n)*>>>>>>> fettle\n/m);
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'snapshot', 'proposal', 'before']);
  const json = JSON.parse(ok(fettle(repo, ['show', id, '--json'])).stdout);
  assert.equal(json.state, 'applied');
  const undo = /Undo this with `(.+)`\.$/m.exec(ok(fettle(repo, ['rollback', id])).stdout)?.[1];
  assert.ok(undo, 'rollback prints its undo');
  assert.ok(repo.read('a.txt').equals(Buffer.from(EDIT_BOTTOM)), "rollback restores the user's bytes exactly");
});

test('confirm --with-conflicts changes nothing of a clean merge, and still refuses what cannot be merged', () => {
  const clean = staged();
  clean.repo.write('a.txt', EDIT_TOP);
  const r = ok(fettle(clean.repo, ['confirm', clean.id, '--with-conflicts', '--json']));
  assert.deepEqual([JSON.parse(r.stdout).how, JSON.parse(r.stdout).conflicts], ['merged', undefined]);
  const deleted = staged();
  unlinkSync(deleted.repo.path('a.txt'));
  const gone = fettle(deleted.repo, ['confirm', deleted.id, '--with-conflicts']);
  assert.equal(gone.code, 5);
  assert.match(errorLine(gone), /was deleted after change/);
  assert.equal(existsSync(deleted.repo.path('a.txt')), false);
});

test('an expired change shows as EXPIRED and can still be discarded', () => {
  const { repo, id } = staged();
  const later = T0 + 601;
  assert.match(ok(fettle(repo, ['status'], { now: later })).stdout, new RegExp(`^  ${id}  a\\.txt  .*EXPIRED$`, 'm'));
  assert.deepEqual(
    statusJson(repo, { now: later }).pending.map((c) => [c.id, c.state]),
    [[id, 'expired']],
  );
  keepsUserState(repo, () =>
    assert.equal(ok(fettle(repo, ['discard', id], { now: later })).stdout, `Discarded ${id}; a.txt was not touched.\n`),
  );
  assert.equal(refOid(repo, `refs/fettle/${id}`), null);
  assert.ok(refOid(repo, `refs/fettle-discarded/${id}`));
  assert.equal(hasTestTree(repo), false, 'nothing made a test tree');
  assert.ok(repo.read('a.txt').equals(Buffer.from(BASE)));
});

test('-C <dir> confirms from another working directory', () => {
  const { repo, id } = staged();
  keepsUserState(repo, () => ok(fettle(repo, ['-C', repo.dir, 'confirm', id], { cwd: repo.home })));
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
});

const runAsync = (repo: Repo, args: string[]): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: repo.dir,
      env: { ...repo.env, FETTLE_NOW: String(T0) },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });

test('two concurrent confirms of one change: exactly one applies it', async () => {
  const { repo, id } = staged();
  const results = await Promise.all([runAsync(repo, ['confirm', id]), runAsync(repo, ['confirm', id])]);
  assert.deepEqual(results.map((r) => r.code).sort(), [0, 1], JSON.stringify(results));
  assert.match(results.find((r) => r.code === 1)?.stderr ?? '', new RegExp(`Change ${id} was already applied\\.`));
  assert.deepEqual(kinds(repo, `refs/fettle/${id}`), ['applied', 'proposal', 'before']);
  assert.ok(repo.read('a.txt').equals(Buffer.from(PROPOSAL)));
});
