// `fettle hook` for Edit and MultiEdit, end to end: the built CLI in its own process, real repositories. fettle
// computes what the edit leaves on disk and decides as for a Write; where it cannot be sure of the tool's
// result it keeps the previous bytes, answers nothing, and records whatever the tool wrote.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { lines, type Repo } from '../helpers/repo';
import { T0 } from '../helpers/stage';
import {
  assertSilent,
  blobAt,
  type CallOpts,
  changeOf,
  denied,
  directNote,
  editInput,
  fettleRefs,
  hook,
  type Input,
  kindAt,
  landedText,
  multiEditInput,
  onDisk,
  recordedLine,
  scenario,
  show,
  STAGE_ALL,
  toolCall,
  type ToolRun,
} from '../helpers/tools';

const A30 = { 'a.txt': lines(30) };
/** lines 1..n of `lines(30)`, as one old_string without the final newline */
const block = (n: number, word = 'line'): string => lines(n, word).slice(0, -1);

/**
 * One Edit/MultiEdit call; the tool writes `landed` (null: the tool fails). Returns the run and the id of the
 * one change it created.
 */
const call = (
  repo: Repo,
  tool: string,
  input: Input,
  landed: string | null,
  o: CallOpts = {},
): { run: ToolRun; id: string; tip: string } => {
  const known = fettleRefs(repo);
  const file = input.file_path as string;
  const run = toolCall(
    repo,
    tool,
    input,
    () => (landed === null ? false : (mkdirSync(dirname(file), { recursive: true }), writeFileSync(file, landed))),
    o,
  );
  return { run, ...changeOf(repo, run, known) };
};
const edit = (repo: Repo, old: string, next: string, all?: boolean) => editInput(repo.path('a.txt'), old, next, all);

