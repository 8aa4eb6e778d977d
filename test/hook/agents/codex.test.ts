// `fettle hook --agent codex`, end to end: the built CLI in its own process, real repositories, the payloads
// Codex CLI 0.169 sends for apply_patch (captured from the real client: test/e2e/codex.test.ts runs that client).
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { applyPatch } from '../../../src/core/codex-patch';
import { parsePatch } from '../../../src/core/codex-patch-parse';
import { literal, runCli, type HookRun } from '../../helpers/cli';
import { lines, makeRepo, type Repo } from '../../helpers/repo';
import { FIRST, SECOND, shellRepo, shellRows, treeOf } from '../../helpers/agent-shell';

const payload = (
  repo: Repo,
  event: 'PreToolUse' | 'PostToolUse',
  patch: string,
  over: Record<string, unknown> = {},
) => ({
  session_id: 'codex-session-1',
  turn_id: 'turn-1',
  transcript_path: null,
  cwd: repo.dir,
  hook_event_name: event,
  model: 'gpt-5.5',
  permission_mode: 'bypassPermissions',
  tool_name: 'apply_patch',
  tool_input: { command: patch },
  tool_use_id: 'call_1',
  ...(event === 'PostToolUse' ? { tool_response: 'Exit code: 0\nOutput:\nSuccess.' } : {}),
  ...over,
});

const hook = (repo: Repo, input: unknown, args = ['hook', '--agent', 'codex']): HookRun => {
  const r = runCli(args, { cwd: repo.dir, env: repo.env, input: JSON.stringify(input) });
  let json: HookRun['json'];
  try {
    json = r.stdout ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { ...r, json };
};

/** What Codex itself would write (the applier the real-client suite checks against Codex's own). */
const codexApplies = (repo: Repo, patch: string): void => {
  const parsed = parsePatch(patch);
  assert.ok(parsed.ok);
  const applied = applyPatch(parsed.hunks, (p) => (existsSync(repo.path(p)) ? readFileSync(repo.path(p)) : null));
  assert.ok(applied.ok);
  for (const f of applied.files)
    if (f.next === null) rmSync(repo.path(f.path));
    else writeFileSync(repo.path(f.path), f.next);
};

const log = (repo: Repo) => JSON.parse(runCli(['log', '--json'], { cwd: repo.dir, env: repo.env }).stdout).changes;
const show = (r: HookRun) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

const SMALL =
  '*** Begin Patch\n*** Update File: a.txt\n@@\n line 2\n-line 3\n+LINE 3\n line 4\n*** Update File: b.txt\n@@\n-line 1\n+LINE 1\n*** End Patch\n';
const rewrite = (file: string, n: number) =>
  `*** Update File: ${file}\n@@\n${Array.from({ length: n }, (_, i) => `-line ${i + 1}\n+new ${i + 1}`).join('\n')}\n`;
const LARGE = `*** Begin Patch\n${rewrite('b.txt', 30)}*** Add File: c.txt\n+c\n*** End Patch\n`;

// [label, patch of one file, what lands in a.txt (null: Codex's own result), the note's parentheses]
const oneFile: [string, string, string | null, string][] = [
  [
    'as predicted',
    '*** Begin Patch\n*** Update File: a.txt\n@@\n-line 3\n+LINE 3\n*** End Patch\n',
    null,
    '231 B, 30 lines, +1 -1 ~1',
  ],
  [
    'another writer changed it',
    '*** Begin Patch\n*** Update File: a.txt\n@@\n-line 3\n+LINE 3\n*** End Patch\n',
    lines(31),
    '239 B, 31 lines, +1 -0 ~0',
  ],
];
for (const [label, patch, landed, counts] of oneFile) {
  test(`a small patch of one file (${label}): the note says the file it left and the change, +N -M ~K`, () => {
    const repo = makeRepo({ 'a.txt': lines(30) });
    assert.deepEqual(hook(repo, payload(repo, 'PreToolUse', patch)).code, 0);
    codexApplies(repo, patch);
    if (landed !== null) writeFileSync(repo.path('a.txt'), landed);
    const post = hook(repo, payload(repo, 'PostToolUse', patch));
    const context = post.json?.hookSpecificOutput?.additionalContext ?? '';
    assert.match(
      context,
      new RegExp(`^fettle recorded a\\.txt \\(${literal(counts)}\\) as (\\w{8}); undo with: .+ rollback \\1$`),
      show(post),
    );
  });
}

test('a small patch of two files: both previous versions recorded as one changeset, then what landed, told to the model', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  const pre = hook(repo, payload(repo, 'PreToolUse', SMALL));
  assert.deepEqual([pre.code, pre.stdout, pre.stderr], [0, '', ''], show(pre));
  codexApplies(repo, SMALL);
  const post = hook(repo, payload(repo, 'PostToolUse', SMALL));
  assert.equal(post.code, 0, show(post));
  const context = post.json?.hookSpecificOutput?.additionalContext ?? '';
  assert.match(context, /^fettle recorded 2 files as changeset (\w{8}); undo them all with: .* rollback \1\n/);
  const changes = log(repo);
  assert.deepEqual(
    changes.map((c: { path: string; state: string; added: number }) => `${c.path} ${c.state} +${c.added}`).sort(),
    ['a.txt applied +1', 'b.txt applied +1'],
  );
  assert.equal(new Set(changes.map((c: { changeset: string }) => c.changeset)).size, 1);
  assert.ok(
    changes.every(
      (c: { agent: string; tool: string; session: string }) =>
        c.agent === 'codex' && c.tool === 'apply_patch' && c.session === 'codex-session-1',
    ),
  );
  // rollback of the changeset restores both files
  const back = runCli(['rollback', changes[0].changeset], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, back.stderr);
  assert.equal(repo.read('a.txt').toString(), lines(30));
  assert.equal(repo.read('b.txt').toString(), lines(30));
});

