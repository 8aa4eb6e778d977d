import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claudeForkArgs, claudeForkPoint, samePrompt } from '../../src/core/claude-transcript';

const S = 'sess-1';
const V = '2.1.330';
type Rec = Record<string, unknown>;

// The shapes fettle relies on, as Claude Code 2.1.330 writes them (trimmed to the fields read).
const prompt = (uuid: string, parent: string | null, content: unknown, extra: Rec = {}): Rec => ({
  type: 'user',
  uuid,
  parentUuid: parent,
  isSidechain: false,
  sessionId: S,
  version: V,
  cwd: '/w',
  message: { role: 'user', content },
  ...extra,
});
const answer = (uuid: string, parent: string): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid: parent,
  sessionId: S,
  version: V,
  message: { role: 'assistant', content: [] },
});
const result = (uuid: string, parent: string): Rec =>
  prompt(uuid, parent, [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }]);
const hookNote = (uuid: string, parent: string): Rec => ({
  type: 'system',
  subtype: 'stop_hook_summary',
  uuid,
  parentUuid: parent,
  version: V,
});
const other: Rec = { type: 'last-prompt', lastPrompt: 'x', sessionId: S };

const THREE = [
  other,
  prompt('p1', null, 'one'),
  answer('a1', 'p1'),
  result('r1', 'a1'),
  answer('a2', 'r1'),
  hookNote('h1', 'a2'),
  prompt('p2', 'h1', 'two'),
  answer('a3', 'p2'),
  prompt('p3', 'a3', [{ type: 'text', text: 'three' }]),
  answer('a4', 'p3'),
];
const KEPT = new Map([
  [1, 'one'],
  [2, 'two'],
  [3, 'three'],
]);
const jsonl = (recs: unknown[]) => `${recs.map((r) => JSON.stringify(r)).join('\n')}\n`;
const at = (recs: unknown[], turn: number, kept: Map<number, string> = KEPT) =>
  claudeForkPoint(jsonl(recs), S, turn, kept);

// where each turn began: the last message before its prompt (a hook's note skipped), and the prompt
const FOUND: [number, string | null, string][] = [
  [1, null, 'one'],
  [2, 'a2', 'two'],
  [3, 'a3', 'three'],
];
for (const [turn, resumeAt, said] of FOUND)
  test(`turn ${turn} began after ${resumeAt}`, () =>
    assert.deepEqual(at(THREE, turn), { ok: true, prompt: said, resumeAt, cwd: '/w', version: V }));

const withVersion = (v: unknown) => THREE.map((r) => ('version' in r ? { ...r, version: v } : r));
const REFUSED: [string, string, () => ReturnType<typeof claudeForkPoint>][] = [
  ['an older client', 'Claude Code 2.1.200', () => at(withVersion('2.1.200'), 2)],
  ['the next minor', 'Claude Code 2.2.0', () => at(withVersion('2.2.0'), 2)],
  ['no version', 'names no client version', () => at(withVersion(undefined), 2)],
  [
    'a compacted conversation',
    'compacted',
    () => at([...THREE, { ...hookNote('c', 'a4'), subtype: 'compact_boundary' }], 2),
  ],
  [
    'a summary in its place',
    'compacted',
    () => at([...THREE, prompt('c', 'a4', 'sum', { isCompactSummary: true })], 2),
  ],
  ['a prompt fettle did not keep', 'kept no prompt for turn 2', () => at(THREE, 2, new Map([[1, 'one']]))],
  [
    'a prompt the transcript lacks',
    'no prompt matching the one fettle counted as turn 2',
    () => at(THREE, 2, new Map([[2, 'else']])),
  ],
  [
    'turns out of order',
    'turn 2',
    () =>
      at(
        THREE,
        2,
        new Map([
          [1, 'three'],
          [2, 'two'],
        ]),
      ),
  ],
  [
    'a broken chain',
    'do not chain',
    () =>
      at(
        THREE.map((r) => (r.uuid === 'h1' ? { ...r, uuid: 'hx' } : r)),
        2,
      ),
  ],
  ['another session', 'another session', () => claudeForkPoint(jsonl(THREE), 'sess-2', 2, KEPT)],
  [
    'a line that is not JSON',
    'line 2',
    () => claudeForkPoint(`${JSON.stringify(other)}\n{oops\n${jsonl(THREE)}`, S, 2, KEPT),
  ],
  ['no conversation', 'holds no conversation', () => at([other], 1)],
  [
    'a prompt without cwd',
    'no working directory',
    () =>
      at(
        THREE.map((r) => (r.uuid === 'p2' ? { ...r, cwd: 3 } : r)),
        2,
      ),
  ],
];
for (const [what, why, run] of REFUSED)
  test(`refused: ${what}`, () => {
    const r = run();
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.why.includes(why), JSON.stringify(r));
  });

test('a torn last line is the client still writing: left out', () =>
  assert.equal(claudeForkPoint(`${jsonl(THREE)}{"type":"assist`, S, 3, KEPT).ok, true));

test('tool results, meta records and side chains are not prompts', () => {
  const recs = [
    prompt('p1', null, 'one'),
    prompt('m', 'p1', 'two', { isMeta: true }),
    prompt('s', 'm', 'two', { isSidechain: true }),
    result('r', 's'),
    prompt('p2', 'r', 'two'),
  ];
  assert.deepEqual(at(recs, 2), { ok: true, prompt: 'two', resumeAt: 'r', cwd: '/w', version: V });
});

const SAME: [string, string, boolean][] = [
  ['two', 'two', true],
  ['two', 'two!', false],
  ['tw…', 'two and more', true],
  ['…', 'x', false],
];
for (const [kept, said, same] of SAME)
  test(`kept ${kept} is ${said}: ${same}`, () => assert.equal(samePrompt(kept, said), same));

test('the fork continues with the client own flags, or starts afresh for the first turn', () => {
  assert.deepEqual(claudeForkArgs(S, 'f', { resumeAt: 'a2', prompt: 'two' }), [
    'claude',
    '--resume',
    S,
    '--fork-session',
    '--session-id',
    'f',
    '--resume-session-at',
    'a2',
    '-p',
    'two',
  ]);
  assert.deepEqual(claudeForkArgs(S, 'f', { resumeAt: null, prompt: 'one' }), [
    'claude',
    '--session-id',
    'f',
    '-p',
    'one',
  ]);
});
