// `fettle hook` for the Write tool, end to end: the built CLI in its own process, real repositories, the
// payloads Claude Code sends. Every scenario also checks that the user's HEAD, branches, index, config and
// hooks come out exactly as they went in.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { agentWrite, CLI, literal, runHook, writePayload, type HookRun, type WriteCall } from '../helpers/cli';
import { lines, makeRepo, userState, type Repo } from '../helpers/repo';
import { openTestTree, testTreeDir } from '../helpers/stage';
import { landedText } from '../helpers/tools';

type Env = Record<string, string>;

/** `commit: false` leaves HEAD unborn; `setup` runs before the user's state is captured. */
interface Scenario {
  files?: Record<string, string | Buffer>;
  commit?: boolean;
  setup?: (repo: Repo) => void;
  todo?: string;
}

/** userState() without the hooks listing's `..` row: the git dir's link count grows with fettle's own folders. */
const state = (repo: Repo): unknown => {
  const s = JSON.parse(userState(repo)) as Record<string, string>;
  const rows = (s.hooks ?? '').split('\n').filter((row) => !/ \.\.$/.test(row) && !row.startsWith('total '));
  return { ...s, hooks: rows.map((row) => row.trim().split(/\s+/).join(' ')) };
};

const scenario = (name: string, s: Scenario, body: (repo: Repo) => void | Promise<void>): void => {
  test(name, s.todo ? { todo: s.todo } : {}, async () => {
    const repo = makeRepo(s.files ?? { 'README.md': 'readme\n' }, { commit: s.commit });
    s.setup?.(repo);
    const before = state(repo);
    await body(repo);
    assert.deepEqual(state(repo), before, "the user's HEAD, branches, index, config and hooks are untouched");
  });
};

const hook = (repo: Repo, file: string, content: string, over: Partial<WriteCall> = {}, extra: Env = {}): HookRun =>
  runHook(writePayload({ file: repo.path(file), content, cwd: repo.dir, ...over }), {
    cwd: repo.dir,
    env: { ...repo.env, ...extra },
  });

/** The whole Write as Claude Code runs it: PreToolUse, the tool's own write (unless denied), PostToolUse. */
const write = (repo: Repo, file: string, content: string, extra: Env = {}, over: Partial<WriteCall> = {}) =>
  agentWrite({ file: repo.path(file), content, cwd: repo.dir, ...over }, { ...repo.env, ...extra }, (p, c) => {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, c);
  });

const show = (r: HookRun | undefined): string =>
  r ? `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}` : 'no run';
const hso = (r: HookRun | undefined) => r?.json?.hookSpecificOutput;
const onDisk = (repo: Repo, file: string): Buffer | null => (existsSync(repo.path(file)) ? repo.read(file) : null);
const fettleRefs = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(refname)', 'refs/fettle/', 'refs/fettle-discarded/')
    .split('\n')
    .filter((r) => r && !r.startsWith('refs/fettle/sessions/'));
const allRefs = (repo: Repo): string => repo.git('for-each-ref', '--format=%(refname) %(objectname)');
const worktrees = (repo: Repo): string[] => repo.git('worktree', 'list', '--porcelain').split('\n\n');
const blobAt = (repo: Repo, rev: string, file: string): Buffer | null =>
  repo.git('ls-tree', rev, '--', file) === '' ? null : repo.gitBytes('show', `${rev}:${file}`);

/** One stderr line, no stack trace: Claude Code shows the user only the first line. */
const oneLine = (text: string): void => {
  assert.doesNotMatch(text, /\n {4}at /, 'no stack trace');
  assert.equal(text.trimEnd().split('\n').length, 1, `one line: ${JSON.stringify(text)}`);
};

/** A staged PreToolUse: exit 0, deny, reason naming the id and both commands. Returns the reason. */
const expectDenied = (pre: HookRun, id: string): string => {
  assert.deepEqual(
    [pre.code, hso(pre)?.hookEventName, hso(pre)?.permissionDecision],
    [0, 'PreToolUse', 'deny'],
    show(pre),
  );
  const reason = hso(pre)?.permissionDecisionReason ?? '';
  assert.match(reason.split('\n')[0] ?? '', /nothing was written/);
  assert.match(reason, new RegExp(`\\b${id}\\b`));
  assert.match(reason, new RegExp(`^To apply it, run: .*\\bconfirm ${id}$`, 'm'));
  assert.match(reason, new RegExp(`^To drop it, run: .*\\bdiscard ${id}$`, 'm'));
  return reason;
};

