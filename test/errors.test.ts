// How an unexpected failure is worded: an errno in plain words with the path it concerns (both ends of a rename
// or link), anything else as an internal error; a FettleError passes through as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FettleError, toFettleError } from '../src/errors';

const errno = (code: string, fields: Record<string, string>) =>
  Object.assign(new Error(`${code}: boom`), { code, ...fields });

// [what failed, code, message]
const cases: [string, unknown, string, string][] = [
  ['a read', errno('ENOENT', { path: '/r/a.txt' }), 'E_IO', 'no such file or directory (/r/a.txt)'],
  [
    'a link',
    errno('ENOTDIR', { path: '/g/tmp', dest: '/g/refs/x' }),
    'E_IO',
    'a parent is not a directory (/g/tmp -> /g/refs/x)',
  ],
  ['an unnamed errno', errno('EMFILE', { path: '/r' }), 'E_IO', 'EMFILE (/r)'],
  ['a bug', new TypeError('x is undefined'), 'E_INTERNAL', 'internal error: x is undefined'],
];

for (const [what, error, code, message] of cases)
  test(`${what} -> ${code}: ${message}`, () => {
    const e = toFettleError(error);
    assert.deepEqual([e.code, e.message], [code, message]);
    assert.equal(e.cause, error);
  });

test('a FettleError is reported as it is', () => {
  const e = new FettleError('E_CONFLICT', 'lost a race');
  assert.equal(toFettleError(e), e);
});
