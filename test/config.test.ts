import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { clockFrom, DEFAULTS, loadConfig, readThresholdFrom, testLinksFrom, type Env } from '../src/config';
import { FettleError } from '../src/errors';
import { runCli, runHook, writePayload } from './helpers/cli';
import { makeRepo } from './helpers/repo';

const HOME = { HOME: '/home/u' };

test('defaults: floor 10, ceil 80, ratio 0.40, ttl 600 s, block on error', () => {
  const c = loadConfig(HOME);
  assert.deepEqual(
    { floor: c.floor, ceil: c.ceil, ratio: c.ratio, ttl: c.ttlSeconds, onError: c.onError },
    { floor: 10, ceil: 80, ratio: 0.4, ttl: 600, onError: 'block' },
  );
  assert.deepEqual(DEFAULTS, { floor: 10, ceil: 80, ratio: 0.4, ttlSeconds: 600 });
});

test('empty values mean the default', () => {
  const c = loadConfig({
    ...HOME,
    FETTLE_WRITE_FLOOR: '',
    FETTLE_WRITE_CEIL: ' ',
    FETTLE_WRITE_RATIO: '',
    FETTLE_WRITE_STAGE_TTL: '',
    FETTLE_ON_ERROR: '',
  });
  assert.deepEqual([c.floor, c.ceil, c.ratio, c.ttlSeconds, c.onError], [10, 80, 0.4, 600, 'block']);
});

// [variable, value, expected field, expected value]
const valid: [string, string, 'floor' | 'ceil' | 'ratio' | 'ttlSeconds' | 'onError', number | string][] = [
  ['FETTLE_WRITE_FLOOR', '0', 'floor', 0],
  ['FETTLE_WRITE_FLOOR', ' 12 ', 'floor', 12],
  ['FETTLE_WRITE_CEIL', '200', 'ceil', 200],
  ['FETTLE_WRITE_RATIO', '0', 'ratio', 0],
  ['FETTLE_WRITE_RATIO', '1', 'ratio', 1],
  ['FETTLE_WRITE_RATIO', '.25', 'ratio', 0.25],
  ['FETTLE_WRITE_RATIO', '0.5', 'ratio', 0.5],
  ['FETTLE_WRITE_STAGE_TTL', '1', 'ttlSeconds', 1],
  ['FETTLE_WRITE_STAGE_TTL', '86400', 'ttlSeconds', 86400],
  ['FETTLE_ON_ERROR', 'allow', 'onError', 'allow'],
  ['FETTLE_ON_ERROR', 'block', 'onError', 'block'],
];

for (const [name, value, field, expected] of valid) {
  test(`${name}=${JSON.stringify(value)} -> ${field} ${expected}`, () =>
    assert.equal(loadConfig({ ...HOME, [name]: value })[field], expected));
}

const configError = (env: Env, names: string[]) => {
  assert.throws(
    () => loadConfig({ ...HOME, ...env }),
    (e: unknown) => {
      assert.ok(e instanceof FettleError, 'a FettleError');
      assert.equal(e.code, 'E_CONFIG');
      for (const name of names) assert.ok(e.message.includes(name), `message names ${name}: ${e.message}`);
      return true;
    },
  );
};

// [label, env, variables the message must name]
const invalid: [string, Env, string[]][] = [
  ['FLOOR=-1', { FETTLE_WRITE_FLOOR: '-1' }, ['FETTLE_WRITE_FLOOR', "'-1'"]],
  ['FLOOR=abc', { FETTLE_WRITE_FLOOR: 'abc' }, ['FETTLE_WRITE_FLOOR', "'abc'"]],
  ['FLOOR=1.5', { FETTLE_WRITE_FLOOR: '1.5' }, ['FETTLE_WRITE_FLOOR']],
  ['FLOOR=1e3', { FETTLE_WRITE_FLOOR: '1e3' }, ['FETTLE_WRITE_FLOOR']],
  ['FLOOR=0x10', { FETTLE_WRITE_FLOOR: '0x10' }, ['FETTLE_WRITE_FLOOR']],
  ['FLOOR huge', { FETTLE_WRITE_FLOOR: '99999999999999999999' }, ['FETTLE_WRITE_FLOOR']],
  ['CEIL=0', { FETTLE_WRITE_CEIL: '0' }, ['FETTLE_WRITE_CEIL']],
  ['CEIL=ten', { FETTLE_WRITE_CEIL: 'ten' }, ['FETTLE_WRITE_CEIL']],
  ['RATIO=2', { FETTLE_WRITE_RATIO: '2' }, ['FETTLE_WRITE_RATIO', "'2'"]],
  ['RATIO=x', { FETTLE_WRITE_RATIO: 'x' }, ['FETTLE_WRITE_RATIO']],
  ['RATIO=-0.1', { FETTLE_WRITE_RATIO: '-0.1' }, ['FETTLE_WRITE_RATIO']],
  ['RATIO=40%', { FETTLE_WRITE_RATIO: '40%' }, ['FETTLE_WRITE_RATIO']],
  ['RATIO=1.01', { FETTLE_WRITE_RATIO: '1.01' }, ['FETTLE_WRITE_RATIO']],
  ['TTL=0', { FETTLE_WRITE_STAGE_TTL: '0' }, ['FETTLE_WRITE_STAGE_TTL']],
  ['TTL=10m', { FETTLE_WRITE_STAGE_TTL: '10m' }, ['FETTLE_WRITE_STAGE_TTL']],
  ['CEIL == FLOOR', { FETTLE_WRITE_FLOOR: '80', FETTLE_WRITE_CEIL: '80' }, ['FETTLE_WRITE_CEIL', 'FETTLE_WRITE_FLOOR']],
  ['CEIL < FLOOR', { FETTLE_WRITE_FLOOR: '50', FETTLE_WRITE_CEIL: '20' }, ['FETTLE_WRITE_CEIL', 'FETTLE_WRITE_FLOOR']],
  ['default CEIL <= FLOOR=100', { FETTLE_WRITE_FLOOR: '100' }, ['FETTLE_WRITE_CEIL', 'FETTLE_WRITE_FLOOR']],
  ['FETTLE_ON_ERROR=maybe', { FETTLE_ON_ERROR: 'maybe' }, ['FETTLE_ON_ERROR', 'maybe']],
  ['FETTLE_ON_ERROR=BLOCK', { FETTLE_ON_ERROR: 'BLOCK' }, ['FETTLE_ON_ERROR']],
];

