// Policy `run` rules on Codex CLI's apply_patch (docs/POLICY.md, "run: a command on the tree a write would
// produce"): the command runs once on the tree the whole patch would produce, every file at its new bytes and a
// deleted one gone; a failure denies the whole patch with the command's output, or stages the whole patch.
// Tier: slow, end-to-end scenarios through the built CLI, each checking out a test tree (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { runCli } from '../../helpers/cli';
import type { Repo } from '../../helpers/repo';
import { fettleRefs, scenario } from '../../helpers/tools';

const writePolicy = (repo: Repo, rules: unknown[]) =>
  repo.write('.fettle/policy.json', JSON.stringify({ version: 2, rules }));
const FILES = { 'src/a.txt': 'same\n', 'src/b.txt': 'same\n', 'src/gone.txt': 'x\n' };
const AGREE = 'cmp src/a.txt src/b.txt && test ! -e src/gone.txt';
const NO_BAD = 'if grep -q bad {file}; then echo "found bad in {file}" >&2; exit 3; fi';

const update = (file: string, to: string) => `*** Update File: ${file}\n@@\n-same\n+${to}\n`;
const patchOf = (...parts: string[]) => `*** Begin Patch\n${parts.join('')}*** End Patch\n`;
const DELETE = '*** Delete File: src/gone.txt\n';

/** Codex's PreToolUse for apply_patch; the reason it is denied with, or undefined when it goes on. */
const before = (repo: Repo, patch: string, call: string): string | undefined => {
  const input = {
    session_id: 'codex-session-1',
    turn_id: 'turn-1',
    transcript_path: null,
    cwd: repo.dir,
    hook_event_name: 'PreToolUse',
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
    tool_name: 'apply_patch',
    tool_input: { command: patch },
    tool_use_id: call,
  };
  const r = runCli(['hook', '--agent', 'codex'], { cwd: repo.dir, env: repo.env, input: JSON.stringify(input) });
  assert.equal(r.code, 0, r.stderr);
  if (r.stdout === '') return undefined;
  const out = JSON.parse(r.stdout).hookSpecificOutput;
  return out?.permissionDecision === 'deny' ? out.permissionDecisionReason : undefined;
};

scenario('a failing command denies the whole patch with its output; nothing recorded', FILES, (repo) => {
  writePolicy(repo, [{ name: 'no-bad', path: 'src/**', action: 'run', run: NO_BAD }]);
  const reason = before(repo, patchOf(update('src/a.txt', 'fine'), update('src/b.txt', 'bad')), 'call_1');
  assert.ok(reason);
  assert.match(
    reason,
    /^fettle blocked this write: nothing was written to src\/a\.txt, src\/b\.txt\. Policy rule no-bad /,
  );
  assert.match(
    reason,
    /ran `if grep -q bad src\/b\.txt;.*` .* failed \(exit 3\)\. Its output:\nfound bad in src\/b\.txt\n/,
  );
  assert.deepEqual(fettleRefs(repo), [], 'nothing recorded');
});

scenario('the command sees the whole patch: two files that must agree, and a deleted one', FILES, (repo) => {
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: AGREE }]);
  const one = before(repo, patchOf(update('src/a.txt', 'new'), DELETE), 'call_1');
  assert.ok(one);
  assert.match(one, /Policy rule agree .* failed \(exit 1\)\. Its output:\nsrc\/a\.txt src\/b\.txt differ/);
  const whole = before(repo, patchOf(update('src/a.txt', 'new'), update('src/b.txt', 'new'), DELETE), 'call_2');
  assert.equal(whole, undefined, 'the patch goes on');
  assert.equal(fettleRefs(repo).length, 3, "each file's previous bytes recorded");
});

scenario('onFail stage stages the whole patch, with the output', FILES, (repo) => {
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: AGREE, onFail: 'stage' }]);
  const reason = before(repo, patchOf(update('src/a.txt', 'new')), 'call_1');
  assert.ok(reason);
  assert.match(
    reason,
    /^Staged as changeset [0-9a-z]{8} \(\+1 -1\), because the command of policy rule agree .* failed:$/m,
  );
  assert.match(reason, /\nsrc\/a\.txt src\/b\.txt differ/);
  const [ref] = fettleRefs(repo);
  assert.ok(ref);
  const message = repo.git('log', '-1', '--format=%B', ref);
  assert.match(message, /^Fettle-Decided-By: policy:agree$/m);
  assert.match(message, /Its output:\nsrc\/a\.txt src\/b\.txt differ/);
  assert.equal(repo.read('src/a.txt').toString(), 'same\n', 'nothing written');
});

scenario('a patch fettle cannot compute is refused under a run rule: nothing to run the command on', FILES, (repo) => {
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: 'true' }]);
  const twice = patchOf(update('src/a.txt', 'new'), '*** Update File: src/a.txt\n@@\n-new\n+newer\n');
  const reason = before(repo, twice, 'call_1');
  assert.ok(reason);
  assert.match(
    reason,
    /^fettle refused this write: nothing was written to src\/a\.txt\. Policy rule agree .* runs a command on the files as each write would leave them, and fettle cannot compute this apply_patch's result exactly \(the call names one file twice\)/,
  );
  assert.deepEqual(fettleRefs(repo), [], 'nothing recorded');
});