test('a large patch: every file staged as one changeset, nothing written, the reason worded for Codex; confirm writes what Codex would', () => {
  const repo = makeRepo({ 'b.txt': lines(30) });
  const pre = hook(repo, payload(repo, 'PreToolUse', LARGE));
  const h = pre.json?.hookSpecificOutput;
  assert.equal(h?.permissionDecision, 'deny', show(pre));
  const reason = h?.permissionDecisionReason ?? '';
  assert.match(
    reason,
    /^fettle held this patch for review: nothing was written to the 2 files it changes\.\nStaged as changeset (\w{8}) \(\+30 -30 across 2 files\), because its 60 changed lines/,
  );
  assert.match(reason, /^--- \/dev\/null\n\+\+\+ b\/c\.txt\n\+c$/m);
  // Codex appends ". Command: <patch>": the reason ends on a clause, no full stop of its own.
  assert.match(reason, /\nDo not send this patch again; confirm or discard it instead$/);
  assert.equal(repo.read('b.txt').toString(), lines(30));
  assert.equal(existsSync(repo.path('c.txt')), false);
  const changeset = /changeset (\w{8})/.exec(reason)?.[1] as string;
  const confirm = runCli(['confirm', changeset], { cwd: repo.dir, env: repo.env });
  assert.equal(confirm.code, 0, confirm.stderr);
  assert.equal(repo.read('b.txt').toString(), lines(30, 'new'));
  assert.equal(repo.read('c.txt').toString(), 'c\n');
  // The same call again (Codex retried it) gets the same answer and stages nothing new.
  const again = hook(repo, payload(repo, 'PreToolUse', LARGE));
  assert.equal(again.stdout, pre.stdout);
  assert.equal(log(repo).length, 2);
});

