import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import {
  parseRecord,
  RECORD_PARSE_VERSION,
  renderRecord,
  stat,
  type RecordFields,
  type RecordKind,
} from '../../src/core/record-message';

const full: RecordFields = {
  id: 'a1b2c3d4',
  kind: 'after',
  tier: 'direct',
  path: 'src/app.ts',
  file: '/home/u/project/src/app.ts',
  session: 'session-1',
  toolUse: 'toolu_01',
  tool: 'Write',
  agent: 'codex',
  added: 3,
  removed: 2,
  reason: 'small',
  time: 1_700_000_000_123,
  seq: 7,
  turn: 2,
};

const minimal = (over: Partial<RecordFields>): RecordFields => ({
  id: 'a1b2c3d4',
  kind: 'proposal',
  tier: 'staged',
  path: 'f.txt',
  file: '/r/f.txt',
  session: undefined,
  toolUse: undefined,
  tool: undefined,
  agent: undefined,
  added: undefined,
  removed: undefined,
  reason: undefined,
  ...over,
});

test('renderRecord/parseRecord round-trip every field', () => assert.deepEqual(parseRecord(renderRecord(full)), full));
test('round trip without optional fields', () => assert.deepEqual(parseRecord(renderRecord(minimal({}))), minimal({})));

test('the agent trailer comes right after the tool trailer', () => {
  const message = renderRecord(full);
  assert.match(message, /^Fettle-Tool: Write\nFettle-Agent: codex\n/m);
});

test('the changeset and superseded-by trailers round-trip, and are written as git trailers', () => {
  const fields = minimal({ kind: 'discarded', changeset: 'k3j4h5g6', supersededBy: 'z9y8x7w6' });
  const message = renderRecord(fields);
  assert.match(message, /^Fettle-Changeset: k3j4h5g6$/m);
  assert.match(message, /^Fettle-Superseded-By: z9y8x7w6$/m);
  assert.deepEqual(parseRecord(message), fields);
  const git = execFileSync('git', ['interpret-trailers', '--parse'], { input: message }).toString();
  assert.match(git, /^Fettle-Changeset: k3j4h5g6$/m);
});

for (const [value, kept] of [
  ['k3j4h5g6', true],
  ['K3J4H5G6', false],
  ['k3j4h5g', false],
  ['k3j4h5g67', false],
  ['../x', false],
] as const) {
  test(`a Fettle-Changeset of '${value}' is ${kept ? 'read' : 'ignored'}`, () => {
    const message = renderRecord(minimal({})).replace('Fettle-Id:', `Fettle-Changeset: ${value}\nFettle-Id:`);
    assert.equal(parseRecord(message)?.changeset, kept ? value : undefined);
  });
}

// one line each: [label, path]
const paths: [string, string][] = [
  ['a path with a newline and a quote', 'dir/a\nb"c.txt'],
  ['a path with a double quote', 'say "hi".txt'],
  ['a path with a backslash', 'win\\style.txt'],
  ['a path with a carriage return', 'a\rb.txt'],
  ['a path with leading and trailing spaces', '  spaced .txt '],
  ['a path that looks like JSON', '"quoted"'],
  ['a unicode path', 'données/日本語 😀.md'],
  ['a path with a colon and spaces', 'a: b.txt'],
];

for (const [label, path] of paths) {
  test(`round trip: ${label}`, () => {
    const fields = minimal({ path, file: `/home/user/${path}` });
    const parsed = parseRecord(renderRecord(fields));
    assert.equal(parsed?.path, path);
    assert.equal(parsed?.file, `/home/user/${path}`);
  });
}

test('a path cannot inject trailers into the message', () => {
  const fields = minimal({ path: 'x\nFettle-Session: spoofed' });
  const message = renderRecord(fields);
  assert.equal(parseRecord(message)?.session, undefined);
  assert.equal(message.split('\n')[1], '', 'the subject is a single line');
});

test('the message reads as a git commit: subject, blank line, sentence, blank line, trailers', () => {
  const message = renderRecord(full);
  const [subject, blank, sentence, blank2, ...rest] = message.split('\n');
  assert.equal(subject, 'fettle: write src/app.ts (+3 -2)');
  assert.equal(blank, '');
  assert.match(sentence ?? '', /^[A-Z].*\.$/);
  assert.equal(blank2, '');
  assert.ok(rest.filter(Boolean).every((l) => /^Fettle-[A-Za-z-]+: /.test(l)));
  assert.ok(message.endsWith('\n'));
});

// [kind, subject verb]
const subjects: [RecordKind, string][] = [
  ['before', 'fettle: before f.txt'],
  ['after', 'fettle: write f.txt (+1 -2)'],
  ['proposal', 'fettle: stage f.txt (+1 -2)'],
  ['applied', 'fettle: apply f.txt (+1 -2)'],
  ['discarded', 'fettle: discard f.txt (+1 -2)'],
  ['snapshot', 'fettle: snapshot f.txt (+1 -2)'],
];

for (const [kind, subject] of subjects) {
  test(`subject of a '${kind}' record: ${subject}`, () => {
    const message = renderRecord(minimal({ kind, added: 1, removed: 2 }));
    assert.equal(message.split('\n')[0], subject);
    assert.equal(parseRecord(message)?.kind, kind);
  });
}