/** A direct Write: silent PreToolUse, one PostToolUse line naming the id and its undo. Returns the line. */
const expectRecorded = (run: ReturnType<typeof write>, id: string): string => {
  assert.equal(run.pre.code, 0, show(run.pre));
  assert.equal(run.pre.stdout, '', `a direct PreToolUse makes no decision: ${show(run.pre)}`);
  assert.ok(run.written && run.post, show(run.pre));
  assert.deepEqual([run.post.code, hso(run.post)?.hookEventName], [0, 'PostToolUse'], show(run.post));
  const line = hso(run.post)?.additionalContext ?? '';
  assert.doesNotMatch(line, /\n/, 'one line of context');
  assert.match(line, new RegExp(`\\b${id}\\b.*\\brollback ${id}$`), line);
  return line;
};

/**
 * Runs one Write end to end and checks the invariants of the tier it took: one new change, the previous
 * bytes at fettle/<id>^, the proposed ones at fettle/<id>, the disk untouched when staged. Returns e.g.
 * `direct +5 -5` or `staged +6 -5 to a 10-line file`.
 */
const tierOf = (
  repo: Repo,
  file: string,
  next: string,
  extra: Env = {},
): { tier: string; id: string; text: string } => {
  const old = onDisk(repo, file);
  const known = fettleRefs(repo);
  const run = write(repo, file, next, extra);
  const fresh = fettleRefs(repo).filter((r) => !known.includes(r));
  assert.equal(fresh.length, 1, `one change per Write: ${fresh.join(' ')}\n${show(run.pre)}`);
  const id = fresh[0]!.replace('refs/fettle/', '');
  assert.deepEqual(blobAt(repo, `fettle/${id}^`, file), old, 'fettle/<id>^ holds the previous bytes');
  assert.deepEqual(blobAt(repo, `fettle/${id}`, file), Buffer.from(next), 'fettle/<id> holds the written bytes');
  if (!run.written) {
    const text = expectDenied(run.pre, id);
    assert.deepEqual(onDisk(repo, file), old, 'a staged write leaves the file untouched');
    return { tier: `staged ${/\+\d+ -\d+ to (?:an empty|a \d+-line) file/.exec(text)?.[0]}`, id, text };
  }
  const text = expectRecorded(run, id);
  assert.deepEqual(onDisk(repo, file), Buffer.from(next));
  // The note says what the file holds now, then the change: only the change is the tier's.
  const change = new RegExp(` \\(${literal(landedText(next))}, (.+)\\) as \\w+;`).exec(text)?.[1];
  return { tier: `direct ${change ?? text}`, id, text };
};

/** `total` numbered lines, the first `modified` of them rewritten, then `appended` new lines. */
const edit = (total: number, modified: number, appended = 0): string =>
  lines(modified, 'LINE') + lines(total - modified, 'line', modified + 1) + lines(appended, 'extra');

// --- new files and direct changes ----------------------------------------------------------------

scenario('new file: passes through, then PostToolUse records it on top of HEAD', {}, (repo) => {
  const { tier, id, text } = tierOf(repo, 'src/new/file.ts', 'export const x = 1;\n');
  assert.equal(tier, 'direct new file');
  assert.match(text, /src\/new\/file\.ts/);
  assert.equal(repo.git('log', '--format=%s', `fettle/${id}`).split('\n').length, 3, 'after, before, initial');
  assert.equal(repo.git('rev-parse', `fettle/${id}^^`), repo.git('rev-parse', 'HEAD'));
});