test('a large patch that deletes and moves files is staged as one changeset; confirm removes and moves them all or nothing; rollback puts them back', () => {
  const repo = makeRepo({ 'd.txt': lines(50), 'old/m.txt': lines(30), 'k.txt': 'keep\n' });
  const patch =
    '*** Begin Patch\n*** Delete File: d.txt\n*** Update File: old/m.txt\n*** Move to: new/m.txt\n@@\n-line 1\n+LINE 1\n*** End Patch\n';
  const pre = hook(repo, payload(repo, 'PreToolUse', patch));
  const reason = pre.json?.hookSpecificOutput?.permissionDecisionReason ?? '';
  assert.equal(pre.json?.hookSpecificOutput?.permissionDecision, 'deny', show(pre));
  assert.match(reason, /^fettle held this patch for review: nothing was written to the 3 files it changes\./);
  assert.match(reason, /^--- a\/d\.txt\n\+\+\+ \/dev\/null\n-line 1\n/m, 'the deletion is shown');
  assert.match(reason, /^--- \/dev\/null\n\+\+\+ b\/new\/m\.txt\n\+LINE 1\n/m, "the move's new path is shown");
  assert.deepEqual(
    [repo.read('d.txt').toString(), repo.read('old/m.txt').toString(), existsSync(repo.path('new/m.txt'))],
    [lines(50), lines(30), false],
    'nothing written, nothing removed',
  );
  const staged = log(repo);
  assert.deepEqual(
    staged.map((c: { path: string; tier: string; state: string }) => `${c.path} ${c.tier} ${c.state}`).sort(),
    ['d.txt staged pending', 'new/m.txt staged pending', 'old/m.txt staged pending'],
  );
  const changeset = /changeset (\w{8})/.exec(reason)?.[1] as string;
  // Confirm refuses the whole set when one file moved on since, and removes nothing.
  writeFileSync(repo.path('d.txt'), `${lines(50)}edited meanwhile\n`);
  const refused = runCli(['confirm', changeset], { cwd: repo.dir, env: repo.env });
  assert.notEqual(refused.code, 0, refused.stdout);
  assert.deepEqual(
    [existsSync(repo.path('old/m.txt')), existsSync(repo.path('new/m.txt'))],
    [true, false],
    'all or nothing',
  );
  writeFileSync(repo.path('d.txt'), lines(50));
  const confirm = runCli(['confirm', changeset], { cwd: repo.dir, env: repo.env });
  assert.equal(confirm.code, 0, confirm.stderr);
  assert.deepEqual(
    [existsSync(repo.path('d.txt')), existsSync(repo.path('old/m.txt')), repo.read('new/m.txt').toString()],
    [false, false, lines(30).replace('line 1\n', 'LINE 1\n')],
  );
  const back = runCli(['rollback', changeset], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(
    [repo.read('d.txt').toString(), repo.read('old/m.txt').toString(), existsSync(repo.path('new/m.txt'))],
    [lines(50), lines(30), false],
  );
  assert.equal(repo.read('k.txt').toString(), 'keep\n');
});

test('one file large on its own stages the patch, though the lines summed over its files are few', () => {
  const repo = makeRepo({ 'big.txt': lines(2000), 'small.txt': lines(20) });
  const patch = `*** Begin Patch\n*** Update File: big.txt\n@@\n-line 1\n+LINE 1\n${rewrite('small.txt', 12)}*** End Patch\n`;
  const reason =
    hook(repo, payload(repo, 'PreToolUse', patch)).json?.hookSpecificOutput?.permissionDecisionReason ?? '';
  assert.match(reason, /because small\.txt alone is a large change \(\+12 -12 to a 20-line file; /);
});

// [label, files, patch, what fettle does]
const PASSING: [string, Record<string, string>, string, 'nothing' | 'recorded'][] = [
  [
    'a patch that does not apply (Codex says why)',
    { 'a.txt': lines(3) },
    '*** Begin Patch\n*** Update File: a.txt\n@@\n-nope\n+x\n*** End Patch\n',
    'nothing',
  ],
  [
    'a patch Codex cannot parse',
    { 'a.txt': lines(3) },
    '*** Begin Patch\n*** Frob File: a.txt\n*** End Patch\n',
    'nothing',
  ],
  [
    'a patch naming a file twice (Codex verifies and applies it differently)',
    { 'a.txt': lines(3) },
    '*** Begin Patch\n*** Update File: a.txt\n@@\n-line 1\n+x\n*** Update File: a.txt\n@@\n-line 2\n+y\n*** End Patch\n',
    'recorded',
  ],
];
for (const [label, files, patch, expected] of PASSING)
  test(`${label}: the call goes ahead, ${expected === 'nothing' ? 'nothing recorded' : 'previous bytes recorded, nothing staged'}`, () => {
    const repo = makeRepo(files);
    const pre = hook(repo, payload(repo, 'PreToolUse', patch));
    assert.deepEqual([pre.code, pre.stdout], [0, ''], show(pre));
    const changes = log(repo);
    assert.equal(changes.length > 0, expected === 'recorded');
    assert.ok(changes.every((c: { tier: string }) => c.tier === 'direct'));
  });

test("Stop ends the turn: a record whose patch never landed (denied at Codex's prompt) is dropped", () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30) });
  assert.equal(hook(repo, payload(repo, 'PreToolUse', SMALL)).code, 0);
  assert.equal(log(repo).length, 2);
  const stop = hook(repo, {
    session_id: 'codex-session-1',
    turn_id: 'turn-1',
    cwd: repo.dir,
    hook_event_name: 'Stop',
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
    stop_hook_active: false,
    last_assistant_message: 'done',
  });
  assert.deepEqual([stop.code, stop.stdout], [0, ''], show(stop));
  assert.equal(log(repo).length, 0);
});

test("without --agent, a Codex payload is told apart by its turn_id and let through: Claude Code's hook has no adapter", () => {
  const repo = makeRepo({ 'b.txt': lines(30) });
  const pre = hook(repo, payload(repo, 'PreToolUse', LARGE), ['hook']);
  assert.deepEqual([pre.code, pre.stdout], [1, ''], show(pre));
  assert.match(
    pre.stderr,
    /^fettle: this hook input comes from Codex CLI, but its hook runs fettle without --agent codex, which answers Claude Code only; this tool call was not protected by fettle\. Run `.+ install --agent codex`\.\n$/,
  );
  assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
});

