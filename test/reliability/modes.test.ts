// The PreToolUse decision in every permission mode, pinned: PreToolUse runs before Claude Code's permission
// check, so fettle never answers `allow` (it would approve writes the user's rules deny, e.g. in dontAsk),
// and in plan mode it does nothing at all: no output, no record, no file touched.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../helpers/repo';
import {
  count,
  decisionOf,
  hookJson,
  pool,
  repoWith,
  reportAs,
  scenario,
  show,
  spawnFettle,
  text,
  type Proc,
} from './harness';
import { checkInvariants, fettleRefs, userState } from './invariants';

reportAs('modes');

const MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', undefined, 'someFutureMode'];

const OLD = text(30, 'old');
const NOTEBOOK = JSON.stringify({
  cells: [{ id: 'c1', cell_type: 'code', source: ['x = 1\n'], metadata: {}, outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

/** [case, tool, tool_input (paths relative to the repo), expected outside plan mode: the decision and whether a ref is
 * made; 'large': a staged write, whose answer depends on the mode (LARGE)]. */
type Expect = { decision: 'none' | 'deny' | 'ask' | 'context'; records: boolean };
const CASES: [string, string, (r: Repo) => Record<string, unknown>, Expect, 'large'?][] = [
  [
    'small Write',
    'Write',
    (r) => ({ file_path: r.path('a.txt'), content: OLD.replace('old 1\n', 'new 1\n') }),
    { decision: 'none', records: true },
  ],
  [
    'large Write',
    'Write',
    (r) => ({ file_path: r.path('a.txt'), content: text(30, 'new') }),
    { decision: 'deny', records: true },
    'large',
  ],
  [
    'new file',
    'Write',
    (r) => ({ file_path: r.path('fresh.txt'), content: 'x\n' }),
    { decision: 'none', records: true },
  ],
  [
    'identical Write',
    'Write',
    (r) => ({ file_path: r.path('a.txt'), content: OLD }),
    { decision: 'context', records: false },
  ],
  [
    'small Edit',
    'Edit',
    (r) => ({ file_path: r.path('a.txt'), old_string: 'old 2\n', new_string: 'new 2\n' }),
    { decision: 'none', records: true },
  ],
  [
    'large MultiEdit',
    'MultiEdit',
    (r) => ({
      file_path: r.path('a.txt'),
      edits: Array.from({ length: 20 }, (_, i) => ({ old_string: `old ${i + 10}\n`, new_string: `new ${i + 10}\n` })),
    }),
    { decision: 'deny', records: true },
    'large',
  ],
  [
    'NotebookEdit',
    'NotebookEdit',
    (r) => ({ notebook_path: r.path('nb.ipynb'), cell_id: 'c1', new_source: 'x = 2\n' }),
    { decision: 'none', records: true },
  ],
  [
    '.git path',
    'Write',
    (r) => ({ file_path: r.path('.git/config'), content: '[core]\n' }),
    { decision: 'none', records: false },
  ],
];

/** A large write by mode (docs/HOOK.md, "Permission modes"): staged for the model, asked, or refused. */
const LARGE: Record<'model' | 'person' | 'refuse', Expect> = {
  model: { decision: 'deny', records: true },
  person: { decision: 'ask', records: true },
  refuse: { decision: 'deny', records: false },
};
const routeOf = (mode: string | undefined, review: 'model' | 'human'): keyof typeof LARGE => {
  if (mode === 'dontAsk') return 'refuse';
  if (review === 'human') return 'person';
  return mode === undefined || mode === 'acceptEdits' || mode === 'bypassPermissions' ? 'model' : 'person';
};

const outcome = (p: Proc): Expect['decision'] => {
  const d = decisionOf(p);
  if (d) return d as Expect['decision'];
  return hookJson(p)?.hookSpecificOutput?.additionalContext ? 'context' : 'none';
};

/** The tool calls fettle's records name (cases run concurrently, so a count of refs could not tell whose). */
const recordedCalls = (repo: Repo): string[] =>
  repo
    .git('for-each-ref', '--format=%(trailers:key=Fettle-Tool-Use,valueonly)', 'refs/fettle/')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const toolUseFiles = (repo: Repo): string[] => {
  const dir = join(repo.dir, '.git', 'fettle', 'tool-use');
  return existsSync(dir) ? readdirSync(dir) : [];
};

for (const review of ['model', 'human'] as const) {
  for (const mode of MODES) {
    scenario(
      `permission mode ${mode ?? '(absent)'}${review === 'human' ? ', FETTLE_REVIEW=human' : ''}: decisions pinned, never allow`,
      undefined,
      async () => {
        const repo = repoWith({ 'a.txt': OLD, 'nb.ipynb': NOTEBOOK });
        const before = userState(repo);
        const env = { ...repo.env, FETTLE_REVIEW: review };
        await pool(
          4,
          CASES.map(([label, tool, input, model, large]) => async () => {
            const files = [readFileSync(repo.path('a.txt')), readFileSync(repo.path('nb.ipynb'))];
            const payload = {
              session_id: 's',
              cwd: repo.dir,
              hook_event_name: 'PreToolUse',
              tool_name: tool,
              tool_input: input(repo),
              tool_use_id: `toolu_${label}`,
              ...(mode ? { permission_mode: mode } : {}),
            };
            const p = await spawnFettle(['hook'], { cwd: repo.dir, env, input: JSON.stringify(payload) });
            count('decisions');
            const expected =
              mode === 'plan' ? { decision: 'none', records: false } : large ? LARGE[routeOf(mode, review)] : model;
            assert.equal(p.code, 0, `${label}: ${show(p)}`);
            assert.notEqual(decisionOf(p), 'allow', `${label}: never allow`);
            assert.equal(outcome(p), expected.decision, `${label}: ${show(p)}`);
            if (mode === 'plan') assert.equal(p.stdout + p.stderr, '', `${label}: plan mode is silent`);
            assert.equal(
              recordedCalls(repo).includes(`toolu_${label}`),
              expected.records,
              `${label}: ${expected.records ? 'recorded' : 'not recorded'}`,
            );
            assert.deepEqual(
              [readFileSync(repo.path('a.txt')), readFileSync(repo.path('nb.ipynb'))],
              files,
              `${label}: PreToolUse never writes the file`,
            );
          }),
        );
        if (mode === 'plan') {
          assert.deepEqual(fettleRefs(repo), [], 'plan mode records nothing');
          assert.deepEqual(toolUseFiles(repo), [], 'plan mode leaves no tool-use link');
        }
        checkInvariants(repo, before, { litter: 'none' });
      },
    );
  }
}

// Issue class "human review bypassed": a change Claude Code asked a person about must never be applied by the
// model. The person denies it at the prompt; the model then tries `fettle confirm` from its shell (CLAUDECODE=1),
// before and after the turn ends (Stop marks the change denied).
for (const [label, mode, review] of [
  ['FETTLE_REVIEW=human', 'acceptEdits', 'human'],
  ['default mode', 'default', 'model'],
] as const) {
  scenario(`${label}: a change the person denied cannot be applied from the agent's shell`, undefined, async () => {
    const repo = repoWith({ 'a.txt': OLD });
    const before = userState(repo);
    const env = { ...repo.env, FETTLE_REVIEW: review };
    const agent = { ...env, CLAUDECODE: '1' };
    const input = {
      session_id: 's',
      cwd: repo.dir,
      permission_mode: mode,
      tool_name: 'Write',
      tool_input: { file_path: repo.path('a.txt'), content: text(30, 'new') },
      tool_use_id: 'toolu_denied',
    };
    const pre = await spawnFettle(['hook'], {
      cwd: repo.dir,
      env,
      input: JSON.stringify({ ...input, hook_event_name: 'PreToolUse' }),
    });
    count('decisions');
    assert.equal(decisionOf(pre), 'ask', show(pre));
    const id = fettleRefs(repo)[0]?.ref.replace('refs/fettle/', '') ?? '';
    const confirmFromAgent = () => spawnFettle(['confirm', id, '--json'], { cwd: repo.dir, env: agent });
    const early = await confirmFromAgent();
    assert.equal(early.code, 1, show(early));
    assert.equal(JSON.parse(early.stdout).error.code, 'E_PERSON_REQUIRED');
    // The person denied it: the transcript holds the call's result; the turn ends.
    const transcript = join(repo.home, 'transcript.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', message: { content: [{ tool_use_id: 'toolu_denied', type: 'tool_result', is_error: true }] } })}\n`,
    );
    const stop = await spawnFettle(['hook'], {
      cwd: repo.dir,
      env,
      input: JSON.stringify({ session_id: 's', cwd: repo.dir, hook_event_name: 'Stop', transcript_path: transcript }),
    });
    assert.deepEqual([stop.code, stop.stdout, stop.stderr], [0, '', ''], show(stop));
    assert.deepEqual(
      fettleRefs(repo).map((r) => r.ref),
      [`refs/fettle-discarded/${id}`],
      'marked denied',
    );
    const late = await confirmFromAgent();
    assert.equal(late.code, 1, show(late));
    assert.equal(readFileSync(repo.path('a.txt'), 'utf8'), OLD, 'never applied');
    checkInvariants(repo, before, { litter: 'none' });
  });
}
