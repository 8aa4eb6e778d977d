// The policy engine of format 2 (src/core/policy-engine.ts, policy-when.ts), pure: conditions over the path, the
// tool, the content, the added lines, a command line and the session's history; every matching rule speaks, the
// first that decides does, the project's rules before the user's; a format 1 file keeps its last-match meaning.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePolicy, type PolicyLayer } from '../../src/core/policy';
import { evaluatePolicy } from '../../src/core/policy-engine';
import type { PolicyFacts } from '../../src/core/policy-when';
import type { SessionEntry } from '../../src/core/session-log';

const FILES = { user: '~/.config/fettle/policy.json', project: '.fettle/policy.json' };
const layer = (name: 'user' | 'project', rules: unknown[], version = 2): PolicyLayer =>
  parsePolicy(JSON.stringify({ version, rules }), name, FILES[name]);

const PROJECT = layer('project', [
  { name: 'no-console', path: 'src/**', added: 'console\\.log', action: 'block', message: 'No console.log.' },
  { name: 'todo-note', content: '^// TODO', action: 'note', message: 'A TODO is left in the file.' },
  { name: 'no-rm', tool: 'Bash', command: '\\brm -rf\\b', action: 'block', message: 'No rm -rf.' },
  {
    name: 'schema-first',
    path: '*.xyz',
    notRead: 'docs/filexyz.md',
    action: 'block',
    message: 'Read docs/filexyz.md.',
  },
  { name: 'tests-first', path: 'release/**', notRanSinceWrite: 'npm test', action: 'ask', message: 'Tests not run.' },
  { name: 'edits-only', path: 'lib/**', tool: ['Edit', 'MultiEdit'], action: 'direct' },
  { name: 'lib-stage', path: 'lib/**', action: 'stage' },
]);
const USER = layer('user', [
  { name: 'mine', path: 'src/**', action: 'direct', message: 'User says direct.' },
  { name: 'any-xyz', path: '*.xyz', action: 'ignore' },
]);

const READ: SessionEntry[] = [{ t: 'Read', p: 'docs/filexyz.md' }];
const TESTED: SessionEntry[] = [
  { t: 'Write', p: 'a', w: 1 },
  { t: 'Bash', c: 'npm test -- x' },
];
const UNTESTED: SessionEntry[] = [
  { t: 'Bash', c: 'npm test' },
  { t: 'Edit', p: 'a', w: 1 },
];

// [facts, the deciding rule (null: none), what the agent is told, by rule]
const cases: [PolicyFacts, string | null, string[]][] = [
  [{ path: 'src/a.ts', added: 'x\nconsole.log(1)' }, 'no-console', ['no-console', 'mine']], // project block beats user
  [{ path: 'src/a.ts', added: 'x' }, 'mine', ['mine']], // the user's rule decides what the project leaves
  [{ path: 'src/a.ts' }, 'mine', ['mine']], // no content known: the content rule does not hold
  [{ path: 'b.ts', content: 'a\n// TODO b\n' }, null, ['todo-note']], // a note speaks, decides nothing
  [{ path: 'b.ts', content: 'a // TODO\n' }, null, []], // ^ is a line start
  [{ tool: 'Bash', command: 'cd x && rm -rf build' }, 'no-rm', ['no-rm']],
  [{ tool: 'Bash', command: 'rm -r build' }, null, []],
  [{ tool: 'Write', command: 'rm -rf x' }, null, []], // not the tool
  [{ path: 'file.xyz', history: () => [] }, 'schema-first', ['schema-first']],
  [{ path: 'file.xyz', history: () => READ }, 'any-xyz', []],
  [{ path: 'release/v1', history: () => UNTESTED }, 'tests-first', ['tests-first']], // ran, then wrote
  [{ path: 'release/v1', history: () => TESTED }, null, []],
  [{ path: 'lib/x', tool: 'Edit' }, 'edits-only', []],
  [{ path: 'lib/x', tool: 'Write' }, 'lib-stage', []],
  [{ path: 'lib/x' }, 'lib-stage', []], // no tool known: a tool condition does not hold
];