scenario(
  'small diff: direct, previous bytes restorable byte-exact from git',
  { files: { 'a.txt': lines(20) } },
  (repo) => {
    const old = repo.read('a.txt');
    const { tier, id } = tierOf(repo, 'a.txt', edit(20, 1));
    assert.equal(tier, 'direct +1 -1 ~1');
    assert.deepEqual(repo.gitBytes('show', `fettle/${id}^:a.txt`), old);
    assert.match(repo.git('log', '--glob=fettle/*', '--format=%H'), new RegExp(repo.git('rev-parse', `fettle/${id}`)));
    const pending = repo.path('.git/fettle/tool-use');
    assert.deepEqual(existsSync(pending) ? readdirSync(pending) : [], [], 'no pending tool-use records left');
  },
);

// [label, previous bytes on disk, expected]. Claude Code refuses to write over the first two (fettle does not
// predict a refused write: it records the previous bytes and lets the tool report); here the tool writes anyway.
const opaque: [string, Buffer, string][] = [
  ['binary (00 01 02)', Buffer.from([0x00, 0x01, 0x02]), 'direct changed by the tool'],
  ['non-UTF-8 text (latin-1)', Buffer.from('caf\xe9\nna\xefve\n', 'latin1'), 'direct changed by the tool'],
  ['text over 5 MB', Buffer.from(lines(600_000)), 'direct over 5 MB, not diffed'],
];
for (const [label, bytes, expected] of opaque) {
  scenario(`direct over ${label}: previous bytes kept exactly`, { files: { 'data.bin': bytes } }, (repo) => {
    const { tier, id } = tierOf(repo, 'data.bin', lines(50));
    assert.equal(tier, expected);
    assert.deepEqual(repo.gitBytes('show', `fettle/${id}^:data.bin`), bytes);
  });
}

scenario(
  'executable file: mode 100755 kept in the record',
  { setup: (r) => (r.write('run.sh', '#!/bin/sh\necho hi\n', 0o755), r.commit('exec')) },
  (repo) => {
    const { tier, id } = tierOf(repo, 'run.sh', '#!/bin/sh\necho hello\n');
    assert.equal(tier, 'direct +1 -1 ~1');
    assert.match(repo.git('ls-tree', `fettle/${id}^`, '--', 'run.sh'), /^100755 blob /);
    assert.match(repo.git('ls-tree', `fettle/${id}`, '--', 'run.sh'), /^100755 blob /);
    assert.equal(statSync(repo.path('run.sh')).mode & 0o777, 0o755);
  },
);

scenario(
  'the printed undo command runs as printed and restores the old bytes',
  { files: { 'a.txt': lines(20) } },
  (repo) => {
    const old = repo.read('a.txt');
    const { text } = tierOf(repo, 'a.txt', edit(20, 2));
    execFileSync('sh', ['-c', /undo with: (.+)$/.exec(text)![1]!], { cwd: repo.dir, env: repo.env, stdio: 'pipe' });
    assert.deepEqual(repo.read('a.txt'), old);
  },
);

scenario(
  'a Write replaced by another writer before its PostToolUse: both versions are kept, the first-parent chain as usual',
  {
    files: { 'a.txt': lines(30) },
  },
  (repo) => {
    const mine = lines(30).replace('line 3\n', 'mine\n');
    const theirs = lines(30).replace('line 9\n', 'theirs\n');
    const run = agentWrite({ file: repo.path('a.txt'), content: mine, cwd: repo.dir }, repo.env, (p, c) => {
      writeFileSync(p, c);
      writeFileSync(p, theirs); // another agent, between the tool's write and this PostToolUse
    });
    assert.deepEqual([run.pre.code, run.post?.code], [0, 0], show(run.post));
    const [ref] = fettleRefs(repo);
    assert.ok(ref);
    assert.equal(blobAt(repo, ref, 'a.txt')?.toString(), theirs, 'the tip holds what was on disk');
    assert.equal(blobAt(repo, `${ref}^2`, 'a.txt')?.toString(), mine, "its second parent holds the Write's own bytes");
    assert.equal(blobAt(repo, `${ref}^1`, 'a.txt')?.toString(), lines(30), 'the first parent is the before record');
    assert.match(repo.git('log', '-1', '--format=%B', ref), /another writer replaced its bytes/);
    assert.equal(repo.git('log', '-1', '--format=%(trailers:key=Fettle-Kind,valueonly)', `${ref}^2`), 'after');
  },
);

// --- staged changes --------------------------------------------------------------------------------