scenario('Edit, small: passes through, then PostToolUse records old and new bytes', A30, (repo) => {
  const [old, next] = [repo.read('a.txt'), lines(30).replace('line 5\n', 'LINE 5\n')];
  const { run, id } = call(repo, 'Edit', edit(repo, 'line 5\n', 'LINE 5\n'), next);
  assertSilent(run.pre, 'a direct PreToolUse');
  assert.match(recordedLine(run.post, id), directNote('a.txt', `${landedText(next)}, +1 -1 ~1`, id));
  assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'a.txt'), old);
  assert.deepEqual(blobAt(repo, `fettle/${id}`, 'a.txt'), Buffer.from(next));
  assert.deepEqual([kindAt(repo, `fettle/${id}`), kindAt(repo, `fettle/${id}^`)], ['after', 'before']);
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}`), /^Fettle-Tool: Edit$/m);
});

scenario('Edit, large: staged, denied with the diff, file untouched; the printed confirm applies it', A30, (repo) => {
  const old = repo.read('a.txt');
  const expected = lines(15, 'LINE') + lines(15, 'line', 16);
  const { run, id } = call(repo, 'Edit', edit(repo, block(15), block(15, 'LINE')), expected);
  assert.equal(run.ran, false);
  const reason = denied(run.pre);
  assert.match(reason, new RegExp(`^Staged change ${id}: \\+15 -15 to a 30-line file;`, 'm'));
  assert.ok(reason.split('\n').includes('+LINE 15') && reason.split('\n').includes('-line 1'), reason);
  assert.deepEqual(repo.read('a.txt'), old, 'nothing written');
  assert.equal(repo.git('show', '--name-only', '--format=', `fettle/${id}`), 'a.txt');
  assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'a.txt'), old);
  assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), expected, 'git show fettle/<id> is the edit');
  execFileSync('sh', ['-c', /^To apply it, run: (.+)$/m.exec(reason)![1]!], {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_NOW: String(T0) },
    stdio: 'pipe',
  });
  assert.equal(repo.read('a.txt').toString(), expected);
});

scenario('Edit, large: the deny names the tool that was called', A30, (repo) => {
  const reason = denied(hook(repo, 'Edit', edit(repo, block(15), block(15, 'LINE'))));
  assert.doesNotMatch(reason, /retry the Write/);
  assert.match(reason, /Do not retry the Edit; confirm or discard instead\./);
});

// [label, old file, old_string, new_string, expected tier and counts]
const replaceAll: [string, string, string, string, RegExp][] = [
  ['6 of 30 lines', lines(24) + lines(6, 'foo'), 'foo', 'bar', /^direct \+6 -6 ~6$/],
  ['20 of 30 lines', lines(10) + lines(20, 'foo'), 'foo', 'bar', /^staged \+20 -20 to a 30-line file$/],
  ['several per line count once per line', lines(28) + 'foo foo foo\nfoo\n', 'foo', 'x', /^direct \+2 -2 ~2$/],
];
for (const [label, text, from, to, expected] of replaceAll) {
  scenario(`Edit replace_all, ${label}: every occurrence, counted by lines`, { 'a.txt': text }, (repo) => {
    const next = text.split(from).join(to);
    const { run, id } = call(repo, 'Edit', edit(repo, from, to, true), next);
    const tier = run.ran
      ? `direct ${/, (\+\d+ -\d+ ~\d+)\) as /.exec(recordedLine(run.post, id))?.[1]}`
      : `staged ${/\+\d+ -\d+ to (?:an empty|a \d+-line) file/.exec(denied(run.pre))?.[0]}`;
    assert.match(tier, expected);
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), next);
  });
}

// fettle cannot know the result: no match, several matches, an empty old_string on a non-empty file, a no-op.
// [label, file text, edit input (old, new, replace_all)]
const unsure: [string, string, [string, string, boolean?]][] = [
  ['no match', lines(30), ['nowhere', 'x']],
  ['old_string with CRLF, which the tool matches against LF text', 'a\r\nb\r\n', ['a\r\nb', 'x']],
  ['two matches without replace_all', lines(30) + 'line 1\n', ['line 1\n', 'x\n']],
  ['two matches with replace_all false', lines(30) + 'line 1\n', ['line 1\n', 'x\n', false]],
  ['empty old_string, file not empty', lines(30), ['', 'x\n']],
  ['old_string equal to new_string', lines(30), ['line 1\n', 'line 1\n']],
  ['not UTF-8 text', '\xe9 line 1\n', ['line 1', 'LINE 1']],
];
for (const [label, text, [from, to, all]] of unsure) {
  const bytes = text.startsWith('\xe9') ? Buffer.from(text, 'latin1') : Buffer.from(text);
  scenario(
    `Edit unsure (${label}), tool fails: previous bytes kept while it runs, the record dropped after`,
    { 'a.txt': bytes },
    (repo) => {
      const { run, id, tip } = call(repo, 'Edit', edit(repo, from, to, all), null, { env: STAGE_ALL });
      assertSilent(run.pre, 'PreToolUse');
      assertSilent(run.post, 'PostToolUseFailure');
      assert.deepEqual(blobAt(repo, tip, 'a.txt'), bytes, 'while the tool ran, the record held the previous bytes');
      assert.equal(kindAt(repo, tip), 'before');
      assert.match(repo.git('log', '-1', '--format=%B', tip), /^Fettle-Reason: unsure$/m);
      assert.deepEqual(
        fettleRefs(repo).filter((r) => r.endsWith(id)),
        [],
        'the file is unchanged: nothing to keep',
      );
      assert.deepEqual(repo.read('a.txt'), bytes);
    },
  );
}

scenario(
  'Edit unsure (no match fettle can see), yet the tool writes: PostToolUse records what landed, with counts',
  { 'a.txt': 'x\nsay hi\ny\n' },
  (repo) => {
    const [old, landed] = [repo.read('a.txt'), 'x\nsay bye\ny\n'];
    const { run, id } = call(repo, 'Edit', edit(repo, 'nowhere', 'say "bye"'), landed, { env: STAGE_ALL });
    assertSilent(run.pre, 'an unsure PreToolUse');
    assert.match(recordedLine(run.post, id), directNote('a.txt', `${landedText(landed)}, +1 -1 ~1`, id));
    assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'a.txt'), old);
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), landed);
    assert.equal(kindAt(repo, `fettle/${id}`), 'after');
  },
);

scenario(
  'Edit unsure, ambiguous match that the tool writes anyway: a large result is recorded, not staged',
  A30,
  (repo) => {
    repo.write('a.txt', lines(30) + 'line 1\n');
    const landed = lines(31, 'other');
    const { run, id } = call(repo, 'Edit', edit(repo, 'line 1\n', 'x\n'), landed);
    assertSilent(run.pre);
    assert.match(recordedLine(run.post, id), directNote('a.txt', `${landedText(landed)}, +31 -31 ~31`, id));
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), landed);
  },
);

// Claude Code's Edit with an empty new_string also removes the newline after old_string (when old_string does
// not end with one): the line goes, not just its text. The record's counts must describe what landed.
scenario("Edit deleting a line's text: the counts recorded are those of what landed", A30, (repo) => {
  const landed = lines(30).replace('line 5\n', '');
  const { run, id } = call(repo, 'Edit', edit(repo, 'line 5', ''), landed);
  assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), landed);
  assert.match(recordedLine(run.post, id), directNote('a.txt', `${landedText(landed)}, +0 -1 ~0`, id));
  assert.match(repo.git('log', '-1', '--format=%B', `fettle/${id}`), /^Fettle-Stat: \+0 -1$/m);
});

scenario('Edit with an empty old_string on a missing file creates it: new file, direct', {}, (repo) => {
  const input = editInput(repo.path('src/new.ts'), '', 'export const x = 1;\n');
  const { run, id } = call(repo, 'Edit', input, 'export const x = 1;\n');
  assertSilent(run.pre);
  assert.match(recordedLine(run.post, id), directNote('src/new.ts', '20 B, 1 line, new file', id));
  assert.equal(blobAt(repo, `fettle/${id}^`, 'src/new.ts'), null);
  assert.equal(blobAt(repo, `fettle/${id}`, 'src/new.ts')?.toString(), 'export const x = 1;\n');
});

scenario('Edit of a missing file with a non-empty old_string: nothing to keep, nothing recorded', {}, (repo) => {
  const run = toolCall(repo, 'Edit', editInput(repo.path('gone.txt'), 'a', 'b'), () => false);
  assertSilent(run.pre);
  assertSilent(run.post);
  assert.deepEqual(fettleRefs(repo), []);
});

scenario('$& and $1 in new_string are written literally', { 'a.txt': 'cost = X;\n' }, (repo) => {
  const { id } = call(repo, 'Edit', edit(repo, 'X', "'$&' + '$1' + '$$'"), null, { env: STAGE_ALL });
  assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), "cost = '$&' + '$1' + '$$';\n");
});

scenario('MultiEdit applies its edits in order, each to the result of the one before', A30, (repo) => {
  const input = multiEditInput(repo.path('a.txt'), [
    ['line 3\n', 'three\n'],
    ['line 30\n', 'thirty\n'],
    ['line 7', 'seven', true],
  ]);
  const { run, id } = call(repo, 'MultiEdit', input, null, { env: STAGE_ALL });
  denied(run.pre);
  assert.equal(
    blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(),
    lines(30).replace('line 3\n', 'three\n').replace('line 30\n', 'thirty\n').replace('line 7\n', 'seven\n'),
  );
});

// Claude Code's multi-edit code refuses an edit of text an earlier edit wrote; fettle does not guess past it.
scenario("MultiEdit editing an earlier edit's new text: unsure, as the client refuses it", A30, (repo) => {
  const input = multiEditInput(repo.path('a.txt'), [
    ['line 3\n', 'three\n'],
    ['three\n', 'THREE\n'],
  ]);
  const { run, tip } = call(repo, 'MultiEdit', input, null, { env: STAGE_ALL });
  assertSilent(run.pre, 'nothing staged from a guess');
  assert.match(repo.git('log', '-1', '--format=%B', tip), /earlier edit/);
});

scenario(
  "Edit through curly quotes: the proposal has the file's curly quotes, as the client writes",
  {
    'a.txt': 'x\nsay \u201chi\u201d, it\u2019s\ny\n',
  },
  (repo) => {
    const { run, id } = call(repo, 'Edit', edit(repo, 'say "hi", it\'s', 'say "bye", it\'s'), null, { env: STAGE_ALL });
    denied(run.pre);
    assert.equal(blobAt(repo, `fettle/${id}`, 'a.txt')?.toString(), 'x\nsay \u201cbye\u201d, it\u2019s\ny\n');
  },
);

scenario('MultiEdit, small: direct, counted over all its edits', A30, (repo) => {
  const next = lines(30).replace('line 2\n', 'two\n').replace('line 9\n', 'nine\n');
  const { run, id } = call(
    repo,
    'MultiEdit',
    multiEditInput(repo.path('a.txt'), [
      ['line 2\n', 'two\n'],
      ['line 9\n', 'nine\n'],
    ]),
    next,
  );
  assertSilent(run.pre);
  assert.match(recordedLine(run.post, id), directNote('a.txt', `${landedText(next)}, +2 -2 ~2`, id));
  assert.deepEqual(blobAt(repo, `fettle/${id}`, 'a.txt'), Buffer.from(next));
});

scenario('MultiEdit is all or nothing: one failing edit makes it unsure, nothing staged', A30, (repo) => {
  const old = repo.read('a.txt');
  const input = multiEditInput(repo.path('a.txt'), [
    ['line 1\n', 'x\n'],
    ['nowhere', 'y'],
    ['line 3\n', 'z\n'],
  ]);
  const { run, tip } = call(repo, 'MultiEdit', input, null, { env: STAGE_ALL });
  assertSilent(run.pre, 'no deny: nothing was staged');
  assert.deepEqual([kindAt(repo, tip), blobAt(repo, tip, 'a.txt')], ['before', old]);
  assert.ok(!existsSync(repo.path('.git/fettle/worktrees')), 'no test tree');
});

scenario(
  'Edit of a file over 5 MB: recorded without predicting it (always direct), what landed recorded after',
  { 'big.txt': lines(600_000) },
  (repo) => {
    const old = repo.read('big.txt');
    const landed = old.toString().replace('line 300000\n', 'LINE 300000\n');
    const { run, id } = call(repo, 'Edit', editInput(repo.path('big.txt'), 'line 300000\n', 'LINE 300000\n'), landed, {
      env: STAGE_ALL,
    });
    assertSilent(run.pre, 'no deny: over 5 MB a change is direct whatever it is');
    recordedLine(run.post, id);
    assert.match(
      repo.git('log', '-1', '--format=%B', `fettle/${id}^`),
      /the file is over 5 MB, so it is recorded without predicting the edit/,
    );
    assert.deepEqual(blobAt(repo, `fettle/${id}^`, 'big.txt'), old);
    assert.equal(blobAt(repo, `fettle/${id}`, 'big.txt')?.toString(), landed);
  },
);

// The client refuses an edit that leaves the file as it was, so fettle predicts no no-op for Edit: it records the
// previous bytes and lets the tool say so.
scenario('MultiEdit whose edits cancel out: unsure, the tool refuses it', A30, (repo) => {
  const pre = hook(
    repo,
    'MultiEdit',
    multiEditInput(repo.path('a.txt'), [
      ['line 4\n', 'x\n'],
      ['line 5\n', 'line 5\n'],
    ]),
  );
  assertSilent(pre, show(pre));
});

scenario('plan mode: Edit and MultiEdit do nothing at all', A30, (repo) => {
  for (const [tool, input] of [
    ['Edit', edit(repo, 'line 1\n', 'x\n')],
    ['Edit', edit(repo, block(20), block(20, 'X'))],
    ['Edit', edit(repo, 'nowhere', 'x')],
    ['MultiEdit', multiEditInput(repo.path('a.txt'), [['line 1\n', 'x\n']])],
  ] as const)
    assertSilent(hook(repo, tool, input, { mode: 'plan' }), `${tool} in plan mode`);
  assert.ok(!existsSync(repo.path('.git/fettle')), 'nothing recorded');
  assert.deepEqual(onDisk(repo, 'a.txt'), Buffer.from(lines(30)));
});

// [label, tool, tool_input]: a call fettle cannot read is reported (exit 1), never guessed at.
const malformed: [string, string, (r: Repo) => Input][] = [
  ['Edit without old_string', 'Edit', (r) => ({ file_path: r.path('a.txt'), new_string: 'x' })],
  ['Edit with replace_all "yes"', 'Edit', (r) => ({ ...edit(r, 'line 1', 'x'), replace_all: 'yes' })],
  ['MultiEdit with no edits', 'MultiEdit', (r) => ({ file_path: r.path('a.txt'), edits: [] })],
  ['MultiEdit with an edit that is not an object', 'MultiEdit', (r) => ({ file_path: r.path('a.txt'), edits: ['x'] })],
];
for (const [label, tool, input] of malformed) {
  scenario(`malformed: ${label} -> exit 1, says it is not protected`, A30, (repo) => {
    const r = hook(repo, tool, input(repo));
    assert.deepEqual([r.code, r.stdout], [1, ''], show(r));
    assert.match(r.stderr, /^fettle: .*not protected by fettle\.\n$/);
    assert.deepEqual(fettleRefs(repo), []);
  });
}
