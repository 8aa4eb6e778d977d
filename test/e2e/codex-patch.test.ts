// fettle's reading of Codex's apply_patch (src/core/codex-patch.ts) against Codex itself: the pinned binary,
// started as `apply_patch <patch>` (its multi-call entry), applies each patch in a directory of its own, and
// fettle's prediction from the same bytes must be those bytes exactly, or both must refuse the patch. The cases
// are the format's corners (line endings, fuzzy context, end of file, moves, adds over files, a BOM) and patches
// generated from random edits of random files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { applyPatch } from '../../src/core/codex-patch';
import { parsePatch } from '../../src/core/codex-patch-parse';
import { codexPath } from './codex/client';

type Files = Record<string, string>;
const P = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;

const CASES: [string, Files, string][] = [
  ['simple', { 'a.txt': 'one\ntwo\nthree\n' }, P('*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three')],
  ['crlf file', { 'a.txt': 'one\r\ntwo\r\nthree\r\n' }, P('*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three')],
  [
    'mixed endings',
    { 'a.txt': 'one\ntwo\r\nthree\nfour\r\n' },
    P('*** Update File: a.txt\n@@\n two\n-three\n+THREE\n+extra\n four'),
  ],
  ['first ending LF, then CRLF', { 'a.txt': 'a\nb\r\nc\r\n' }, P('*** Update File: a.txt\n@@\n b\n+x\n c')],
  ['no final newline, edited', { 'a.txt': 'one\ntwo' }, P('*** Update File: a.txt\n@@\n one\n-two\n+TWO')],
  ['no final newline, untouched', { 'a.txt': 'one\ntwo\nthree' }, P('*** Update File: a.txt\n@@\n-one\n+ONE\n two')],
  ['pure addition', { 'a.txt': 'one\ntwo\n' }, P('*** Update File: a.txt\n@@\n+three\n+four')],
  ['pure addition, no final newline', { 'a.txt': 'one\ntwo' }, P('*** Update File: a.txt\n@@\n+three')],
  [
    '@@ context line',
    { 'a.py': 'class A:\n    def f():\n        pass\nclass B:\n    def f():\n        pass\n' },
    P('*** Update File: a.py\n@@ class B:\n     def f():\n-        pass\n+        return 1'),
  ],
  [
    'two chunks',
    { 'a.txt': 'a\nb\nc\nd\ne\nf\ng\n' },
    P('*** Update File: a.txt\n@@\n a\n-b\n+B\n c\n@@\n e\n-f\n+F\n g'),
  ],
  [
    'trailing whitespace ignored',
    { 'a.txt': 'one  \ntwo\t\nthree\n' },
    P('*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three'),
  ],
  [
    'outer whitespace ignored',
    { 'a.txt': '    one\n    two\n' },
    P('*** Update File: a.txt\n@@\n one\n-two\n+    TWO'),
  ],
  [
    'typographic dash read as ASCII',
    { 'a.txt': 'a \u2014 b\nc\n' },
    P('*** Update File: a.txt\n@@\n-a - b\n+a -- b\n c'),
  ],
  ['end of file marker', { 'a.txt': 'x\ny\nx\ny\n' }, P('*** Update File: a.txt\n@@\n x\n-y\n+Y\n*** End of File')],
  [
    'end of file marker, no match at the end',
    { 'a.txt': 'x\ny\nz\n' },
    P('*** Update File: a.txt\n@@\n-x\n+X\n*** End of File'),
  ],
  ['add in a new directory', {}, P('*** Add File: new/dir/b.txt\n+hello\n+world')],
  ['add over a file', { 'b.txt': 'old\n' }, P('*** Add File: b.txt\n+new')],
  ['delete', { 'a.txt': 'x\n', 'k.txt': 'keep\n' }, P('*** Delete File: a.txt')],
  ['delete a missing file', { 'k.txt': 'keep\n' }, P('*** Delete File: a.txt')],
  [
    'move',
    { 'old/a.txt': 'one\ntwo\n' },
    P('*** Update File: old/a.txt\n*** Move to: new/b.txt\n@@\n-one\n+ONE\n two'),
  ],
  [
    'move over a file',
    { 'a.txt': 'one\n', 'b.txt': 'bee\n' },
    P('*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+uno'),
  ],
  [
    'several files',
    { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' },
    P('*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n*** Add File: d.txt\n+d'),
  ],
  ['lines not found', { 'a.txt': 'one\n' }, P('*** Update File: a.txt\n@@\n-two\n+TWO')],
  ['update of a missing file', {}, P('*** Update File: a.txt\n@@\n-two\n+TWO')],
  ['empty line inside a chunk', { 'a.txt': 'a\n\nb\n' }, P('*** Update File: a.txt\n@@\n a\n\n-b\n+B')],
  ['blank lines at the end', { 'a.txt': 'a\n\n\n' }, P('*** Update File: a.txt\n@@\n-a\n+A')],
  ['first chunk without @@', { 'a.txt': 'import foo\n' }, P('*** Update File: a.txt\n import foo\n+bar')],
  [
    'heredoc wrapper',
    { 'a.txt': 'x\n' },
    `<<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\nEOF\n`,
  ],
  [
    'padded markers',
    { 'a.txt': 'x\n' },
    '  *** Begin Patch  \n*** Update File: a.txt\n@@\n-x\n+y\n  *** End Patch  \n',
  ],
  [
    'a patch with CRLF lines',
    { 'a.txt': 'x\ny\n' },
    '*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-x\r\n+X\r\n y\r\n*** End Patch\r\n',
  ],
  [
    'a BOM the context does not hold',
    { 'a.txt': '\ufeffone\ntwo\n' },
    P('*** Update File: a.txt\n@@\n one\n-two\n+TWO'),
  ],
  ['removing the last line', { 'a.txt': 'a\nb\nc\n' }, P('*** Update File: a.txt\n@@\n a\n b\n-c')],
  ['removing every line', { 'a.txt': 'a\nb\n' }, P('*** Update File: a.txt\n@@\n-a\n-b')],
  ['@@ context not found', { 'a.txt': 'a\nb\n' }, P('*** Update File: a.txt\n@@ nothing here\n-a\n+A')],
  ['no operations', { 'a.txt': 'a\n' }, P('')],
  ['a trailing empty old line', { 'a.txt': 'a\nb\n' }, P('*** Update File: a.txt\n@@\n a\n-b\n+B\n')],
  ['added lines in a CRLF file', { 'a.txt': 'a\r\nb\r\n' }, P('*** Update File: a.txt\n@@\n a\n+x\n+y\n b')],
  ['a whitespace-only context line', { 'a.txt': 'a\n   \nb\n' }, P('*** Update File: a.txt\n@@\n a\n \n-b\n+B')],
  ['an invalid header', { 'a.txt': 'a\n' }, P('*** Frobnicate File: a.txt')],
];

/** A patch from an edit of `old` into `next` (lines replaced in one run), with 3 lines of context around it. */
const generated = (seed: number): [string, Files, string] => {
  let s = seed;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
  const words = ['alpha', 'beta', 'gamma', '  indented', '', 'x = 1;', '}', 'return y'];
  const eol = rand(3) === 0 ? '\r\n' : '\n';
  const count = 5 + rand(25);
  const old = Array.from({ length: count }, (_, i) => `${words[rand(words.length)]} ${i}`);
  const at = rand(count);
  const removed = Math.min(count - at, rand(4));
  const added = Array.from({ length: rand(4) }, (_, i) => `new ${seed}.${i}`);
  const before = old.slice(Math.max(0, at - 3), at);
  const after = old.slice(at + removed, at + removed + 3);
  const body = [
    '*** Update File: f.txt',
    '@@',
    ...before.map((l) => ` ${l}`),
    ...old.slice(at, at + removed).map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...after.map((l) => ` ${l}`),
  ];
  const text = old.join(eol) + (rand(4) === 0 ? '' : eol);
  return [`generated ${seed}`, { 'f.txt': text }, P(body.join('\n'))];
};

const snapshot = (dir: string): Files => {
  const out: Files = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path).isDirectory()) walk(path, r);
      else out[r] = readFileSync(path).toString('base64');
    }
  };
  walk(dir, '');
  return out;
};