scenario(
  'large diff: staged as a commit, denied with the diff, file untouched',
  {
    files: { 'a.txt': lines(30), 'b.txt': 'other\n' },
    setup: (r) => r.write('b.txt', 'edited but not committed\n'),
  },
  (repo) => {
    const { tier, id, text } = tierOf(repo, 'a.txt', lines(30, 'LINE'));
    assert.equal(tier, 'staged +30 -30 to a 30-line file');
    for (const l of ['--- a/a.txt', '+++ b/a.txt', '@@ -1,30 +1,30 @@', '-line 1', '+LINE 30'])
      assert.ok(text.split('\n').includes(l), l);
    assert.equal(
      repo.git('show', '--name-only', '--format=', `fettle/${id}`),
      'a.txt',
      'git show is exactly the change',
    );
    assert.equal(repo.git('rev-parse', `fettle/${id}^^`), repo.git('rev-parse', 'HEAD'));
    assert.equal(
      repo.git('diff', '--name-only', 'HEAD', `fettle/${id}`),
      'a.txt',
      'only the written file, no other edits',
    );
    assert.match(repo.git('diff', 'HEAD', `fettle/${id}`), /^\+LINE 1$/m);
    assert.match(
      repo.git('log', '--glob=fettle/*', '--format=%H %s'),
      new RegExp(`^${repo.git('rev-parse', `fettle/${id}`)} .*a\\.txt`, 'm'),
    );
    const dir = testTreeDir(repo, 'session-1');
    assert.equal(existsSync(dir), false, 'staging makes no test tree');
    assert.equal(openTestTree(repo, id), dir);
    assert.equal(
      readFileSync(`${dir}/a.txt`, 'utf8'),
      lines(30, 'LINE'),
      "the session's test tree, made on first use, holds the proposal",
    );
    const entry = worktrees(repo).find((w) => w.startsWith(`worktree ${dir}\n`));
    assert.ok(entry, worktrees(repo).join('\n\n'));
    assert.match(entry, /^locked\b/m);
  },
);

scenario('a staged diff is capped near 200 lines and says what was cut', { files: { 'a.txt': lines(300) } }, (repo) => {
  const { tier, id, text } = tierOf(repo, 'a.txt', lines(300, 'LINE'));
  assert.equal(tier, 'staged +300 -300 to a 300-line file');
  const body = text.split('\n').slice(text.split('\n').indexOf('+++ b/a.txt') + 1);
  const note = /^\[(\d+) more diff lines not shown; see them with: git show fettle\/(\w+)\]$/.exec(body.pop() ?? '');
  assert.ok(note, text.slice(-300));
  assert.equal(note[2], id);
  assert.ok(body.length >= 190 && body.length <= 210, `${body.length} diff lines shown`);
  const real = body.filter((l) => !/^\[\d+ more (removed|added) lines\]$/.test(l));
  assert.equal(real.length + Number(note[1]), 1 + 600, 'shown + cut = the whole hunk');
  assert.equal(
    repo
      .git('show', '--format=', `fettle/${id}`)
      .split('\n')
      .filter((l) => /^[-+][lL]/.test(l)).length,
    600,
  );
});

// A rewrite is all removals, then all additions: a cap on the first lines alone showed only what goes.
scenario(
  'a staged rewrite of 3,000 lines shows both sides within the cap, each saying what it left out',
  { files: { 'a.txt': lines(3000) } },
  (repo) => {
    const { tier, text } = tierOf(repo, 'a.txt', lines(3000, 'LINE'));
    assert.equal(tier, 'staged +3000 -3000 to a 3000-line file');
    const body = text.split('\n').slice(text.split('\n').indexOf('+++ b/a.txt') + 1);
    const removed = body.filter((l) => l.startsWith('-line ')).length;
    const added = body.filter((l) => l.startsWith('+LINE ')).length;
    assert.ok(removed >= 40 && added >= 40, `-${removed} +${added}`);
    assert.ok(body.includes(`[${3000 - removed} more removed lines]`), text.slice(0, 300));
    assert.ok(text.length < 7000, `${text.length} characters`);
  },
);

