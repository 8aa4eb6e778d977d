// B.5 row 12: hostile hook input. A seeded generator (fuzz-gen.ts) plus a kept corpus (corpus/*.json,
// replayed every run, like SQLite's fuzzcheck). For every input: exit 0, 1 or 2 only, never a crash or a
// stack trace, at most one stderr line, stdout empty or one hook JSON object that never answers `allow`,
// no file of the user's touched, and the repository consistent afterwards.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../helpers/repo';
import {
  agentWrite,
  count,
  decisionOf,
  hookJson,
  pool,
  prng,
  repoWith,
  reportAs,
  scenario,
  SEED,
  show,
  spawnFettle,
  STRESS,
  text,
  type Proc,
} from './harness';
import { blobId, checkInvariants, formatOf, reachable, userState } from './invariants';
import { generate, type FuzzCase } from './fuzz-gen';

reportAs('fuzz');

const CORPUS = join(__dirname, 'corpus');

interface Kept extends FuzzCase {
  repeat?: { text: string; times: number };
  expect?: { exit: number; stdout?: 'empty' };
}

const NOTEBOOK = JSON.stringify({
  cells: [{ id: 'c1', cell_type: 'code', source: ['print(1)\n'], metadata: {}, outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

const fixture = (): Repo => {
  const repo = repoWith({ 'a.txt': text(40, 'line'), 'sub/keep.txt': 'keep\n', 'nb.ipynb': NOTEBOOK });
  repo.write('a.txt', text(40, 'dirty'));
  return repo;
};

/** Every file of the work tree (not .git) and the would-be escapes beside it, as one comparable string. */
const treeOf = (repo: Repo): string => {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name);
      if (e.name === '.git') return [];
      return e.isDirectory() ? walk(p) : [`${p} ${createHash('sha1').update(readFileSync(p)).digest('hex')}`];
    });
  return [...walk(repo.dir), ...['outside.txt', 'x.txt'].filter((f) => existsSync(join(repo.dir, '..', f)))].join('\n');
};

/**
 * The input with `$REPO` filled in. Kept inputs share one repository and run in parallel, so each gets its own
 * tool_use_id: one input's PreToolUse must not be the record another's PostToolUse finds.
 */
const inputOf = (repo: Repo, c: Kept, name = 'corpus'): Buffer => {
  const raw = c.stdinBase64
    ? Buffer.from(c.stdinBase64, 'base64')
    : Buffer.from(c.repeat ? c.repeat.text.repeat(c.repeat.times) : (c.stdin ?? ''));
  const text = raw.toString('latin1').split('$REPO').join(Buffer.from(repo.dir).toString('latin1'));
  return Buffer.from(text.split('toolu_corpus').join(`toolu_${name}`), 'latin1');
};

/** The oracle every input must satisfy; returns the outcome for the corpus's stricter expectations. */
const check = (p: Proc, tree: string, repo: Repo): void => {
  assert.ok(p.signal === null && p.code !== null && [0, 1, 2].includes(p.code), `exit 0/1/2 only\n${show(p)}`);
  assert.doesNotMatch(p.stderr, /\n\s+at .+:\d+:\d+/, 'no stack trace');
  assert.ok(p.stderr.trimEnd().split('\n').length <= 1, `one stderr line\n${show(p)}`);
  if (p.code === 2) assert.match(p.stderr, /^fettle blocked this write/, show(p));
  if (p.stdout.trim()) {
    const out = hookJson(p)?.hookSpecificOutput;
    assert.ok(out, `stdout is one hook JSON object\n${show(p)}`);
    assert.ok(['PreToolUse', 'PostToolUse'].includes(out.hookEventName ?? ''), show(p));
    assert.notEqual(decisionOf(p), 'allow', 'fettle never answers allow');
    assert.ok([undefined, 'deny', 'ask'].includes(decisionOf(p)), show(p));
  }
  assert.equal(treeOf(repo), tree, "the hook wrote none of the user's files");
};

const runCase = async (repo: Repo, c: Kept, tree: string, name?: string): Promise<Proc> => {
  const p = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: inputOf(repo, c, name) });
  count('fuzzCases');
  try {
    check(p, tree, repo);
  } catch (error) {
    if (p.signal !== null || /\n\s+at /.test(p.stderr)) count('crashes');
    if (process.env.FETTLE_FUZZ_SAVE) {
      const name = `found-${createHash('sha1').update(JSON.stringify(c)).digest('hex').slice(0, 10)}.json`;
      writeFileSync(join(CORPUS, name), `${JSON.stringify(c, null, 1)}\n`);
    }
    throw new Error(`${c.why}\ninput: ${JSON.stringify(c).slice(0, 600)}\n${(error as Error).message}`);
  }
  return p;
};

const corpus = (): [string, Kept][] =>
  readdirSync(CORPUS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(CORPUS, f), 'utf8')) as Kept]);

