// A policy `run` rule's command, pure (src/core/policy-run.ts): `{file}` replaced (quoted for the shell in a
// command line, as is in an argv), how it is shown, and what the agent reads of a failure: the end of its output.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  failureText,
  invocationsFor,
  invocationText,
  runInvocation,
  TAIL_CHARS,
  TAIL_LINES,
  tailOf,
} from '../../src/core/policy-run';

// [the rule's command, the path written, what runs, as shown]
const invocations: [string | string[], string, unknown, string][] = [
  ['npm test -- {file}', 'src/a.ts', { shell: 'npm test -- src/a.ts' }, 'npm test -- src/a.ts'],
  ['lint {file} && x {file}', "it's a.ts", { shell: "lint 'it'\\''s a.ts' && x 'it'\\''s a.ts'" }, ''],
  [
    ['eslint', '--fix-dry-run', '{file}'],
    'a b.ts',
    { argv: ['eslint', '--fix-dry-run', 'a b.ts'] },
    "eslint --fix-dry-run 'a b.ts'",
  ],
  [['sh', '-c', 'cat {file}'], 'x;y', { argv: ['sh', '-c', 'cat x;y'] }, "sh -c 'cat x;y'"],
  ['make check', 'a', { shell: 'make check' }, 'make check'],
];

for (const [command, file, runs, shown] of invocations)
  test(`run ${JSON.stringify(command)} on ${file}`, () => {
    const run = runInvocation({ command }, file);
    assert.deepEqual(run, runs);
    if (shown) assert.equal(invocationText(run), shown);
  });

// [the rule's command, the paths of a set it matches, what runs, as shown]: `{file}` once per path, else once
const sets: [string | string[], string[], string[]][] = [
  ['check {file}', ['a', 'b'], ['check a', 'check b']],
  [
    ['lint', '--x={file}'],
    ['a', 'b c'],
    ['lint --x=a', "lint '--x=b c'"],
  ],
  ['make check', ['a', 'b'], ['make check']],
  [['make', 'check'], ['a', 'b'], ['make check']],
];

for (const [command, paths, shown] of sets)
  test(`run ${JSON.stringify(command)} on the set ${paths.join(', ')}`, () => {
    assert.deepEqual(invocationsFor({ command }, paths).map(invocationText), shown);
  });

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `out ${i + 1}`).join('\n');

test('the output shown is its end: TAIL_LINES lines at most, TAIL_CHARS characters at most', () => {
  assert.deepEqual(tailOf(''), { text: '', cutLines: 0 });
  assert.deepEqual(tailOf('one\ntwo\n\n'), { text: 'one\ntwo', cutLines: 0 });
  const long = tailOf(numbered(100));
  assert.equal(long.cutLines, 100 - TAIL_LINES);
  assert.equal(long.text, numbered(100).split('\n').slice(-TAIL_LINES).join('\n'));
  const wide = tailOf(`${'x'.repeat(300)}\n`.repeat(30));
  assert.ok(wide.text.length <= TAIL_CHARS, `${wide.text.length}`);
  assert.equal(wide.cutLines, 30 - wide.text.split('\n').length);
  const one = tailOf('y'.repeat(TAIL_CHARS * 2));
  assert.equal(one.text, `…${'y'.repeat(TAIL_CHARS)}`);
});

test('a failure says the rule, the command, how it ended and the end of what it printed', () => {
  const base = { rule: 'types (".ts" in p)', command: 'tsc', timeoutSeconds: 9 };
  assert.equal(
    failureText({ ...base, outcome: { code: 2, output: 'a.ts(1,1): error\n' } }),
    'Policy rule types (".ts" in p) ran `tsc` on the files as this write would leave them, and it failed (exit 2). Its output:\na.ts(1,1): error',
  );
  assert.match(
    failureText({ ...base, outcome: { code: 143, signal: 'SIGTERM', timedOut: true, output: '' } }),
    /and it did not finish within 9 s \(the rule's timeoutSeconds\) and was stopped\. It printed nothing\.$/,
  );
  assert.match(
    failureText({ ...base, outcome: { code: 127, error: 'command not found', output: '' } }),
    /and it could not run \(command not found\)\./,
  );
  assert.match(
    failureText({ ...base, outcome: { code: 1, output: numbered(50) } }),
    /Its output \(its last lines; 10 before them not shown\):\nout 11\n/,
  );
});