for (const [label, env, names] of invalid) {
  test(`invalid ${label} -> E_CONFIG naming ${names.join(', ')}`, () => configError(env, names));
}

test('an invalid value carries a hint naming the variable', () => {
  try {
    loadConfig({ ...HOME, FETTLE_WRITE_RATIO: 'x' });
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(e instanceof FettleError);
    assert.match(e.hint ?? '', /FETTLE_WRITE_RATIO/);
  }
});

// [env, expected data dir]
const dataDirs: [Env, string][] = [
  [{ FETTLE_DATA_DIR: '/d/fettle-data', XDG_DATA_HOME: '/x', HOME: '/h' }, '/d/fettle-data'],
  [{ XDG_DATA_HOME: '/x', HOME: '/h' }, join('/x', 'fettle')],
  [{ HOME: '/h' }, join('/h', '.local', 'share', 'fettle')],
];

for (const [env, expected] of dataDirs) {
  test(`data dir from ${Object.keys(env).join('+')} = ${expected}`, () =>
    assert.equal(loadConfig(env).dataDir, expected));
}

// [FETTLE_NOW, expected ISO time]
const clocks: [string, string][] = [
  ['1700000000', '2023-11-14T22:13:20.000Z'],
  ['0', '1970-01-01T00:00:00.000Z'],
  ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
  ['2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05.000Z'],
];

for (const [raw, iso] of clocks) {
  test(`FETTLE_NOW=${raw} pins the clock at ${iso}`, () => {
    const now = clockFrom({ FETTLE_NOW: raw });
    assert.equal(now().toISOString(), iso);
    assert.equal(now().getTime(), now().getTime());
  });
}

test('without FETTLE_NOW the clock is the system clock', () => {
  for (const env of [{}, { FETTLE_NOW: '' }]) {
    const t = clockFrom(env)().getTime();
    assert.ok(Math.abs(t - Date.now()) < 5000);
  }
});

for (const raw of ['yesterday', '12abc', 'not-a-date', '-5', '1969-12-31', '1960-01-01T00:00:00Z']) {
  test(`FETTLE_NOW=${raw} -> E_CONFIG naming FETTLE_NOW`, () =>
    assert.throws(
      () => clockFrom({ FETTLE_NOW: raw }),
      (e: unknown) => e instanceof FettleError && e.code === 'E_CONFIG' && e.message.includes('FETTLE_NOW'),
    ));
}

test('CLI: an invalid variable exits 2 with its name, for `fettle info`', () => {
  const repo = makeRepo();
  const r = runCli(['info'], { cwd: repo.dir, env: { ...repo.env, FETTLE_WRITE_RATIO: '2' } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /FETTLE_WRITE_RATIO/);
});

test('hook: an invalid variable blocks a PreToolUse write (exit 2) and says nothing was written', () => {
  const repo = makeRepo({ 'f.txt': 'a\n' });
  const file = repo.path('f.txt');
  const r = runHook(writePayload({ file, content: 'b\n', cwd: repo.dir }), {
    cwd: repo.dir,
    env: { ...repo.env, FETTLE_WRITE_FLOOR: 'abc' },
  });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /FETTLE_WRITE_FLOOR/);
  assert.match(r.stderr, /nothing was written/);
  assert.equal(repo.read('f.txt').toString(), 'a\n');
  assert.equal(repo.git('for-each-ref', 'refs/fettle'), '');
});

