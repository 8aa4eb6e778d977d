// A commit's attribution as an Agent Trace record (core/agent-trace.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { traceRecord } from '../../src/core/agent-trace';
import type { AgentOrigin } from '../../src/core/attribution';

const origin = (agent: string, session: string | undefined, change: string, turn?: number): AgentOrigin => ({
  agent,
  session,
  change,
  turn,
  tool: 'Edit',
});

test('one conversation per agent session and file, its lines as ranges; the rest under dev.fettle in the same order', () => {
  const a = origin('claude', 's 1', 'c1', 2);
  const b = origin('claude', 's 1', 'c2', 3);
  const x = origin('codex', undefined, 'x1');
  const record = traceRecord({
    revision: 'f'.repeat(40),
    timestamp: '2026-01-01T00:00:00.000Z',
    attribution: new Map([
      [
        'b.ts',
        new Map([
          [1, a],
          [2, a],
          [3, b],
          [7, x],
          [9, a],
        ]),
      ],
      ['a.ts', new Map()],
    ]),
    fettleVersion: '9.9.9',
  });
  assert.deepEqual(record.files, [
    {
      path: 'b.ts',
      conversations: [
        {
          contributor: { type: 'ai' },
          ranges: [
            { start_line: 1, end_line: 3 },
            { start_line: 9, end_line: 9 },
          ],
          related: [{ type: 'session', url: 'urn:fettle:session:claude:s%201' }],
        },
        { contributor: { type: 'ai' }, ranges: [{ start_line: 7, end_line: 7 }] },
      ],
    },
  ]);
  assert.deepEqual(record.metadata, {
    'dev.fettle': {
      files: [
        {
          path: 'b.ts',
          conversations: [
            { agent: 'claude', session: 's 1', turns: [2, 3], tools: ['Edit'], changes: ['c1', 'c2'] },
            { agent: 'codex', session: null, turns: [], tools: ['Edit'], changes: ['x1'] },
          ],
        },
      ],
    },
  });
  assert.deepEqual([record.version, record.tool], ['0.1.0', { name: 'fettle', version: '9.9.9' }]);
});

// [revision, another revision]: the id is a UUID derived from the revision alone
const ids: [string, string][] = [
  ['a'.repeat(40), 'b'.repeat(40)],
  ['0'.repeat(64), '1'.repeat(64)],
];
for (const [one, two] of ids)
  test(`the record's id for ${one.slice(0, 8)}… is a stable UUID of its own`, () => {
    const id = (revision: string) =>
      traceRecord({ revision, timestamp: '', attribution: new Map(), fettleVersion: '' }).id;
    assert.match(id(one), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(id(one), id(one));
    assert.notEqual(id(one), id(two));
  });
