// Cutting the kept processes' answers from their stdout: an answer is done only when all of it is in (a pipe
// hands it over in any number of chunks), and what follows it is left for the next request; HEAD's trees are
// kept only when the root one is HEAD's own tree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchAnswers, headAndLevels, transactionDone } from '../../src/store/kept-answers';

const B = (s: string) => Buffer.from(s, 'latin1');
const A = 'a'.repeat(40);
const T = 'b'.repeat(40);

test('cat-file answers: done at the end of the last one, else how many bytes are needed', () => {
  const cases: [number, boolean, string, { done: number } | { need: number }][] = [
    [1, true, `${A} blob 3\nab`, { need: 52 }],
    [1, true, `${A} blob 3\nabc\n`, { done: 52 }],
    [1, true, `${A} blob 3\nabc\nnext`, { done: 52 }],
    [2, true, `${A} blob 3\nabc\nx missing`, { need: 62 }],
    [2, true, `${A} blob 3\nabc\nx missing\n`, { done: 62 }],
    [1, false, `${A} blob 3`, { need: 48 }],
    [2, false, `${A} blob 3\n${A} tree 9\n`, { done: 96 }],
    [1, true, '', { need: 1 }],
  ];
  for (const [count, content, buf, want] of cases)
    assert.deepEqual(batchAnswers(count, content)(B(buf)), want, `${count} ${content} ${JSON.stringify(buf)}`);
});

test('a transaction is done at its "commit: ok" line, whatever came before it', () => {
  assert.deepEqual(transactionDone(B('start: ok\nprepare: ok\n')), { need: 23 });
  assert.deepEqual(transactionDone(B('start: ok\nprepare: ok\ncommit: ok\nrest')), { done: 33 });
});

test("HEAD's trees along a path are kept only when the root one is HEAD's tree", async () => {
  const commit = `tree ${T}\nauthor x\n`;
  const answer = (root: string) => async (specs: string[]) => {
    assert.deepEqual(specs, ['HEAD^{commit}', 'HEAD^{tree}:', 'HEAD^{tree}:src', 'HEAD^{tree}:src/lib']);
    return B(
      `${A} commit ${commit.length}\n${commit}\n${root} tree 0\n\n${'c'.repeat(40)} tree 0\n\nsrc/lib missing\n`,
    );
  };
  const kept = await headAndLevels(answer(T), ['src', 'lib']);
  assert.equal(kept.head, A);
  assert.deepEqual(
    [...(kept.read ?? [])].map(([spec, read]) => [spec, read?.type ?? null]),
    [
      [`${A}^{tree}:`, 'tree'],
      [`${A}^{tree}:src`, 'tree'],
      [`${A}^{tree}:src/lib`, null],
    ],
  );
  assert.deepEqual(await headAndLevels(answer('d'.repeat(40)), ['src', 'lib']), { head: A, read: undefined });
  const none = await headAndLevels(async () => B('HEAD^{commit} missing\nHEAD^{tree}: missing\n'), []);
  assert.deepEqual(none, { head: null, read: undefined });
});
