// core/codex-patch.ts: the apply_patch format as Codex 0.169 applies it (its parser: codex-patch-parse.test.ts).
// The real-client suite checks the same applier against Codex's own binary (test/e2e/codex-patch.test.ts); these
// pin the rules one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyChunks, applyPatch, seekSequence } from '../../src/core/codex-patch';
import { parsePatch } from '../../src/core/codex-patch-parse';

const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

// [label, lines, pattern, start, eof, found]
const SEEK: [string, string[], string[], number, boolean, number | undefined][] = [
  ['exact', ['a', 'b', 'c'], ['b', 'c'], 0, false, 1],
  ['trailing whitespace ignored', ['a  ', 'b\t'], ['a', 'b'], 0, false, 0],
  ['outer whitespace ignored', ['  a ', ' b'], ['a', 'b'], 0, false, 0],
  ['typographic quotes read as ASCII', ['say \u201chi\u201d'], ['say "hi"'], 0, false, 0],
  ['from start on', ['a', 'b', 'a'], ['a'], 1, false, 2],
  ['at the end first, for the end of file', ['x', 'y', 'x', 'y'], ['x', 'y'], 0, true, 2],
  ['longer than the file', ['a'], ['a', 'b'], 0, false, undefined],
  ['not there', ['a'], ['b'], 0, false, undefined],
];
for (const [label, lines, pattern, start, eof, found] of SEEK)
  test(`seekSequence: ${label}`, () => assert.equal(seekSequence(lines, pattern, start, eof), found));

// [label, file, chunk body, result]
const APPLY: [string, string, string, string][] = [
  ['an unchanged line keeps its own ending', 'a\r\nb\nc\n', '@@\n a\n-b\n+B', 'a\r\nB\r\nc\n'],
  ['a final line gets an ending', 'a\nb', '@@\n-a\n+A', 'A\nb\n'],
  ['a pure addition goes at the end', 'a\nb\n', '@@\n+c', 'a\nb\nc\n'],
  ['a trailing empty line matches the end of the file', 'a\nb\n', '@@\n a\n-b\n+B\n', 'a\nB\n'],
];
for (const [label, file, body, result] of APPLY)
  test(`applyChunks: ${label}`, () => {
    const parsed = parsePatch(P(`*** Update File: f\n${body}`));
    assert.ok(parsed.ok && parsed.hunks[0]?.op === 'update');
    const chunks = parsed.ok && parsed.hunks[0]?.op === 'update' ? parsed.hunks[0].chunks : [];
    assert.deepEqual(applyChunks(file, chunks), { ok: true, text: result });
  });

test('applyPatch: a file that is not UTF-8 makes the patch fail, as it does in Codex; a file named twice is unsure', () => {
  const update = parsePatch(P('*** Update File: f\n@@\n-a\n+b'));
  assert.ok(update.ok);
  if (update.ok)
    assert.deepEqual(
      applyPatch(update.hunks, () => Buffer.from([0xff, 0x0a])),
      { ok: false, why: 'f is not UTF-8 text' },
    );
  const twice = parsePatch(P('*** Update File: f\n@@\n-a\n+b\n*** Delete File: f'));
  assert.ok(twice.ok);
  if (twice.ok) assert.equal(applyPatch(twice.hunks, () => Buffer.from('a\n')).ok, false);
  if (twice.ok) assert.equal((applyPatch(twice.hunks, () => Buffer.from('a\n')) as { unsure?: boolean }).unsure, true);
});

test('applyPatch: a move removes the source and writes the destination', () => {
  const parsed = parsePatch(P('*** Update File: a\n*** Move to: b\n@@\n-x\n+y'));
  assert.ok(parsed.ok);
  if (parsed.ok)
    assert.deepEqual(
      applyPatch(parsed.hunks, (p) => (p === 'a' ? Buffer.from('x\n') : null)),
      {
        ok: true,
        files: [
          { path: 'a', next: null },
          { path: 'b', next: Buffer.from('y\n') },
        ],
      },
    );
});