// 12 lines of 6,000 characters each once made a 144,591-character reason: the model is shown a bounded diff.
scenario(
  'a staged diff of long lines is capped by characters and says what was cut',
  { files: { 'a.txt': Array.from({ length: 12 }, (_, i) => `${i}${'a'.repeat(6000)}\n`).join('') } },
  (repo) => {
    const next = Array.from({ length: 12 }, (_, i) => `${i}${'b'.repeat(6000)}\n`).join('');
    const { tier, id, text } = tierOf(repo, 'a.txt', next);
    assert.equal(tier, 'staged +12 -12 to a 12-line file');
    assert.ok(text.length < 10_000, `${text.length} characters shown`);
    assert.match(text, /^-0a{398} \[… 5602 more characters\]$/m, 'a long line is cut with its count');
    const shortened = /^\[(\d+) long lines cut at 400 characters; see them whole with: git show fettle\/(\w+)\]$/m.exec(
      text,
    );
    const cut = /^\[(\d+) more diff lines not shown; see them with: git show fettle\/(\w+)\]$/m.exec(text);
    assert.ok(shortened && cut, text.slice(-400));
    assert.deepEqual([shortened[2], cut[2]], [id, id]);
    const shown = text.split('\n').filter((l) => /^[-+]\d/.test(l)).length;
    assert.equal(Number(shortened[1]), shown, 'every shown line was cut');
    assert.equal(shown + Number(cut[1]), 24 + 0, 'shown + cut = every changed line (the last cut rows are diff lines)');
  },
);

for (const where of ['repo', 'home'] as const) {
  scenario(
    `the printed confirm command runs as printed from the agent's cwd (${where})`,
    { files: { 'a.txt': lines(30) } },
    (repo) => {
      const cwd = where === 'repo' ? repo.dir : repo.home;
      const run = write(repo, 'a.txt', lines(30, 'LINE'), {}, { cwd });
      const cmd = /^To apply it, run: (.+)$/m.exec(hso(run.pre)?.permissionDecisionReason ?? '')?.[1];
      assert.ok(cmd, show(run.pre));
      execFileSync('sh', ['-c', cmd], { cwd, env: repo.env, stdio: 'pipe' });
      assert.equal(repo.read('a.txt').toString(), lines(30, 'LINE'));
      assert.equal(worktrees(repo).length, 1, 'confirm makes no worktree');
    },
  );
}

scenario(
  'unborn HEAD: a staged change has a parentless base',
  { files: { 'a.txt': lines(30) }, commit: false },
  (repo) => {
    const { tier, id } = tierOf(repo, 'a.txt', lines(30, 'LINE'));
    assert.equal(tier, 'staged +30 -30 to a 30-line file');
    assert.equal(repo.git('rev-list', '--count', `fettle/${id}`), '2');
  },
);

// --- thresholds, end to end, both sides of each boundary (a modified line is -1 +1) ----------------

// [label, old content, new content, env, expected]
const boundaries: [string, string, string, Env, string][] = [
  ['floor: 10 changed of 10 lines', lines(10), edit(10, 5), {}, 'direct +5 -5 ~5'],
  ['floor: 11 changed of 10 lines', lines(10), edit(10, 5, 1), {}, 'staged +6 -5 to a 10-line file'],
  ['ceil: 79 changed of 1000 lines', lines(1000), edit(1000, 39, 1), {}, 'direct +40 -39 ~39'],
  ['ceil: 80 changed of 1000 lines', lines(1000), edit(1000, 40), {}, 'staged +40 -40 to a 1000-line file'],
  ['ratio: 12 of 30 lines = 0.40', lines(30), edit(30, 6), {}, 'direct +6 -6 ~6'],
  ['ratio: 13 of 30 lines > 0.40', lines(30), edit(30, 6, 1), {}, 'staged +7 -6 to a 30-line file'],
  ['empty file: 5 new lines', '', lines(5), {}, 'direct +5 -0 ~0'],
  ['empty file: 20 new lines', '', lines(20), {}, 'staged +20 -0 to an empty file'],
  ['FETTLE_WRITE_FLOOR=11 lets 11 through', lines(10), edit(10, 5, 1), { FETTLE_WRITE_FLOOR: '11' }, 'direct +6 -5 ~5'],
  [
    'FETTLE_WRITE_CEIL=50 stages 50 of 1000',
    lines(1000),
    edit(1000, 25),
    { FETTLE_WRITE_CEIL: '50' },
    'staged +25 -25 to a 1000-line file',
  ],
  [
    'FETTLE_WRITE_CEIL=50 passes 49 of 1000',
    lines(1000),
    edit(1000, 24, 1),
    { FETTLE_WRITE_CEIL: '50' },
    'direct +25 -24 ~24',
  ],
  [
    'FETTLE_WRITE_RATIO=0.5 lets 13 of 30 through',
    lines(30),
    edit(30, 6, 1),
    { FETTLE_WRITE_RATIO: '0.5' },
    'direct +7 -6 ~6',
  ],
  [
    'FETTLE_WRITE_RATIO=0.1 stages 12 of 100',
    lines(100),
    edit(100, 6),
    { FETTLE_WRITE_RATIO: '0.1' },
    'staged +6 -6 to a 100-line file',
  ],
];
for (const [label, old, next, env, expected] of boundaries) {
  scenario(label, { files: { 'f.txt': old } }, (repo) => assert.equal(tierOf(repo, 'f.txt', next, env).tier, expected));
}

