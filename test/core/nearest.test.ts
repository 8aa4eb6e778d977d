// The nearest known id to a mistyped one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editDistance, nearest } from '../../src/core/nearest';

// [a, b, distance]
const distances: [string, string, number][] = [
  ['', '', 0],
  ['0y7m5cn6', '0y7m5cn6', 0],
  ['0y7m5cn6', '0y7m5cm6', 1],
  ['0y7m5cn6', '0y7m5c6', 1],
  ['ab', 'ba', 2],
  ['abcdefgh', '12345678', 8],
];
for (const [a, b, d] of distances) test(`editDistance(${a}, ${b}) = ${d}`, () => assert.equal(editDistance(a, b), d));

// [typed, known, suggestion]
const suggestions: [string, string[], string | undefined][] = [
  ['0y7m5cn6', ['yyc3bgom', '0y7m5cm6'], '0y7m5cm6'],
  ['0y7m5cn6', ['yyc3bgom'], undefined],
  ['abcd1234', ['abcd1299', 'abcd1235'], 'abcd1235'],
  ['x', [], undefined],
];
for (const [typed, known, expected] of suggestions)
  test(`nearest(${typed}) among ${known.join(',') || 'none'} = ${expected}`, () =>
    assert.equal(nearest(typed, known), expected));