// [FETTLE_TEST_LINK, the paths, or the problem named]
const links: [string, string[] | RegExp][] = [
  ['', []],
  ['node_modules', ['node_modules']],
  ['node_modules/:.venv:node_modules', ['node_modules', '.venv']],
  [' packages/web/node_modules : ', ['packages/web/node_modules']],
  ['/abs/node_modules', /'\/abs\/node_modules' is absolute/],
  ['node_modules:../up', /'\.\.\/up' leaves the repository/],
  ['a//b', /'a\/\/b' has an empty or '\.' component/],
  ['.git/hooks', /'\.git\/hooks' is inside \.git/],
];
for (const [raw, want] of links) {
  test(`FETTLE_TEST_LINK=${JSON.stringify(raw)} -> ${want instanceof RegExp ? 'E_CONFIG' : JSON.stringify(want)}`, () => {
    if (!(want instanceof RegExp)) return assert.deepEqual(testLinksFrom({ FETTLE_TEST_LINK: raw }), want);
    assert.throws(
      () => testLinksFrom({ FETTLE_TEST_LINK: raw }),
      (e: unknown) =>
        e instanceof FettleError &&
        e.code === 'E_CONFIG' &&
        e.message.startsWith('FETTLE_TEST_LINK') &&
        want.test(e.message),
    );
  });
}

// [FETTLE_READ_THRESHOLD, bytes, or the value the error quotes]
const readThresholds: [string | undefined, number | string][] = [
  [undefined, 262144],
  ['', 262144],
  ['1', 1],
  [' 1048576 ', 1048576],
  ['0', "'0'"],
  ['-1', "'-1'"],
  ['abc', "'abc'"],
  ['256K', "'256K'"],
  ['1.5', "'1.5'"],
];
for (const [raw, want] of readThresholds) {
  test(`FETTLE_READ_THRESHOLD=${JSON.stringify(raw)} -> ${want}`, () => {
    const env = raw === undefined ? {} : { FETTLE_READ_THRESHOLD: raw };
    if (typeof want === 'number') return assert.equal(readThresholdFrom(env), want);
    assert.throws(
      () => readThresholdFrom(env),
      (e: unknown) =>
        e instanceof FettleError &&
        e.code === 'E_CONFIG' &&
        e.message === `FETTLE_READ_THRESHOLD must be a whole number of at least 1, got ${want}.`,
    );
  });
}

// [setting, who reads it, a bad value, the start of the message it gives, a good value]
const readByOne: [string, string, string, RegExp, string][] = [
  [
    'FETTLE_TEST_LINK',
    '`fettle test`',
    '../x',
    /^fettle: FETTLE_TEST_LINK must list paths inside the repository/,
    'node_modules',
  ],
  [
    'FETTLE_READ_THRESHOLD',
    'the Read hook',
    '0',
    /^fettle: FETTLE_READ_THRESHOLD must be a whole number of at least 1, got '0'\./,
    '1000000',
  ],
];
for (const [name, reader, bad, message, good] of readByOne)
  test(`${name}: read by ${reader} only, so a mistake in it never blocks a write; info and doctor say so`, () => {
    const repo = makeRepo({ 'f.txt': 'a\n' });
    const env = { ...repo.env, [name]: bad };
    const hook = runHook(writePayload({ file: repo.path('f.txt'), content: 'b\n', cwd: repo.dir }), {
      cwd: repo.dir,
      env,
    });
    assert.equal(hook.code, 0, hook.stderr);
    const info = runCli(['info'], { cwd: repo.dir, env });
    assert.equal(info.code, 2);
    assert.match(info.stderr, message);
    const doctor = JSON.parse(runCli(['doctor', '--json'], { cwd: repo.dir, env }).stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    assert.deepEqual(
      doctor.checks.filter((c) => c.name === 'config').map((c) => [c.status, c.detail.includes(name)]),
      [['fail', true]],
    );
    assert.match(
      runCli(['info'], { cwd: repo.dir, env: { ...repo.env, [name]: good } }).stdout,
      new RegExp(`^  ${name} +${good} \\(from ${name}\\)$`, 'm'),
    );
  });

test('FETTLE_READ_THRESHOLD: info says what the Read hook serves, and --json has it', () => {
  const repo = makeRepo({ 'f.txt': 'a\n' });
  const set = { ...repo.env, FETTLE_READ_THRESHOLD: '1000000' };
  assert.match(
    runCli(['info'], { cwd: repo.dir, env: set }).stdout,
    /^  Read +only with `.+ install --read`: text files over 1000000 bytes are served from disk$/m,
  );
  assert.match(
    runCli(['info'], { cwd: repo.dir, env: repo.env }).stdout,
    /^  FETTLE_READ_THRESHOLD +262144 \(default\)$/m,
  );
  const json = JSON.parse(runCli(['info', '--json'], { cwd: repo.dir, env: set }).stdout) as Record<string, unknown>;
  assert.equal(json.readThreshold, 1000000);
});