// --- no-ops, plan mode, permission modes ------------------------------------------------------------

scenario('identical content: one-line no-op, nothing recorded', { files: { 'a.txt': lines(5) } }, (repo) => {
  const run = write(repo, 'a.txt', lines(5));
  assert.deepEqual([run.pre.code, hso(run.pre)?.permissionDecision], [0, undefined], show(run.pre));
  assert.match(hso(run.pre)?.additionalContext ?? '', /^[^\n]*a\.txt[^\n]*$/, 'one line naming the file');
  assert.deepEqual([run.post?.code, run.post?.stdout], [0, ''], `nothing to report after the write: ${show(run.post)}`);
  assert.deepEqual(fettleRefs(repo), []);
  assert.equal(worktrees(repo).length, 1);
});

scenario('plan mode: PreToolUse does nothing at all', { files: { 'a.txt': lines(30) } }, (repo) => {
  for (const [file, content] of [
    ['a.txt', edit(30, 1)],
    ['a.txt', lines(30, 'LINE')],
    ['new.txt', 'x\n'],
  ] as const) {
    const pre = hook(repo, file, content, { mode: 'plan' });
    assert.deepEqual([pre.code, pre.stdout, pre.stderr], [0, '', ''], `${file}: ${show(pre)}`);
  }
  assert.equal(repo.read('a.txt').toString(), lines(30));
  assert.ok(!existsSync(repo.path('new.txt')));
  assert.deepEqual(fettleRefs(repo), []);
  assert.ok(!existsSync(repo.path('.git/fettle')), 'nothing recorded');
});

// --- paths fettle never handles ---------------------------------------------------------------------

const stageOne = (r: Repo): string => {
  r.write('a.txt', lines(30));
  hook(r, 'a.txt', lines(30, 'LINE'), { toolUseId: 'toolu_setup' });
  const id = fettleRefs(r)[0]?.replace('refs/fettle/', '');
  assert.ok(id, 'setup staged a change');
  const dir = openTestTree(r, id);
  assert.ok(existsSync(`${dir}/.git`), 'a real linked worktree, with its .git file');
  return `${dir.slice(r.dir.length + 1)}/a.txt`;
};
// [label, path in the repo (or setup that returns it)]
const gitPaths: [string, string | ((r: Repo) => string)][] = [
  ['the repository config', '.git/config'],
  ['a new hook script', '.git/hooks/x'],
  ['.GIT in another case', '.GIT/config'],
  [
    "a nested repository's git dir",
    (r) => (execFileSync('git', ['init', '-q', r.path('sub')], { env: r.env }), 'sub/.git/config'),
  ],
  ['a symlink pointing into .git', (r) => (symlinkSync('.git/config', r.path('cfg')), 'cfg')],
  ["fettle's own hidden worktree", stageOne],
];
for (const [label, where] of gitPaths) {
  let file = '';
  scenario(
    `inside .git: ${label} is left alone`,
    { setup: (r) => void (file = typeof where === 'string' ? where : where(r)) },
    (repo) => {
      const [refs, bytes] = [allRefs(repo), onDisk(repo, file)];
      for (const event of ['PreToolUse', 'PostToolUse'] as const) {
        const r = hook(repo, file, lines(40, 'evil'), { event, toolUseId: 'toolu_git' });
        assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `${event}: ${show(r)}`);
      }
      assert.deepEqual(onDisk(repo, file), bytes);
      assert.equal(allRefs(repo), refs, 'no refs created');
    },
  );
}

