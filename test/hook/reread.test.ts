// Re-reads through Claude Code's Read hook (`fettle install --read`), the hook run as the client runs it (JSON on
// stdin, the built CLI): a first read goes to the tool and its PostToolUse keeps what the tool showed; a re-read of
// the same bytes is denied with one line; a changed file goes to the tool with a line saying what changed beside it;
// the session's own writes move what it has seen; a partial read, another session, a path the policy ignores and a
// response that is not the file on disk never lead to "unchanged".
// Tier: slow, a dozen scenarios of several hook processes each, every one in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import { test } from 'node:test';
import { runCli, runHook } from '../helpers/cli';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { assertSilent, denied, editInput, hso, payload, readInput, show, toolCall } from '../helpers/tools';

const FILE = 'src.ts';
const TEXT = lines(40);

interface ReadOpts {
  offset?: number;
  limit?: number;
  session?: string;
  /** the subagent the call comes from */
  agent?: string;
  /** the hook's clock (FETTLE_NOW, epoch seconds) */
  now?: number;
  /** what the tool returned, for PostToolUse: the file's text as shown, from `startLine` */
  shown?: { content: string; startLine?: number; totalLines?: number };
}

const call = (repo: Repo, event: 'PreToolUse' | 'PostToolUse', o: ReadOpts = {}) => {
  const base = payload(repo, 'Read', readInput(repo.path(FILE), o.offset, o.limit), { event });
  const shown = o.shown;
  const lineCount = shown ? shown.content.split('\n').length : 0;
  const response = shown && {
    type: 'text',
    file: {
      filePath: repo.path(FILE),
      content: shown.content,
      numLines: lineCount,
      startLine: shown.startLine ?? 1,
      totalLines: shown.totalLines ?? lineCount,
    },
  };
  const input = {
    ...base,
    session_id: o.session ?? 'session-1',
    ...(o.agent ? { agent_id: o.agent } : {}),
    ...(response ? { tool_response: response } : {}),
  };
  const env = o.now === undefined ? repo.env : { ...repo.env, FETTLE_NOW: String(o.now) };
  return runHook(input, { cwd: repo.dir, env });
};

/** The text a Read's PostToolUse carries of a whole file (Claude Code 2.1.330: the file's text, as it is). */
const asShown = (text: string): string => text;

/** One Read as the client runs it: PreToolUse, then (unless denied) the tool, then PostToolUse with what it showed. */
const read = (repo: Repo, o: ReadOpts = {}) => {
  const pre = call(repo, 'PreToolUse', o);
  if (hso(pre)?.permissionDecision === 'deny') return { pre, post: undefined };
  const shown = o.shown ?? { content: asShown(repo.read(FILE).toString('utf8')) };
  return { pre, post: call(repo, 'PostToolUse', { ...o, shown }) };
};

const prompt = (repo: Repo, session = 'session-1') =>
  runHook(
    { hook_event_name: 'UserPromptSubmit', session_id: session, prompt: 'go', cwd: repo.dir },
    {
      cwd: repo.dir,
      env: repo.env,
    },
  );

const unchangedLine = (repo: Repo, turn: number, lines = '') =>
  `${lines}${repo.path(FILE)} unchanged since your read at turn ${turn}: what that read showed is current (fettle answered this re-read).`;

test('a re-read of the same bytes is one line, not twice in a row; a partial one names its lines; the meter counts', () => {
  const repo = makeRepo({ [FILE]: TEXT });
  prompt(repo);
  const first = read(repo);
  assertSilent(first.pre, 'the first read goes to the tool');
  assertSilent(first.post, 'its PostToolUse says nothing');
  prompt(repo);
  assert.equal(denied(read(repo).pre), unchangedLine(repo, 1));
  const again = read(repo);
  assertSilent(again.pre, 'the next re-read goes to the tool: the client sets its own state of the file again');
  assert.equal(denied(read(repo, { offset: 5, limit: 3 }).pre), unchangedLine(repo, 2, 'lines 5-7 of '));
  const info = JSON.parse(runCli(['info', '--json'], { cwd: repo.dir, env: repo.env }).stdout);
  const { reads, answeredShort, plainBytes, sentBytes } = info.reads;
  assert.deepEqual({ reads, answeredShort }, { reads: 4, answeredShort: 2 });
  assert.ok(sentBytes < plainBytes, JSON.stringify(info.reads));
});

test('the same bytes written again since the read (a formatter, a revert) go to the tool, whose state keys on the time', () => {
  const repo = makeRepo({ [FILE]: TEXT });
  read(repo);
  const later = new Date(Date.now() + 5000);
  utimesSync(repo.path(FILE), later, later);
  const touched = read(repo);
  assertSilent(touched.pre);
  assert.match(denied(read(repo).pre), /unchanged since your read/, 'what the tool showed then is the baseline');
});

