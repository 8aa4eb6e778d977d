// A session's state log, pure (src/core/session-log.ts): its lines, the tail a bounded log keeps, and the
// questions state conditions ask of it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addedLines,
  COMMAND_CHARS,
  entryLine,
  hasRead,
  keptTail,
  parseEntries,
  ranSinceWrite,
  type SessionEntry,
} from '../../src/core/session-log';

test('entries round-trip through their lines; a torn or foreign line is skipped; a long command is cut', () => {
  const lines = [entryLine({ t: 'Read', p: 'a.md' }), '{"t":"Ba', '[1]', entryLine({ t: 'Bash', c: 'x'.repeat(5000) })];
  const entries = parseEntries(`${lines.join('\n')}\n`);
  assert.deepEqual(entries[0], { t: 'Read', p: 'a.md' });
  assert.equal(entries.length, 2);
  assert.equal(entries[1]?.c?.length, COMMAND_CHARS);
});

// [text, bytes, what is kept]
const tails: [string, number, string][] = [
  ['a\nb\nc\n', 100, 'a\nb\nc\n'], // within the bound: whole
  ['aaa\nbbb\nccc\n', 6, 'ccc\n'], // whole lines only
  ['aaaaaaaa\n', 4, ''], // no whole line fits
];
for (const [text, bytes, kept] of tails) {
  test(`keptTail(${JSON.stringify(text)}, ${bytes}) keeps ${JSON.stringify(kept)}`, () => {
    assert.equal(keptTail(text, bytes), kept);
  });
}

const LOG: SessionEntry[] = [
  { t: 'Read', p: 'docs/schema.md' },
  { t: 'Read', p: '/etc/hosts' },
  { t: 'Bash', c: 'npm test' },
  { t: 'Write', p: 'src/a.ts', w: 1 },
  { t: 'Bash', c: 'npm run lint' },
];

// [question, answer]
const questions: [() => boolean, boolean][] = [
  [() => hasRead(LOG, /^docs\/schema\.md$/), true],
  [() => hasRead(LOG, /^docs\/other\.md$/), false],
  [() => hasRead(LOG, /^etc\/hosts$/), true], // an absolute path is matched without its leading '/'
  [() => ranSinceWrite(LOG, /npm run lint/), true],
  [() => ranSinceWrite(LOG, /npm test/), false], // ran, but before the last write
  [() => ranSinceWrite(LOG.slice(0, 3), /npm test/), true], // no write yet: ever
  [() => ranSinceWrite([], /npm test/), false],
];
for (const [n, [ask, answer]] of questions.entries()) {
  test(`state question ${n + 1}: ${ask.toString().slice(6)} is ${answer}`, () => {
    assert.equal(ask(), answer);
  });
}

// [old, next, the added lines]
const added: [string, string, string][] = [
  ['a\nb\n', 'a\nX\nb\n', 'X'],
  ['a\na\n', 'a\na\na\n', 'a'], // a third copy is added
  ['a\nb\n', 'b\na\n', ''], // moved, not added
  ['', 'x\ny', 'x\ny'],
];
for (const [old, next, lines] of added) {
  test(`addedLines(${JSON.stringify(old)}, ${JSON.stringify(next)}) is ${JSON.stringify(lines)}`, () => {
    assert.equal(addedLines(old, next), lines);
  });
}
