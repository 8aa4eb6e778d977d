import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeStaged, type RouteInput } from '../../src/core/permission';

// [mode, review, in the project, route]
const TABLE: [RouteInput['mode'], RouteInput['review'], boolean, ReturnType<typeof routeStaged>][] = [
  ['default', 'model', true, 'person'],
  ['acceptEdits', 'model', true, 'model'],
  ['acceptEdits', 'model', false, 'person'],
  ['bypassPermissions', 'model', false, 'model'],
  ['auto', 'model', true, 'person'],
  ['dontAsk', 'model', true, 'refuse'],
  ['dontAsk', 'human', true, 'refuse'],
  [undefined, 'model', true, 'model'],
  [undefined, 'human', true, 'person'],
  ['', 'model', true, 'person'],
  ['someFutureMode', 'model', true, 'person'],
  ['acceptEdits', 'human', true, 'person'],
  ['bypassPermissions', 'human', true, 'person'],
];

for (const [mode, review, inProject, route] of TABLE)
  test(`routeStaged: ${String(mode)}, ${review}, ${inProject ? 'in' : 'outside'} the project -> ${route}`, () =>
    assert.equal(routeStaged({ mode, review, inProject }), route));