// Targets the Write tool itself fails on: fettle stays out of the way and lets the tool report the error.
// [label, path in the repo, todo]
const notFiles: [string, string, string?][] = [
  ['a directory', 'src'],
  ['a path below a regular file', 'README.md/x'],
];
for (const [label, file, todo] of notFiles) {
  scenario(`not a file: ${label} passes through`, { setup: (r) => r.write('src/a.ts', 'a\n'), todo }, (repo) => {
    const r = hook(repo, file, 'x\n');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], show(r));
    assert.deepEqual(fettleRefs(repo), []);
  });
}

scenario('names that merely contain .git are protected as usual', {}, (repo) => {
  for (const file of ['.gitignore', '.github/ci.yml', 'x.git/f'])
    assert.equal(tierOf(repo, file, 'x\n').tier, 'direct new file', file);
});

// --- failures: each maps to a deliberate exit code -----------------------------------------------------

// [label, raw stdin built from a valid payload, exit code]
type Payload = ReturnType<typeof writePayload> & { tool_input: Record<string, unknown> };
const malformed: [string, (p: Payload) => string, 0 | 1][] = [
  ['empty stdin', () => '', 1],
  ['truncated JSON', (p) => JSON.stringify(p).slice(0, 60), 1],
  ['a JSON array', (p) => JSON.stringify([p]), 1],
  ['no tool_input', (p) => JSON.stringify({ ...p, tool_input: undefined }), 1],
  ['content not a string', (p) => JSON.stringify({ ...p, tool_input: { ...p.tool_input, content: 42 } }), 1],
  [
    'file_path with NUL',
    (p) => JSON.stringify({ ...p, tool_input: { ...p.tool_input, file_path: `${p.tool_input.file_path}\0x` } }),
    1,
  ],
  ['invalid JSON spread over lines', (p) => JSON.stringify(p, null, 2).replace('"Write"', 'Write'), 1],
  ['tool Bash', (p) => JSON.stringify({ ...p, tool_name: 'Bash', tool_input: { command: 'rm -rf a.txt' } }), 0],
  [
    'tool Read',
    (p) => JSON.stringify({ ...p, tool_name: 'Read', tool_input: { file_path: p.tool_input.file_path } }),
    0,
  ],
  ['unknown event', (p) => JSON.stringify({ ...p, hook_event_name: 'PermissionRequest' }), 0],
];
for (const [label, raw, code] of malformed) {
  scenario(`malformed payload: ${label} -> exit ${code}`, { files: { 'a.txt': lines(30) } }, (repo) => {
    const input = raw(writePayload({ file: repo.path('a.txt'), content: lines(30, 'LINE'), cwd: repo.dir }) as Payload);
    const r = runHook(input, { cwd: repo.dir, env: repo.env });
    assert.deepEqual([r.code, r.stdout], [code, ''], show(r));
    if (code === 0) assert.equal(r.stderr, '');
    else assert.match(r.stderr, /^fettle:/), oneLine(r.stderr);
    assert.equal(repo.read('a.txt').toString(), lines(30));
    assert.deepEqual(fettleRefs(repo), []);
  });
}

