// `fettle info` end to end: the decision rule and the thresholds in force; invalid settings are errors that
// name the variable (exit 2), for info and for every other command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lines, makeRepo } from '../helpers/repo';
import { fettle, keepsUserState, ok, stageWrite } from '../helpers/stage';

test('info shows the decision rule and the default thresholds', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const out = keepsUserState(repo, () => ok(fettle(repo, ['info'])).stdout);
  for (const row of [
    /^  changed <= 10 +-> direct$/m,
    /^  changed >= 80 +-> staged$/m,
    /^  changed \/ old lines > 0\.4 +-> staged$/m,
    /^  file does not exist +-> direct/m,
    /^  FETTLE_WRITE_FLOOR +10 \(default\)$/m,
    /^  FETTLE_WRITE_CEIL +80 \(default\)$/m,
    /^  FETTLE_WRITE_RATIO +0\.4 \(default\)$/m,
    /^  FETTLE_WRITE_STAGE_TTL +600 s \(default\)$/m,
  ])
    assert.match(out, row);
});

test('info reflects the variables set in the environment', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const env = {
    FETTLE_WRITE_FLOOR: '5',
    FETTLE_WRITE_CEIL: '50',
    FETTLE_WRITE_RATIO: '0.25',
    FETTLE_WRITE_STAGE_TTL: '120',
  };
  const out = ok(fettle(repo, ['info'], { env })).stdout;
  for (const row of [
    /^  changed <= 5 +-> direct$/m,
    /^  changed >= 50 +-> staged$/m,
    /^  changed \/ old lines > 0\.25 +-> staged$/m,
    /^  FETTLE_WRITE_FLOOR +5 \(from FETTLE_WRITE_FLOOR\)$/m,
    /^  FETTLE_WRITE_CEIL +50 \(from FETTLE_WRITE_CEIL\)$/m,
    /^  FETTLE_WRITE_RATIO +0\.25 \(from FETTLE_WRITE_RATIO\)$/m,
    /^  FETTLE_WRITE_STAGE_TTL +120 s \(from FETTLE_WRITE_STAGE_TTL\)$/m,
  ])
    assert.match(out, row);
});

test('info --json gives the thresholds in force and the defaults', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const out = JSON.parse(
    ok(fettle(repo, ['info', '--json'], { env: { FETTLE_WRITE_CEIL: '90', FETTLE_WRITE_STAGE_TTL: '30' } })).stdout,
  ) as Record<string, unknown>;
  assert.deepEqual(
    { floor: out.floor, ceil: out.ceil, ratio: out.ratio, ttlSeconds: out.ttlSeconds, defaults: out.defaults },
    { floor: 10, ceil: 90, ratio: 0.4, ttlSeconds: 30, defaults: { floor: 10, ceil: 80, ratio: 0.4, ttlSeconds: 600 } },
  );
});

test('the thresholds info shows are the ones a write obeys', () => {
  const repo = makeRepo({ 'a.txt': lines(30) });
  const env = { FETTLE_WRITE_FLOOR: '1', FETTLE_WRITE_RATIO: '0.01' };
  assert.match(ok(fettle(repo, ['info'], { env })).stdout, /^  changed <= 1 +-> direct$/m);
  stageWrite(repo, 'a.txt', lines(30).replace('line 1\n', 'x\n'), { env });
});

// [variable, bad value]
const invalid: [string, string][] = [
  ['FETTLE_WRITE_FLOOR', 'abc'],
  ['FETTLE_WRITE_FLOOR', '-1'],
  ['FETTLE_WRITE_FLOOR', '2.5'],
  ['FETTLE_WRITE_CEIL', '0'],
  ['FETTLE_WRITE_CEIL', '1e3'],
  ['FETTLE_WRITE_RATIO', '1.5'],
  ['FETTLE_WRITE_RATIO', '-0.1'],
  ['FETTLE_WRITE_RATIO', '40%'],
  ['FETTLE_WRITE_RATIO', 'NaN'],
  ['FETTLE_WRITE_STAGE_TTL', '0'],
  ['FETTLE_WRITE_STAGE_TTL', '10m'],
  ['FETTLE_ON_ERROR', 'maybe'],
];
for (const [name, value] of invalid) {
  test(`info with ${name}=${value}: exit 2 naming the variable`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = fettle(repo, ['info'], { env: { [name]: value } });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr.split('\n')[0] ?? '', new RegExp(`^fettle: ${name} .*'${value.replace(/[.%]/g, '\\$&')}'`));
    assert.equal(r.stdout, '');
  });
}

test('a ceiling not above the floor is an error naming both variables', () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const r = fettle(repo, ['info'], { env: { FETTLE_WRITE_FLOOR: '50', FETTLE_WRITE_CEIL: '50' } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^fettle: FETTLE_WRITE_CEIL \(50\) must be greater than FETTLE_WRITE_FLOOR \(50\)\./);
});

// [command, invalid setting]: every command refuses to run on an invalid setting, with exit 2.
const commands: [string[], Record<string, string>][] = [
  [['status'], { FETTLE_WRITE_STAGE_TTL: 'soon' }],
  [['confirm', 'abcd1234'], { FETTLE_WRITE_RATIO: 'half' }],
  [['discard', 'abcd1234'], { FETTLE_WRITE_FLOOR: 'x' }],
  [['rollback', 'abcd1234'], { FETTLE_WRITE_CEIL: 'x' }],
  [['write', 'a.txt'], { FETTLE_WRITE_STAGE_TTL: '-5' }],
  [['status'], { FETTLE_NOW: 'yesterday-ish' }],
];
for (const [args, env] of commands) {
  const name = Object.keys(env)[0] ?? '';
  test(`${args[0]} with an invalid ${name}: exit 2 naming it, nothing written`, () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const r = keepsUserState(repo, () => fettle(repo, args, { env, input: 'changed\n' }));
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`^fettle: ${name} must be`));
    assert.ok(repo.read('a.txt').equals(Buffer.from('a\n')));
    assert.equal(repo.git('for-each-ref', 'refs/fettle'), '');
  });
}

test('info runs outside any repository', () => {
  const repo = makeRepo();
  assert.match(ok(fettle(repo, ['info'], { cwd: repo.home })).stdout, /^In force:$/m);
});
