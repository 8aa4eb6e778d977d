// A scripted day: Claude Code, Codex and Gemini CLI (their hook payloads fed by hand, as their own tests do) and a
// person edit two files; the person commits, amends, rebases onto a moved upstream and squashes. The script keeps
// its own ground truth of who wrote every line; `fettle blame` (from the records, then from the notes alone once
// the records are gone) and the notes on refs/notes/fettle must agree with it on at least 99 % of the lines.
// Tier: slow, a day of hook calls and commits through the built CLI, each a process (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { notesSettled } from '../helpers/notes';
import { runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';

type Owner = 'person' | 'claude:c-1' | 'codex:x-1' | 'gemini:g-1';
type Model = Map<string, { text: string; owner: Owner }[]>;

/** Every write goes straight to disk: this day is about attribution, not staging. */
const DIRECT = { FETTLE_WRITE_FLOOR: '100000', FETTLE_WRITE_CEIL: '100001' };

const contentOf = (model: Model, file: string): string => (model.get(file) ?? []).map((l) => `${l.text}\n`).join('');

const numbered = (word: string, n: number, owner: Owner) =>
  Array.from({ length: n }, (_, i) => ({ text: `${word} ${i + 1}`, owner }));

const hook = (repo: Repo, args: string[], input: unknown) => {
  const r = runCli(['hook', ...args], { cwd: repo.dir, env: { ...repo.env, ...DIRECT }, input: JSON.stringify(input) });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
};

/** Claude Code: a prompt (a turn), then a Write of the whole file. */
const claudeWrites = (repo: Repo, model: Model, file: string) => {
  const base = { session_id: 'c-1', transcript_path: '/dev/null', cwd: repo.dir };
  hook(repo, [], { ...base, hook_event_name: 'UserPromptSubmit', prompt: `work on ${file}` });
  const call = {
    ...base,
    permission_mode: 'acceptEdits',
    tool_name: 'Write',
    tool_input: { file_path: repo.path(file), content: contentOf(model, file) },
    tool_use_id: `toolu_${file}`,
  };
  hook(repo, [], { ...call, hook_event_name: 'PreToolUse' });
  writeFileSync(repo.path(file), contentOf(model, file));
  hook(repo, [], { ...call, hook_event_name: 'PostToolUse' });
};

/** Gemini CLI: write_file of the whole file. */
const geminiWrites = (repo: Repo, model: Model, file: string) => {
  const call = {
    session_id: 'g-1',
    transcript_path: '/dev/null',
    cwd: repo.dir,
    timestamp: '2026-01-01T00:00:00.000Z',
    tool_name: 'write_file',
    tool_input: { file_path: repo.path(file), content: contentOf(model, file) },
  };
  hook(repo, ['--agent', 'gemini'], { ...call, hook_event_name: 'BeforeTool' });
  writeFileSync(repo.path(file), contentOf(model, file));
  const response = { llmContent: 'ok', returnDisplay: 'ok' };
  hook(repo, ['--agent', 'gemini'], { ...call, hook_event_name: 'AfterTool', tool_response: response });
};

/** Codex: apply_patch inserting `added` after the line `after` (already in the model). */
const codexInserts = (repo: Repo, model: Model, file: string, after: string, added: string[]) => {
  const lines = model.get(file) ?? [];
  const at = lines.findIndex((l) => l.text === after);
  lines.splice(at + 1, 0, ...added.map((text) => ({ text, owner: 'codex:x-1' as const })));
  const patch = `*** Begin Patch\n*** Update File: ${file}\n@@\n ${after}\n${added.map((a) => `+${a}\n`).join('')}*** End Patch\n`;
  const call = {
    session_id: 'x-1',
    turn_id: 'turn-1',
    transcript_path: null,
    cwd: repo.dir,
    model: 'gpt-5.5',
    permission_mode: 'bypassPermissions',
    tool_name: 'apply_patch',
    tool_input: { command: patch },
    tool_use_id: `call_${after}`,
  };
  hook(repo, ['--agent', 'codex'], { ...call, hook_event_name: 'PreToolUse' });
  writeFileSync(repo.path(file), contentOf(model, file));
  const post = { ...call, hook_event_name: 'PostToolUse', tool_response: 'Exit code: 0\nOutput:\nSuccess.' };
  hook(repo, ['--agent', 'codex'], post);
};

const personWrites = (repo: Repo, model: Model, file: string) => writeFileSync(repo.path(file), contentOf(model, file));

const insert = (model: Model, file: string, at: number, lines: { text: string; owner: Owner }[]) =>
  (model.get(file) ?? []).splice(at, 0, ...lines);

interface BlamedLine {
  by: string;
  agent?: string;
  session?: string;
  source?: string;
  text: string;
}

/** Lines fettle blame attributes as the script's truth does, of all lines of the files. */
const agreement = (repo: Repo, model: Model) => {
  let right = 0;
  let total = 0;
  const wrong: string[] = [];
  for (const [file, truth] of model) {
    const r = runCli(['blame', '--json', file], { cwd: repo.dir, env: repo.env });
    assert.equal(r.code, 0, r.stderr);
    const lines = JSON.parse(r.stdout).lines as BlamedLine[];
    assert.equal(lines.length, truth.length, file);
    lines.forEach((l, i) => {
      const said = l.by === 'agent' ? `${l.agent}:${l.session}` : 'person';
      total++;
      if (said === truth[i]?.owner && l.text === truth[i]?.text) right++;
      else wrong.push(`${file}:${i + 1} ${l.text}: ${said}, truth ${truth[i]?.owner}`);
    });
  }
  return { right, total, wrong };
};

/** git with the test's environment and `env` (an editor), as the person runs it: their hooks run. */
const git = (repo: Repo, env: Record<string, string>, ...args: string[]) =>
  execFileSync('git', args, { cwd: repo.dir, env: { ...repo.env, ...env } }).toString('utf8');

test('a day of three agents and a person, committed, amended, rebased and squashed: blame and the notes agree with the script', () => {
  const model: Model = new Map([
    ['app.txt', numbered('base', 30, 'person')],
    ['util.txt', numbered('util', 10, 'person')],
  ]);
  const repo = makeRepo({ 'app.txt': contentOf(model, 'app.txt'), 'util.txt': contentOf(model, 'util.txt') });
  repo.git('branch', 'upstream');
  const installed = runCli(['install', '--git-hooks'], { cwd: repo.dir, env: repo.env });
  assert.equal(installed.code, 0, installed.stderr);

  // Morning: Claude inserts and rewrites, Gemini extends util.txt and starts a file, Codex patches app.txt.
  insert(model, 'app.txt', 5, numbered('claude morning', 10, 'claude:c-1'));
  (model.get('app.txt') ?? []).splice(19, 1, { text: 'claude rewrote base 10', owner: 'claude:c-1' });
  claudeWrites(repo, model, 'app.txt');
  insert(model, 'util.txt', 10, numbered('gemini util', 8, 'gemini:g-1'));
  geminiWrites(repo, model, 'util.txt');
  model.set('gem.txt', numbered('gemini new', 15, 'gemini:g-1'));
  geminiWrites(repo, model, 'gem.txt');
  codexInserts(repo, model, 'app.txt', 'base 20', ['codex a', 'codex b', 'codex c', 'codex d', 'codex e', 'codex f']);
  // The person adds a header and rewords one of Claude's lines, then commits.
  insert(model, 'app.txt', 0, numbered('person header', 3, 'person'));
  (model.get('app.txt') ?? []).splice(10, 1, { text: 'person reworded claude 3', owner: 'person' });
  personWrites(repo, model, 'app.txt');
  repo.commit('morning');

  // Claude appends; the person folds it into the morning's commit.
  insert(model, 'app.txt', (model.get('app.txt') ?? []).length, numbered('claude amend', 5, 'claude:c-1'));
  claudeWrites(repo, model, 'app.txt');
  git(repo, {}, 'commit', '-q', '-a', '--amend', '-m', 'morning, amended');

  // Afternoon: three small commits, later squashed into one.
  codexInserts(repo, model, 'util.txt', 'util 5', ['codex util 1', 'codex util 2', 'codex util 3']);
  repo.commit('codex util');
  insert(model, 'gem.txt', 15, numbered('gemini more', 4, 'gemini:g-1'));
  geminiWrites(repo, model, 'gem.txt');
  repo.commit('gemini more');
  insert(model, 'util.txt', 0, [{ text: 'person util top', owner: 'person' }]);
  personWrites(repo, model, 'util.txt');
  repo.commit('person util');

  const fromRecords = agreement(repo, model);
  assert.deepEqual([fromRecords.right, fromRecords.total], [95, 95], fromRecords.wrong.join('\n'));

  // The records go (retention, another machine); then the person rebases onto the moved upstream, squashes the
  // afternoon's three commits into one and amends it: only the notes, carried by post-rewrite, say who wrote what.
  for (const ref of repo.git('for-each-ref', '--format=%(refname)', 'refs/fettle/').split('\n').filter(Boolean))
    repo.git('update-ref', '-d', ref);
  repo.git('checkout', '-q', 'upstream');
  repo.write('other.txt', 'upstream work\n');
  repo.commit('upstream');
  repo.git('checkout', '-q', 'main');
  git(repo, {}, 'rebase', '-q', 'upstream');
  const squash = { GIT_SEQUENCE_EDITOR: "sed -i -e '3,$ s/^pick/squash/'", GIT_EDITOR: 'true' };
  git(repo, squash, 'rebase', '-q', '-i', 'upstream');
  assert.equal(repo.git('rev-list', '--count', 'upstream..main'), '2');
  insert(model, 'gem.txt', 0, [{ text: 'person gem top', owner: 'person' }]);
  personWrites(repo, model, 'gem.txt');
  git(repo, {}, 'commit', '-q', '-a', '--amend', '--no-edit');

  notesSettled(repo);
  const noted = repo.git('log', '--notes=fettle', '--format=%s%n%N', 'upstream..main');
  assert.match(noted, /^fettle-attribution v1\nfile app\.txt\n.* claude session=c-1 turn=\d+ tool=Write change=\w+$/m);
  assert.match(noted, /^file gem\.txt\n.* gemini session=g-1 tool=write_file change=\w+$/m);
  const fromNotes = agreement(repo, model);
  assert.deepEqual([fromNotes.right, fromNotes.total], [96, 96], fromNotes.wrong.join('\n'));
});