for (const [facts, decider, told] of cases) {
  const { history: _, ...shown } = facts;
  test(`policy engine: ${JSON.stringify(shown)} is decided by ${decider ?? 'no rule'}`, () => {
    const e = evaluatePolicy([USER, PROJECT], facts);
    assert.equal(e.decider?.label ?? null, decider);
    assert.deepEqual(
      e.feedback.map((f) => f.rule.label),
      told,
    );
  });
}

test('the session history is read once, and only when a rule reaches a state condition', () => {
  let reads = 0;
  const history = () => {
    reads++;
    return [];
  };
  evaluatePolicy([PROJECT, USER], { path: 'src/a.ts', history });
  assert.equal(reads, 0, 'no rule for src/a.ts has a state condition');
  evaluatePolicy([PROJECT, USER], { path: 'file.xyz', tool: 'Write', history }, true);
  assert.equal(reads, 1, 'read once, explained or not');
});

test('a format 1 file keeps its meaning beside a format 2 one: its last match decides, and only it speaks', () => {
  const v1 = layer(
    'user',
    [
      { path: 'docs/**', action: 'block', message: 'first' },
      { path: 'docs/**', action: 'direct' },
    ],
    1,
  );
  assert.equal(evaluatePolicy([v1], { path: 'docs/a.md' }).decider?.label, 'user#2');
  assert.deepEqual(evaluatePolicy([v1], { path: 'docs/a.md' }).feedback, []);
  const both = evaluatePolicy([v1, PROJECT], { path: 'src/a.ts', added: 'console.log()' });
  assert.equal(both.decider?.label, 'no-console', "the project's block first");
});

test('explain says why each rule matched or not', () => {
  const e = evaluatePolicy([PROJECT], { path: 'file.xyz', tool: 'Edit', history: () => READ }, true);
  const why = Object.fromEntries(e.considered.map((c) => [c.rule.label, c.why.join('; ')]));
  assert.equal(why['schema-first'], 'path: file.xyz matches *.xyz; notRead: the session has read docs/filexyz.md');
  assert.equal(why['no-rm'], 'tool: Edit is not one of Bash; command: no command to check');
  assert.equal(why['todo-note'], 'content: no content to check');
});

// [a format 2 rule, the error after "is not a valid fettle policy: "]
const invalid: [unknown, string][] = [
  [
    { content: '(', action: 'block', message: 'm' },
    'rule 1: "content" is not a regular expression: Invalid regular expression: /(/m: Unterminated group',
  ],
  [
    { notRead: '[x', action: 'block', message: 'm' },
    "rule 1: \"notRead\" is not a glob fettle reads: a '[' is never closed by ']' within its segment",
  ],
  [
    { path: 'a', action: 'ask' },
    'rule 1 ("a") needs a "message": what a "block", "ask" or "note" rule tells the agent',
  ],
  [{ path: 'a', tool: [], action: 'stage' }, 'rule 1 ("a"): "tool" must be a name or a list of names'],
  [
    { path: 'a', action: 'exec' },
    'rule 1 ("a"): "action" must be one of "block", "ask", "stage", "direct", "ignore", "thresholds", "note", "run", not "exec"',
  ],
  [
    { path: 'a', action: 'stage', when: 1 },
    'rule 1 ("a") has "when", which is not one of "name", "path", "tool", "content", "added", "command", "read", "notRead", "ranSinceWrite", "notRanSinceWrite", "action", "message", "floor", "ceil", "ratio", "run", "onFail", "timeoutSeconds"',
  ],
  [{ path: 'a', action: 'run' }, 'rule 1 ("a") needs a "run": the command a "run" rule runs'],
  [{ path: 'a', action: 'run', run: [] }, 'rule 1 ("a"): "run" must be a command line or a list of its words (argv)'],
  [{ path: 'a', action: 'run', run: 'x', onFail: 'ask' }, 'rule 1 ("a"): "onFail" must be "block" or "stage"'],
  [
    { path: 'a', action: 'run', run: 'x', timeoutSeconds: 0 },
    'rule 1 ("a"): "timeoutSeconds" must be a whole number of seconds from 1 to 300',
  ],
  [
    { path: 'a', action: 'block', message: 'm', run: 'x' },
    'rule 1 ("a") has "run", "onFail" or "timeoutSeconds", which go only with "action": "run"',
  ],
];

