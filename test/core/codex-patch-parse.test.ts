// core/codex-patch-parse.ts: the apply_patch format as Codex 0.169 parses it, and what it refuses with Codex's
// own reason. The real-client suite checks the parser against Codex's own binary (test/e2e/codex-patch.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { touchedPaths } from '../../src/core/codex-patch';
import { parsePatch, rustTrim } from '../../src/core/codex-patch-parse';

const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

test('parsePatch reads every operation, with a move and an @@ context line', () => {
  const parsed = parsePatch(
    P(
      '*** Add File: n.txt\n+one\n+two\n*** Delete File: d.txt\n*** Update File: u.txt\n*** Move to: v.txt\n@@ def f():\n-    pass\n+    return 1\n keep',
    ),
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.hunks[0], { op: 'add', path: 'n.txt', contents: 'one\ntwo\n' });
  assert.deepEqual(parsed.hunks[1], { op: 'delete', path: 'd.txt' });
  assert.deepEqual(parsed.hunks[2], {
    op: 'update',
    path: 'u.txt',
    moveTo: 'v.txt',
    chunks: [
      {
        context: 'def f():',
        oldLines: ['    pass', 'keep'],
        newLines: ['    return 1', 'keep'],
        contextAt: [[1, 1]],
        endOfFile: false,
      },
    ],
  });
  assert.deepEqual(touchedPaths(parsed.hunks), ['n.txt', 'd.txt', 'u.txt', 'v.txt']);
});

// [label, patch, why it is refused]
const REFUSED: [string, string, RegExp][] = [
  ['no begin marker', '*** Update File: a\n@@\n-a\n*** End Patch', /Begin Patch/],
  ['no end marker', '*** Begin Patch\n*** Update File: a\n@@\n-a', /End Patch/],
  ['an unknown header', P('*** Rename File: a'), /not a valid hunk header/],
  ['an empty update', P('*** Update File: a'), /is empty/],
  [
    'a second chunk without @@',
    P('*** Update File: a\n@@\n-a\n+b\n*** End of File\n-c'),
    /not a valid hunk header|Expected update hunk/,
  ],
  ['a bad line in a chunk', P('*** Update File: a\n@@\nxyz'), /Unexpected line/],
];
for (const [label, patch, why] of REFUSED)
  test(`parsePatch refuses ${label}`, () => {
    const parsed = parsePatch(patch);
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.why, why);
  });

test('markers may be padded with whitespace, and a heredoc may wrap the patch', () => {
  assert.ok(parsePatch('  *** Begin Patch  \n*** Add File: a\n+x\n *** End Patch ').ok);
  assert.ok(parsePatch("<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF").ok);
});

test("rustTrim trims what Rust's str::trim does: not a BOM, but U+0085", () => {
  assert.equal(rustTrim('\ufeff x \u0085'), '\ufeff x');
  assert.equal(rustTrim('\u3000x\u00a0'), 'x');
});
