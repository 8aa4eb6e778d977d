// Policy files and rule resolution (src/core/policy.ts), pure: which rule decides a path (the last match, the
// user's rules before the project's), what it does, and what an invalid file is told.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { effectOf, parsePolicy, type PolicyLayer } from '../../src/core/policy';
import { evaluatePolicy, winnerOf } from '../../src/core/policy-engine';

const resolvePolicy = (layers: PolicyLayer[], path: string) => {
  const e = evaluatePolicy(layers, { path }, true);
  return { winner: e.decider, considered: e.considered };
};
import type { FettleError } from '../../src/errors';

const T = { floor: 10, ceil: 80, ratio: 0.4 };
const FILES = { user: '~/.config/fettle/policy.json', project: '.fettle/policy.json' };

const layer = (layerName: 'user' | 'project', rules: unknown[]): PolicyLayer =>
  parsePolicy(JSON.stringify({ version: 1, rules }), layerName, FILES[layerName]);

const PROJECT = layer('project', [
  { path: 'migrations/**', action: 'stage' },
  { path: 'package-lock.json', action: 'direct' },
  { name: 'no-env', path: '.env*', action: 'block', message: 'Secrets are edited by hand.' },
  { path: 'dist/', action: 'ignore' },
  { path: 'src/generated/**', action: 'thresholds', floor: 200, ceil: 1000 },
  { path: 'migrations/drafts/**', action: 'direct' },
]);
const USER = layer('user', [
  { path: '**/*.md', action: 'direct' },
  { path: 'migrations/**', action: 'ignore' },
  { path: '*.lock', action: 'stage' },
]);

// [path, the label of the deciding rule (null: none), its action]
const cases: [string, string | null, string | null][] = [
  ['migrations/001.sql', 'project#1', 'stage'], // the project's rule beats the user's on the same path
  ['migrations/drafts/x.sql', 'project#6', 'direct'], // later beats earlier in one file
  ['package-lock.json', 'project#2', 'direct'],
  ['web/package-lock.json', 'project#2', 'direct'], // no '/' in the glob: any depth
  ['.env', 'no-env', 'block'],
  ['config/.env.local', 'no-env', 'block'],
  ['dist/app.js', 'project#4', 'ignore'],
  ['src/generated/api.ts', 'project#5', 'thresholds'],
  ['README.md', 'user#1', 'direct'], // only the user's rule matches
  ['docs/guide.md', 'user#1', 'direct'],
  ['yarn.lock', 'user#3', 'stage'],
  ['src/app.ts', null, null], // no rule: the thresholds decide
  ['Migrations/001.sql', null, null], // case-sensitive
];

for (const [path, label, action] of cases) {
  test(`policy: ${path} is decided by ${label ?? 'no rule'}`, () => {
    const { winner, considered } = resolvePolicy([PROJECT, USER], path);
    assert.equal(winner?.label ?? null, label);
    assert.equal(winner?.action ?? null, action);
    assert.equal(winnerOf([PROJECT, USER], path), winner, "the hook's shortcut finds the same rule");
    assert.equal(considered.length, 9, "every rule is considered, the project's first");
    assert.deepEqual(
      considered.slice(6).map((c) => c.rule.layer),
      ['user', 'user', 'user'],
    );
  });
}

test('effects: a block carries its message, thresholds merge with those in force, no rule is none', () => {
  const at = (path: string) => effectOf(resolvePolicy([PROJECT, USER], path).winner, T, FILES);
  assert.deepEqual(at('src/app.ts'), { kind: 'none' });
  const block = at('.env');
  assert.equal(block.kind, 'block');
  assert.equal(block.kind === 'block' && block.message, 'Secrets are edited by hand.');
  const t = at('src/generated/x.ts');
  assert.deepEqual(t.kind === 'thresholds' && t.thresholds, { floor: 200, ceil: 1000, ratio: 0.4 });
  assert.equal(at('dist/x').kind, 'ignore');
});