const sorted = (f: Files | null) => f && Object.fromEntries(Object.entries(f).sort());

test('apply_patch: fettle predicts every file exactly as Codex writes it, or both refuse the patch', () => {
  const bin = mkdtempSync(join(tmpdir(), 'fettle-apply-patch-'));
  symlinkSync(codexPath(), join(bin, 'apply_patch'));
  const cases = [...CASES, ...Array.from({ length: 40 }, (_, n) => generated(n + 1))];
  const differ: string[] = [];
  for (const [name, files, text] of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'fettle-patch-case-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const codex = spawnSync(join(bin, 'apply_patch'), [text], { cwd: dir, encoding: 'utf8' });
    const real = codex.status === 0 ? snapshot(dir) : null;
    const parsed = parsePatch(text);
    let ours: Files | null = null;
    if (parsed.ok) {
      const applied = applyPatch(parsed.hunks, (p) =>
        files[p] === undefined ? null : Buffer.from(files[p] as string),
      );
      if (applied.ok) {
        ours = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
        for (const f of applied.files) {
          if (f.next === null) delete ours[f.path];
          else ours[f.path] = f.next.toString('base64');
        }
      }
    }
    if (JSON.stringify(sorted(real)) !== JSON.stringify(sorted(ours)))
      differ.push(
        `${name}: codex ${codex.status === 0 ? 'applied it' : `refused it (${codex.stderr.trim().split('\n')[0]})`}`,
      );
  }
  assert.deepEqual(differ, [], `${differ.length} of ${cases.length} cases differ`);
});