// [label, env, the variable the message must name]
const badConfig: [string, Env, string][] = [
  ['FETTLE_WRITE_FLOOR=abc', { FETTLE_WRITE_FLOOR: 'abc' }, 'FETTLE_WRITE_FLOOR'],
  ['FETTLE_WRITE_RATIO=2', { FETTLE_WRITE_RATIO: '2' }, 'FETTLE_WRITE_RATIO'],
  ['FETTLE_WRITE_CEIL below the floor', { FETTLE_WRITE_CEIL: '5' }, 'FETTLE_WRITE_CEIL'],
  ['FETTLE_ON_ERROR=maybe', { FETTLE_ON_ERROR: 'maybe' }, 'FETTLE_ON_ERROR'],
];
for (const [label, env, name] of badConfig) {
  scenario(
    `invalid config ${label}: blocks with exit 2 naming the variable`,
    { files: { 'a.txt': lines(30) } },
    (repo) => {
      const r = hook(repo, 'a.txt', edit(30, 1), {}, env);
      assert.deepEqual([r.code, r.stdout], [2, ''], show(r));
      assert.match(r.stderr, new RegExp(name));
      assert.match(r.stderr, /nothing was written/);
      oneLine(r.stderr);
      assert.equal(repo.read('a.txt').toString(), lines(30));
      assert.deepEqual(fettleRefs(repo), []);
    },
  );
}

// `.git/refs/fettle` as a regular file: no ref under it can be created (root ignores read-only modes).
const breakRefs = (r: Repo) => writeFileSync(r.path('.git/refs/fettle'), '');
// [label, new content, env, exit code]
const failures: [string, string, Env, 1 | 2][] = [
  ['direct', edit(30, 1), {}, 2],
  ['staged', lines(30, 'LINE'), {}, 2],
  ['direct with FETTLE_ON_ERROR=allow', edit(30, 1), { FETTLE_ON_ERROR: 'allow' }, 1],
  ['staged with FETTLE_ON_ERROR=allow', lines(30, 'LINE'), { FETTLE_ON_ERROR: 'allow' }, 1],
];
for (const [label, next, env, code] of failures) {
  scenario(
    `recording fails (${label}) -> exit ${code}`,
    { files: { 'a.txt': lines(30) }, setup: breakRefs },
    (repo) => {
      const r = hook(repo, 'a.txt', next, {}, env);
      assert.deepEqual([r.code, r.stdout], [code, ''], show(r));
      oneLine(r.stderr);
      if (code === 2) assert.match(r.stderr, /nothing was written/), assert.match(r.stderr, /FETTLE_ON_ERROR=allow/);
      else assert.match(r.stderr, /NOT protected/);
      assert.match(r.stderr, /refs\/fettle/, 'names the real cause');
      assert.doesNotMatch(r.stderr, /another fettle process/, 'a broken ref store is not a lost race');
      assert.equal(repo.read('a.txt').toString(), lines(30));
      assert.equal(worktrees(repo).length, 1, 'no hidden worktree left behind');
    },
  );
}

scenario(
  'recording fails: the cause ends its sentence before the advice',
  {
    files: { 'a.txt': lines(30) },
    setup: breakRefs,
  },
  (repo) => assert.match(hook(repo, 'a.txt', edit(30, 1)).stderr, /[.!?)] To let writes through/),
);

// --- concurrency: hooks of parallel sessions and subagents run as separate processes at once ------------

const hookAsync = (repo: Repo, payload: unknown): Promise<HookRun> =>
  new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, 'hook'], { cwd: repo.dir, env: repo.env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined }),
    );
    child.stdin?.end(JSON.stringify(payload));
  });
const parallel = (repo: Repo, n: number, content: string) =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      hookAsync(repo, writePayload({ file: repo.path(`f${i}.txt`), content, cwd: repo.dir, toolUseId: `toolu_p${i}` })),
    ),
  );
const tenFiles = (r: Repo) => Array.from({ length: 10 }, (_, i) => r.write(`f${i}.txt`, lines(30)));

scenario('concurrent direct Writes to different files are all recorded', { setup: tenFiles }, async (repo) => {
  const runs = await parallel(repo, 10, edit(30, 1));
  for (const r of runs) assert.deepEqual([r.code, r.stdout], [0, ''], show(r));
  assert.equal(fettleRefs(repo).length, 10);
});

scenario('concurrent staged Writes to different files are all staged', { setup: tenFiles }, async (repo) => {
  const runs = await parallel(repo, 10, lines(30, 'LINE'));
  for (const r of runs) assert.equal(hso(r)?.permissionDecision, 'deny', show(r));
  assert.equal(fettleRefs(repo).length, 10);
  assert.equal(worktrees(repo).length, 1, 'only the main worktree: staging makes none');
});
