import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { shellQuote, shellWords } from '../../src/io/self';

/** How sh itself splits a line into words. */
const shSplit = (line: string): string[] =>
  execFileSync('sh', ['-c', `printf '%s\\0' ${line}`])
    .toString()
    .split('\0')
    .slice(0, -1);

const lines = [
  `'/usr/bin/node' '/opt/f/dist/cli.js' hook`,
  `'/usr/bin/node' '/opt/it'\\''s a dir/dist/cli.js' hook`,
  `node "/opt/with space/cli.js" hook`,
  `node "/a \\"quoted\\" \\$x"/tail plain\\ word`,
  `  leading   and trailing  `,
  `'' empty`,
];
for (const line of lines) {
  test(`shellWords splits as sh does: ${line}`, () => assert.deepEqual(shellWords(line), shSplit(line)));
}

const values = ['plain', "it's", 'a b', '$HOME', 'new\nline', '', 'ünï'];
for (const value of values) {
  test(`shellWords reads back what shellQuote wrote: ${JSON.stringify(value)}`, () =>
    assert.deepEqual(shellWords(`x ${shellQuote(value)}`), ['x', value]));
}