test('policy applies to a patch as a whole: a block rule on one file denies it all; a stage rule stages a small patch', () => {
  const repo = makeRepo({ 'a.txt': lines(30), 'b.txt': lines(30), '.env': 'KEY=1\n' });
  const rules = [
    { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
    { name: 'a-reviewed', path: 'a.txt', action: 'stage' },
  ];
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules }));
  const env =
    '*** Begin Patch\n*** Update File: b.txt\n@@\n-line 1\n+LINE 1\n*** Update File: .env\n@@\n-KEY=1\n+KEY=2\n*** End Patch\n';
  const blocked = hook(repo, payload(repo, 'PreToolUse', env));
  assert.equal(blocked.json?.hookSpecificOutput?.permissionDecision, 'deny', show(blocked));
  assert.match(
    blocked.json?.hookSpecificOutput?.permissionDecisionReason ?? '',
    /^fettle blocked this write: nothing was written to \.env\. Policy rule no-env \("\.env\*" in \.fettle\/policy\.json\) blocks it: Secrets are edited by hand\. /,
  );
  assert.deepEqual(log(repo), [], 'nothing recorded for a blocked patch');
  const staged = hook(repo, payload(repo, 'PreToolUse', SMALL, { tool_use_id: 'call_2' }));
  assert.equal(staged.json?.hookSpecificOutput?.permissionDecision, 'deny', show(staged));
  assert.deepEqual(
    log(repo)
      .map((c: { path: string; state: string }) => `${c.path} ${c.state}`)
      .sort(),
    ['a.txt pending', 'b.txt pending'],
  );
  assert.equal(repo.read('a.txt').toString(), lines(30), 'nothing written while held');
});

/** Codex 0.169's payloads for its shell tools (exec_command here): tool_name Bash, the command's directory as cwd. */
const shellPayload = (cwd: string, event: 'PreToolUse' | 'PostToolUse', command: string, call: string) => ({
  ...payload({ dir: cwd } as Repo, event, ''),
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: call,
  ...(event === 'PostToolUse' ? { tool_response: '' } : {}),
});
const prompt = (repo: Repo, turn: number) => ({
  session_id: 'codex-session-1',
  turn_id: `turn-${turn}`,
  transcript_path: null,
  cwd: repo.dir,
  hook_event_name: 'UserPromptSubmit',
  model: 'gpt-5.5',
  permission_mode: 'bypassPermissions',
  prompt: 'Do the task.',
});

/** One command as Codex runs it: PreToolUse, the command in `cwd`, PostToolUse; the line the model got. */
const codexShell = (repo: Repo, command: string, call: string, cwd = repo.dir): string | undefined => {
  const pre = hook(repo, shellPayload(cwd, 'PreToolUse', command, call));
  assert.deepEqual([pre.code, pre.stdout], [0, ''], show(pre));
  execFileSync('/bin/sh', ['-c', command], { cwd, env: repo.env });
  const post = hook(repo, shellPayload(cwd, 'PostToolUse', command, call));
  assert.equal(post.code, 0, show(post));
  return post.json?.hookSpecificOutput?.additionalContext;
};

test("Codex's shell (tool_name Bash): one changeset per command, the model told; rollback --turn 1 restores the tree byte for byte", () => {
  const repo = shellRepo();
  const start = treeOf(repo);
  assert.equal(hook(repo, prompt(repo, 1)).code, 0);
  const line = codexShell(repo, FIRST, 'call_sh1');
  assert.match(
    line ?? '',
    /^fettle recorded 3 files changed by this command: 1 modified, 1 created, 1 deleted; undo with: .+ rollback [0-9a-z]{8}$/,
  );
  assert.equal(hook(repo, prompt(repo, 2)).code, 0);
  assert.match(
    codexShell(repo, SECOND, 'call_sh2', repo.path('sub')) ?? '',
    /^fettle recorded 1 file changed by this command: created sub\/here\.txt;/,
  );
  assert.equal(codexShell(repo, 'ls -la && git status --short', 'call_sh3'), undefined, 'a reader records nothing');
  assert.deepEqual(shellRows(repo), [
    'a.txt modified Bash codex codex-session-1 1',
    'b.txt deleted Bash codex codex-session-1 1',
    'c.txt created Bash codex codex-session-1 1',
    'sub/here.txt created Bash codex codex-session-1 2',
  ]);
  const back = runCli(['rollback', '--turn', '1'], { cwd: repo.dir, env: repo.env });
  assert.equal(back.code, 0, show(back));
  assert.deepEqual(treeOf(repo), start);
});