for (const [rule, why] of invalid) {
  test(`an invalid format 2 rule is told what is wrong: ${JSON.stringify(rule)}`, () => {
    assert.throws(
      () => layer('project', [rule]),
      (e: Error) => e.message === `.fettle/policy.json is not a valid fettle policy: ${why}.`,
    );
  });
}

// [a file of several lines, the error after "is not a valid fettle policy: "]
const located: [string, string][] = [
  [
    '{\n  "version": 2,\n  "rules": [\n    { "path": "a", "action": "stage" },\n    {\n      "path": "b",\n      "action": "deny"\n    }\n  ]\n}\n',
    'rule 2 ("b"): "action" must be one of "block", "ask", "stage", "direct", "ignore", "thresholds", "note", "run", not "deny" (line 7)',
  ],
  ['{\n  "version": 3,\n  "rules": []\n}', '"version" must be 1 or 2 (the versions of the policy format) (line 2)'],
  [
    '{"version": 2, "rules": [\n  {"added": "(x", "action": "stage"}\n]}',
    'rule 1: "added" is not a regular expression: Invalid regular expression: /(x/m: Unterminated group (line 2)',
  ],
  [
    '{"version": 1, "rules": [\n  {"name": "x", "path": "a", "action": "stage"},\n  {"name": "x", "path": "b", "action": "stage"}\n]}',
    'rule 2 ("b"): "name" repeats the name "x" (line 3)',
  ],
  [
    '{"version": 2, "rules": [\n  {"path": "a", "action": "run",\n   "run": "npm test", "timeoutSeconds": 900}\n]}',
    'rule 1 ("a"): "timeoutSeconds" must be a whole number of seconds from 1 to 300 (line 3)',
  ],
];

for (const [text, why] of located) {
  test(`an error in a file of several lines names the line: ${why}`, () => {
    assert.throws(
      () => parsePolicy(text, 'project', '.fettle/policy.json'),
      (e: Error) => e.message === `.fettle/policy.json is not a valid fettle policy: ${why}.`,
    );
  });
}

test('run rules: every matching one is collected, whichever rule decides; one that does not match is not', () => {
  const project = layer('project', [
    { name: 'lib-direct', path: 'lib/**', action: 'direct' },
    { name: 'types', path: '*.ts', action: 'run', run: 'tsc --noEmit' },
    { name: 'lint', path: 'lib/**', tool: 'Edit', action: 'run', run: ['eslint', '{file}'], onFail: 'stage' },
  ]);
  const user = layer('user', [{ name: 'mine', action: 'run', run: 'make check', timeoutSeconds: 5 }]);
  const runs = (facts: PolicyFacts) => evaluatePolicy([user, project], facts).runs.map((r) => r.label);
  assert.deepEqual(runs({ path: 'lib/a.ts', tool: 'Edit' }), ['types', 'lint', 'mine']); // after the decider too
  assert.deepEqual(runs({ path: 'lib/a.js', tool: 'Write' }), ['mine']);
  const e = evaluatePolicy([user, project], { path: 'lib/a.ts', tool: 'Edit' });
  assert.equal(e.decider?.label, 'lib-direct', 'a run rule decides nothing');
  assert.deepEqual(
    e.runs.map((r) => r.run),
    [
      { command: 'tsc --noEmit', onFail: 'block', timeoutSeconds: 60 },
      { command: ['eslint', '{file}'], onFail: 'stage', timeoutSeconds: 60 },
      { command: 'make check', onFail: 'block', timeoutSeconds: 5 },
    ],
  );
});