test('no counts: no "(+n -m)" in the subject and no Fettle-Stat', () => {
  const message = renderRecord(minimal({ kind: 'after', reason: 'binary' }));
  assert.equal(message.split('\n')[0], 'fettle: write f.txt');
  assert.doesNotMatch(message, /Fettle-Stat/);
});

test('a note goes in the body, before the trailers', () => {
  const message = renderRecord({ ...minimal({ kind: 'applied' }), note: 'Merged with edits made on disk.' });
  assert.ok(message.indexOf('Merged with edits') > 0, 'the note is in the message');
  assert.ok(message.indexOf('Merged with edits') < message.indexOf('Fettle-Id:'));
  assert.equal(parseRecord(message)?.kind, 'applied');
});

test('the agent trailer follows Fettle-Tool and round-trips', () => {
  const fields = minimal({ kind: 'after', tool: 'fettle_write', agent: 'codex' });
  const message = renderRecord(fields);
  assert.match(message, /^Fettle-Tool: fettle_write\nFettle-Agent: codex$/m);
  assert.deepEqual(parseRecord(message), fields);
});

test('git reads the Fettle-* lines as trailers', () => {
  const out = execFileSync('git', ['interpret-trailers', '--parse'], { input: renderRecord(full) }).toString();
  assert.match(out, /^Fettle-Id: a1b2c3d4$/m);
  assert.match(out, /^Fettle-Tool-Use: toolu_01$/m);
  assert.match(out, /^Fettle-Stat: \+3 -2$/m);
});

// [label, message]
const notRecords: [string, string][] = [
  ['an ordinary commit', 'fix: something\n\nbody\n'],
  ['no id', 'fettle: write f\n\nFettle-Kind: after\nFettle-Path: f\n'],
  ['no path', 'fettle: write f\n\nFettle-Id: a1b2c3d4\nFettle-Kind: after\n'],
  ['an unknown kind', 'x\n\nFettle-Id: a1b2c3d4\nFettle-Kind: exploded\nFettle-Path: f\n'],
];

for (const [label, message] of notRecords) {
  test(`parseRecord(${label}) = null`, () => assert.equal(parseRecord(message), null));
}

test('parseRecord rejects a kind inherited from Object.prototype', () =>
  assert.equal(parseRecord('x\n\nFettle-Id: a1b2c3d4\nFettle-Kind: toString\nFettle-Path: f\n'), null));

test('stat formats counts', () => {
  assert.equal(stat(4, 0), '+4 -0');
  assert.equal(stat(undefined, 3), '');
  assert.equal(stat(1), '+1 -0');
});

test('a staged change for a person round-trips its Fettle-Review trailer', () => {
  const asked = minimal({ review: 'person' });
  assert.match(renderRecord(asked), /^Fettle-Review: person$/m);
  assert.deepEqual(parseRecord(renderRecord(asked)), asked);
});

test('a split and a decision about some hunks round-trip; a malformed one is dropped', () => {
  const f: RecordFields = {
    id: 'abcd1234',
    kind: 'proposal',
    tier: 'staged',
    path: 'a.ts',
    file: '/r/a.ts',
    splitFrom: 'wxyz6789',
    hunks: '1,3 of 3',
  };
  const back = parseRecord(renderRecord(f));
  assert.equal(back?.splitFrom, 'wxyz6789');
  assert.equal(back?.hunks, '1,3 of 3');
  const bad = renderRecord({ ...f, hunks: 'all', splitFrom: 'NOT-AN-ID' });
  assert.equal(parseRecord(bad)?.hunks, undefined);
  assert.equal(parseRecord(bad)?.splitFrom, undefined);
});

// What parseRecord makes of a record with every trailer, pinned with RECORD_PARSE_VERSION: status and log keep parsed
// records by commit id under that number (protocol/tip-cache.ts), so a parse that reads something new or differently
// must bump it, or they show what an older parse made of old records.
test('the parse of a record with every trailer is pinned to RECORD_PARSE_VERSION', () => {
  const every: RecordFields = {
    ...full,
    kind: 'applied',
    tier: 'staged',
    command: 'npm test',
    changeset: 'k3j4h5g6',
    reverts: 'b1c2d3e4 c2d3e4f5',
    supersededBy: 'z9y8x7w6',
    review: 'person',
    decidedBy: 'person',
    contract: `sha256:${'a'.repeat(64)}`,
    contractPath: 'plan.md',
    checks: 'passed',
    splitFrom: 'd3e4f5a6',
    hunks: '1,3 of 3',
    attempt: 'confirm',
    of: 'a1b2c3d4 b2c3d4e5',
    code: 'E_CONFLICT',
  };
  const parsed = parseRecord(renderRecord(every));
  assert.deepEqual(parsed, every);
  assert.deepEqual(
    [
      RECORD_PARSE_VERSION,
      Object.keys(parsed ?? {})
        .sort()
        .join(' '),
    ],
    [
      2,
      'added agent attempt changeset checks code command contract contractPath decidedBy file hunks id kind of path reason removed reverts review seq session splitFrom supersededBy tier time tool toolUse turn',
    ],
  );
});
