// The glob semantics of policy rules and contract scopes (src/core/glob.ts), one case a line: pattern, path,
// whether it matches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileGlob, matchesGlob } from '../../src/core/glob';

const cases: [string, string, boolean][] = [
  // * stays within a segment; dotfiles are matched like any name
  ['*.json', 'package.json', true],
  ['*.json', 'config/app.json', true], // no '/': any depth
  ['*.json', '.eslintrc.json', true],
  ['*.json', 'a.json.bak', false],
  ['src/*.ts', 'src/a.ts', true],
  ['src/*.ts', 'src/lib/a.ts', false], // '*' never crosses '/'
  ['src/*.ts', 'other/src/a.ts', false], // a '/' inside anchors it
  ['*', 'a/b/c', true], // the name at any depth
  // ** as a whole segment
  ['migrations/**', 'migrations/001.sql', true],
  ['migrations/**', 'migrations/2024/001.sql', true],
  ['migrations/**', 'db/migrations/001.sql', false],
  ['migrations/**', 'migrations', false], // everything under it, not itself
  ['**/migrations/**', 'db/migrations/001.sql', true],
  ['**/migrations/**', 'migrations/001.sql', true], // zero segments
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['a/**/b', 'a/x/y/c', false],
  ['**/*.lock', 'yarn.lock', true],
  ['**', 'any/thing', true],
  ['a**b', 'axxb', true], // not a whole segment: as '*'
  ['a**b', 'ax/xb', false],
  // ?, classes, escapes
  ['?.txt', 'a.txt', true],
  ['?.txt', 'ab.txt', false],
  ['a?b', 'a/b', false], // '?' is never '/'
  ['[Rr]eadme.md', 'README.md', false],
  ['[Rr]eadme.md', 'readme.md', true],
  ['[Rr]eadme.md', 'Readme.md', true],
  ['[!a-c]x', 'dx', true],
  ['[!a-c]x', 'bx', false],
  ['[^a-c]x', 'bx', false],
  ['a[!-~]b', 'a/b', false], // a class never matches '/', even one whose range spans it
  ['[]]x', ']x', true],
  ['\\*.txt', '*.txt', true],
  ['\\*.txt', 'a.txt', false],
  // anchoring
  ['.env*', '.env', true],
  ['.env*', '.env.local', true],
  ['.env*', 'config/.env.production', true],
  ['/.env*', 'config/.env', false], // a leading '/' anchors to the top directory
  ['/.env*', '.env', true],
  ['/package-lock.json', 'package-lock.json', true],
  ['/package-lock.json', 'sub/package-lock.json', false],
  ['build/', 'build/out.js', true], // a trailing '/' means everything under it
  ['build/', 'src/build/out.js', true], // …at any depth, as it has no other '/'
  ['/build/', 'src/build/out.js', false],
  // case-sensitive, as git
  ['*.MD', 'readme.md', false],
  ['Makefile', 'makefile', false],
  // regex characters are literal
  ['a+b(c).txt', 'a+b(c).txt', true],
  ['a.b', 'axb', false],
  ['$HOME', '$HOME', true],
];

for (const [pattern, path, expected] of cases) {
  test(`glob ${JSON.stringify(pattern)} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
    const glob = compileGlob(pattern);
    assert.ok(!('error' in glob), JSON.stringify(glob));
    assert.equal(matchesGlob(glob, path), expected);
  });
}

const invalid: [string, RegExp][] = [
  ['', /empty/],
  ['a//b', /empty segment/],
  ['../x', /'\.\.' segment/],
  ['a/./b', /'\.' or '\.\.' segment/],
  ['[abc', /never closed/],
  ['a\\', /lone '\\'/],
  ['a\nb', /line break/],
  ['[a/b]', /never closed/],
];

for (const [pattern, why] of invalid) {
  test(`glob ${JSON.stringify(pattern)} is refused, saying why`, () => {
    const glob = compileGlob(pattern);
    assert.ok('error' in glob);
    assert.match(glob.error, why);
  });
}
