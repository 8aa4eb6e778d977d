// git blame --porcelain, read (core/blame-porcelain.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBlamePorcelain } from '../../src/core/blame-porcelain';

const C = '6e9e25fc0617ed9281b0151df4f3980160af1316';
const Z = '0'.repeat(40);
const OUT = [
  `${C} 1 1 1`,
  'author Test User',
  'author-time 1700000000',
  'summary first',
  'boundary',
  'filename old.txt',
  '\ta',
  `${Z} 2 2 1`,
  'author Not Committed Yet',
  'summary Version of f from standard input',
  'filename f',
  '\tX',
  `${C} 2 3 1`,
  '\tb',
  '',
].join('\n');

test('each line gets its commit, its number and path there, and the author; details given once are reused', () =>
  assert.deepEqual(
    parseBlamePorcelain(OUT).map((b) => [b.commit, b.origLine, b.path, b.author, b.time]),
    [
      [C, 1, 'old.txt', 'Test User', 1700000000],
      [null, 2, 'f', '', 0],
      [C, 2, 'old.txt', 'Test User', 1700000000],
    ],
  ));

test('a content line that starts like a header is content', () =>
  assert.deepEqual(
    parseBlamePorcelain(`${C} 1 1 1\nfilename f\n\t${C} 1 1 1\n`).map((b) => b.origLine),
    [1],
  ));
