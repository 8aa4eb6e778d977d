// Durations as fettle prints them: compact ages, minutes ago, configured seconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agoText, minutesText, secondsText, shortDuration } from '../../src/core/time';

const cases: [string, string, string][] = [
  ['shortDuration(0)', shortDuration(0), '0s'],
  ['shortDuration(59.4 s)', shortDuration(59_400), '59s'],
  ['shortDuration(90 s)', shortDuration(90_000), '2m'],
  ['shortDuration(2 h)', shortDuration(2 * 3_600_000), '2h'],
  ['shortDuration(3 days)', shortDuration(3 * 86_400_000), '3d'],
  ['shortDuration(negative)', shortDuration(-5_000), '0s'],
  ['shortDuration(NaN)', shortDuration(Number.NaN), '?'],
  ['minutesText(10 s): at least one', minutesText(10_000), '1 minute'],
  ['minutesText(3 min)', minutesText(180_000), '3 minutes'],
  ['secondsText(600)', secondsText(600), '10 min'],
  ['secondsText(7200)', secondsText(7200), '2 h'],
  ['secondsText(45)', secondsText(45), '45 s'],
  ['secondsText(90)', secondsText(90), '90 s'],
  ['agoText(59.9 s)', agoText(59_900), '59 s'],
  ['agoText(2 min 59 s): rounded down', agoText(179_000), '2 min'],
  ['agoText(3 h 50 min)', agoText(13_800_000), '3 h'],
  ['agoText(2 days)', agoText(2 * 86_400_000), '2 d'],
  ['agoText(negative: a clock set back)', agoText(-5_000), '0 s'],
];
for (const [label, actual, expected] of cases) test(label, () => assert.equal(actual, expected));