test('a thresholds rule whose floor is not below the ceil in force is an error naming the rule', () => {
  const only = layer('project', [{ path: 'big/**', action: 'thresholds', floor: 100 }]);
  assert.throws(
    () => effectOf(resolvePolicy([only], 'big/x').winner, T, FILES),
    (e: FettleError) =>
      e.code === 'E_POLICY' &&
      e.message ===
        '.fettle/policy.json is not a valid fettle policy: rule 1 ("big/**") makes the ceil in force (FETTLE_WRITE_CEIL) (80) not above its "floor" (100).',
  );
});

// [the file's text, the error after "is not a valid fettle policy: "]
const invalid: [string, string][] = [
  ['{', "it is not JSON (Expected property name or '}' at line 1, column 2)"],
  ['[]', 'the file must be object, not array'],
  ['{"rules": []}', 'the file needs "version"'],
  ['{"version": 3, "rules": []}', '"version" must be 1 or 2 (the versions of the policy format)'],
  ['{"version": 1}', 'the file needs "rules"'],
  [
    '{"version": 1, "rules": [], "extra": 1}',
    'the file has "extra", which is not one of "$schema", "version", "rules"',
  ],
  ['{"version": 1, "rules": [{"path": "a"}]}', 'rule 1 ("a") needs "action"'],
  ['{"version": 1, "rules": [{"action": "stage"}]}', 'rule 1 needs "path"'],
  [
    '{"version": 1, "rules": [{"path": ".env*", "action": "deny"}]}',
    'rule 1 (".env*"): "action" must be one of "stage", "direct", "ignore", "block", "thresholds", not "deny"',
  ],
  [
    '{"version": 1, "rules": [{"path": ".env*", "action": "block"}]}',
    'rule 1 (".env*") needs a "message": a "block" rule\'s reason, given to the agent',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "stage", "message": "no"}]}',
    'rule 1 ("a") has a "message", which goes only with "action": "block"',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "thresholds"}]}',
    'rule 1 ("a") needs at least one of "floor", "ceil", "ratio": the thresholds it sets',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "direct", "floor": 3}]}',
    'rule 1 ("a") has "floor", "ceil" or "ratio", which go only with "action": "thresholds"',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "thresholds", "ratio": 1.5}]}',
    'rule 1 ("a"): "ratio" must be at most 1',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "thresholds", "floor": 5, "ceil": 5}]}',
    'rule 1 ("a") has a "ceil" (5) not above its "floor" (5)',
  ],
  [
    '{"version": 1, "rules": [{"path": "a", "action": "stage"}, {"path": "[x", "action": "stage"}]}',
    'rule 2 ("[x"): "path" is not a glob fettle reads: a \'[\' is never closed by \']\' within its segment',
  ],
  [
    '{"version": 1, "rules": [{"name": "x", "path": "a", "action": "stage"}, {"name": "x", "path": "b", "action": "stage"}]}',
    'rule 2 ("b"): "name" repeats the name "x"',
  ],
  [
    '{"version": 1, "rules": [{"name": "has space", "path": "a", "action": "stage"}]}',
    "rule 1 (\"a\"): \"name\" must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  ],
];

for (const [text, why] of invalid) {
  test(`an invalid policy is told what is wrong: ${text}`, () => {
    assert.throws(
      () => parsePolicy(text, 'project', '.fettle/policy.json'),
      (e: FettleError) => {
        assert.equal(e.code, 'E_POLICY');
        assert.equal(e.message, `.fettle/policy.json is not a valid fettle policy: ${why}.`);
        assert.match(e.hint ?? '', /^Fix it in \.fettle\/policy\.json .*`fettle policy check <path>`\.$/);
        return true;
      },
    );
  });
}

test('the empty rule list and a $schema key are valid', () => {
  assert.deepEqual(parsePolicy('{"$schema": "x", "version": 1, "rules": []}', 'user', 'u').rules, []);
});