scenario(
  `kept corpus (${corpus().length} inputs): each meets the oracle and its pinned outcome`,
  undefined,
  async () => {
    const repo = fixture();
    const before = userState(repo);
    const tree = treeOf(repo);
    await pool(
      3,
      corpus().map(([name, c]) => async () => {
        const p = await runCase(repo, c, tree, name.replace(/\W/g, '_'));
        if (c.expect) {
          assert.equal(p.code, c.expect.exit, `${name}: exit\n${show(p)}`);
          if (c.expect.stdout === 'empty') assert.equal(p.stdout, '', `${name}: no output\n${show(p)}`);
        }
      }),
    );
    checkInvariants(repo, before, { litter: 'none' });
  },
);

scenario(`generated inputs (seed ${SEED}, ${60 * STRESS} cases)`, undefined, async (t) => {
  const rng = prng(SEED ^ 0xf022);
  const cases = Array.from({ length: 60 * STRESS }, () => generate(rng));
  t.diagnostic(`seed ${SEED}; replay with FETTLE_SEED=${SEED}, keep failures with FETTLE_FUZZ_SAVE=1`);
  const repo = fixture();
  const before = userState(repo);
  const tree = treeOf(repo);
  const outcomes = new Map<string, number>();
  await pool(
    3,
    cases.map((c) => async () => {
      const p = await runCase(repo, c, tree);
      const key = `exit ${p.code}${decisionOf(p) ? ` ${decisionOf(p)}` : ''}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      if (p.code === 2) t.diagnostic(`blocked (${c.why}): ${p.stderr.trim().slice(0, 300)}`);
    }),
  );
  t.diagnostic(`outcomes: ${[...outcomes].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  checkInvariants(repo, before, { litter: 'none' });
});

scenario(
  'a 10 MB Write is handled well within the hook timeout: over 5 MB, direct, previous bytes kept',
  undefined,
  async () => {
    const repo = fixture();
    const before = userState(repo);
    const old = readFileSync(repo.path('a.txt'));
    const content = 'ten megabytes of text\n'.repeat(480_000);
    const started = Date.now();
    const run = await agentWrite(
      { file: repo.path('a.txt'), content, cwd: repo.dir, toolUseId: 'toolu_big' },
      repo.env,
    );
    count('fuzzCases');
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
    assert.deepEqual([run.pre.code, run.pre.stdout, run.post?.code], [0, '', 0], show(run.pre));
    checkInvariants(repo, before, { owed: [old], litter: 'none' });
    assert.ok(
      reachable(repo).ids.has(blobId(Buffer.from(content), formatOf(repo))),
      'the 10 MB that landed is recorded too',
    );
  },
);

/** FETTLE_BIG_MB sizes the big-file scenario (default 100). */
const BIG_MB = Math.max(1, Number.parseInt(process.env.FETTLE_BIG_MB ?? '100', 10) || 100);

scenario(
  `an Edit of a ${BIG_MB} MB file through the hook, then a rollback: previous bytes kept, restored byte for byte`,
  undefined,
  async () => {
    const repo = fixture();
    const before = userState(repo);
    const line = 'a line of a large log file, the kind an agent edits once in a while\n';
    const old = Buffer.from(line.repeat(Math.ceil((BIG_MB << 20) / line.length)).replace(/^/, 'first line\n'));
    writeFileSync(repo.path('big.log'), old);
    const input = (event: string) =>
      JSON.stringify({
        session_id: 's',
        cwd: repo.dir,
        permission_mode: 'default',
        hook_event_name: event,
        tool_name: 'Edit',
        tool_use_id: 'toolu_big_edit',
        tool_input: { file_path: repo.path('big.log'), old_string: 'first line\n', new_string: 'FIRST LINE\n' },
      });
    const started = Date.now();
    const pre = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: input('PreToolUse') });
    assert.deepEqual([pre.code, pre.stdout], [0, ''], show(pre));
    const landed = Buffer.concat([Buffer.from('FIRST LINE\n'), old.subarray('first line\n'.length)]);
    writeFileSync(repo.path('big.log'), landed);
    const post = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: input('PostToolUse') });
    assert.equal(post.code, 0, show(post));
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
    count('fuzzCases');
    checkInvariants(repo, before, { owed: [old], litter: 'none' });
    const id =
      /as ([0-9a-z]{8}); undo with/.exec(hookJson(post)?.hookSpecificOutput?.additionalContext ?? '')?.[1] ?? '';
    const undo = await spawnFettle(['rollback', id], { cwd: repo.dir, env: repo.env });
    assert.equal(undo.code, 0, show(undo));
    assert.ok(readFileSync(repo.path('big.log')).equals(old), 'restored byte for byte');
    checkInvariants(repo, before, { owed: [old, landed], litter: 'none' });
  },
);
