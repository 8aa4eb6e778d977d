// What the review page says when the changes waiting in its scope differ from those it shows.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newsOf } from '../../../src/web/page/watch';

for (const [shown, waiting, said] of [
  [[], [], null],
  [['a'], ['a'], null],
  [['a'], ['a', 'b'], '1 new change to review since the page loaded.'],
  [['a'], ['b', 'c'], '2 new changes to review; 1 change decided elsewhere since the page loaded.'],
  [['a', 'b'], [], '2 changes decided elsewhere since the page loaded.'],
] as const)
  test(`shown ${JSON.stringify(shown)}, waiting ${JSON.stringify(waiting)}: ${said}`, () =>
    assert.equal(newsOf(new Set(shown), [...waiting]), said));