test('a file changed outside the agent goes to the tool, with what changed beside it; then it is the baseline', () => {
  const repo = makeRepo({ [FILE]: TEXT });
  prompt(repo);
  read(repo);
  repo.write(FILE, TEXT.replace('line 20\n', 'line twenty\n'));
  const again = read(repo);
  assert.deepEqual([again.pre.code, hso(again.pre)?.permissionDecision], [0, undefined], show(again.pre));
  assert.equal(
    hso(again.pre)?.additionalContext,
    `fettle: ${repo.path(FILE)} changed since your read at turn 1; 1 hunk, +1 -1: line 20 (line 19).`,
  );
  assert.equal(denied(read(repo).pre), unchangedLine(repo, 1), 'what the tool showed is the new baseline');
});

test("the session's own Edit moves what it has seen: Edit then Read is unchanged", () => {
  const repo = makeRepo({ [FILE]: TEXT });
  prompt(repo);
  read(repo);
  prompt(repo);
  const edit = editInput(repo.path(FILE), 'line 7\n', 'line seven\n');
  const run = toolCall(repo, 'Edit', edit, () => {
    repo.write(FILE, TEXT.replace('line 7\n', 'line seven\n'));
  });
  assert.ok(run.ran, show(run.pre));
  assert.equal(denied(read(repo).pre), unchangedLine(repo, 2));
});

test('a failed Edit forgets what the session has seen: the next Read goes to the tool', () => {
  const repo = makeRepo({ [FILE]: TEXT });
  read(repo);
  const edit = editInput(repo.path(FILE), 'line 7\n', 'line seven\n');
  toolCall(repo, 'Edit', edit, () => false);
  assertSilent(read(repo).pre);
});

// [label, the first read's options, then the re-read's]: no "unchanged" answer, the re-read goes to the tool silently.
const noBaseline: [string, ReadOpts, ReadOpts][] = [
  ['a partial first read', { offset: 1, limit: 10, shown: { content: asShown(lines(10)), totalLines: 40 } }, {}],
  ['a response that is not the file on disk', { shown: { content: asShown(lines(40, 'other')) } }, {}],
  ['a subagent of the session (a context of its own)', {}, { agent: 'agent-1' }],
  ["the session, after its subagent's read", { agent: 'agent-1' }, {}],
  ['a re-read past the end', {}, { offset: 400 }],
];
for (const [label, first, again] of noBaseline) {
  test(`no baseline to answer from: ${label}`, () => {
    const repo = makeRepo({ [FILE]: TEXT });
    read(repo, first);
    assertSilent(call(repo, 'PreToolUse', again));
  });
}

test("another session's first read gets the file, with a line saying whether it changed since the last session read it", () => {
  const repo = makeRepo({ [FILE]: TEXT });
  const at = 1_800_000_000;
  read(repo, { now: at });
  const second = read(repo, { session: 'session-2', now: at + 3 * 3600 + 59 });
  assert.equal(hso(second.pre)?.permissionDecision, undefined, show(second.pre));
  const unchanged = `fettle: ${repo.path(FILE)} unchanged since session session-1 read it, 3 h ago.`;
  assert.equal(hso(second.pre)?.additionalContext, unchanged);
  repo.write(FILE, TEXT.replace('line 20\n', 'line twenty\n'));
  const third = hso(read(repo, { session: 'session-3', now: at + 4 * 3600 }).pre)?.additionalContext;
  const changed = `fettle: ${repo.path(FILE)} changed since session session-2 read it, 59 min ago: +1 -1. The diff against what it read:`;
  assert.equal(third?.split('\n')[0], changed, third);
  assert.match(third ?? '', /\n-line 20\n\+line twenty\n/);
  assertSilent(call(repo, 'PreToolUse', { session: 'session-3', agent: 'a1' }), 'a subagent is of the same session');
  assert.match(denied(call(repo, 'PreToolUse', { session: 'session-3' })), /unchanged since your read at /);
});

test("another session's read of a path the policy ignores is not told of the first's", () => {
  const repo = makeRepo({ [FILE]: TEXT });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: FILE, action: 'ignore' }] }));
  read(repo);
  assertSilent(call(repo, 'PreToolUse', { session: 'session-2' }));
});

test('a path the policy ignores is left to the tool: no baseline, no answer', () => {
  const repo = makeRepo({ [FILE]: TEXT });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: FILE, action: 'ignore' }] }));
  read(repo);
  assertSilent(call(repo, 'PreToolUse'));
});

// [the hook call after the session's read, whether its next re-read is still answered "unchanged"]
const contextEvents: [Record<string, string>, boolean][] = [
  [{ hook_event_name: 'PreCompact', trigger: 'auto' }, false],
  [{ hook_event_name: 'SessionStart', source: 'compact' }, false],
  [{ hook_event_name: 'SessionStart', source: 'clear' }, false],
  [{ hook_event_name: 'SessionStart', source: 'resume' }, true],
  [{ hook_event_name: 'SessionStart', source: 'startup' }, true],
];
for (const [event, kept] of contextEvents)
  test(`${Object.values(event).join(' ')}: what the session read is ${kept ? 'kept' : 'forgotten, its next Read goes to the tool'}`, () => {
    const repo = makeRepo({ [FILE]: TEXT });
    read(repo);
    assertSilent(runHook({ ...event, session_id: 'session-1', cwd: repo.dir }, { cwd: repo.dir, env: repo.env }));
    const again = call(repo, 'PreToolUse');
    if (kept) assert.match(denied(again), /unchanged since your read/);
    else assertSilent(again);
  });
