// The progress line: redrawn in place on a terminal, one plain line per step elsewhere, and a step that asks for
// a delay shown only if it lasts that long. The clock is node:test's mock timers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProgress } from '../../src/io/progress';

const recorder = (tty: boolean, columns?: number) => {
  const out: string[] = [];
  return { out, progress: createProgress({ write: (s) => out.push(s), tty, columns }) };
};

test('not a terminal: one plain line per step, no redraws, nothing to clear', () => {
  const { out, progress } = recorder(false);
  progress.step('fettle: checking out');
  progress.update('fettle: checking out: 10/30');
  progress.update('fettle: checking out: 30/30');
  progress.done();
  progress.step('fettle: removing');
  progress.done();
  assert.deepEqual(out, ['fettle: checking out\n', 'fettle: removing\n']);
});

test('a terminal: the line is redrawn in place and cleared when the step ends; long lines are cut', () => {
  const { out, progress } = recorder(true, 21);
  progress.step('fettle: checking out');
  progress.update('fettle: 10/30');
  progress.done();
  assert.deepEqual(out, ['\r\x1b[Kfettle: checking out', '\r\x1b[Kfettle: 10/30', '\r\x1b[K']);
  out.length = 0;
  progress.step('fettle: a step far longer than the terminal is wide');
  assert.deepEqual(out, ['\r\x1b[Kfettle: a step far …'], 'one column short of the width: the cursor never wraps');
});

test('a delayed step shows only if it lasts the delay, with its latest text', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const quick = recorder(true);
  quick.progress.step('fettle: reading', { delayMs: 1000 });
  t.mock.timers.tick(999);
  quick.progress.done();
  t.mock.timers.tick(10);
  assert.deepEqual(quick.out, [], 'over before the delay: nothing drawn, nothing cleared');
  const slow = recorder(true);
  slow.progress.step('fettle: reading', { delayMs: 1000 });
  slow.progress.update('fettle: reading: 200/900');
  t.mock.timers.tick(1000);
  slow.progress.done();
  assert.deepEqual(slow.out, ['\r\x1b[Kfettle: reading: 200/900', '\r\x1b[K']);
  const plain = recorder(false);
  plain.progress.step('fettle: reading', { delayMs: 1000 });
  t.mock.timers.tick(1000);
  assert.deepEqual(plain.out, ['fettle: reading\n']);
});
