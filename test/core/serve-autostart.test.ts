import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUTOSTART_FAILED_WAIT_MS, AUTOSTART_RETRY_MS, autostartVerdict } from '../../src/core/serve-autostart';

const NOW = 1_800_000_000_000;
const cases: [string, string | undefined, string, number | undefined, string][] = [
  ['unset, never tried', undefined, 'linux', undefined, 'start'],
  ['on, never tried', '1', 'darwin', undefined, 'start'],
  ['0', '0', 'linux', undefined, 'off'],
  ['off, any case and spaces', ' OFF ', 'linux', undefined, 'off'],
  ['false', 'false', 'linux', undefined, 'off'],
  ['no', 'no', 'linux', undefined, 'off'],
  ['an empty value is unset', '', 'linux', undefined, 'start'],
  ['Windows', undefined, 'win32', undefined, 'unsupported'],
  ['off wins on Windows', '0', 'win32', undefined, 'off'],
  ['tried a second ago', undefined, 'linux', NOW - 1000, 'wait'],
  ['tried just under the retry time ago', undefined, 'linux', NOW - AUTOSTART_RETRY_MS + 1, 'wait'],
  ['tried the retry time ago', undefined, 'linux', NOW - AUTOSTART_RETRY_MS, 'start'],
  ['a failed start pushed the marker ahead', undefined, 'linux', NOW + AUTOSTART_FAILED_WAIT_MS - 1000, 'wait'],
];

for (const [name, setting, platform, marked, want] of cases)
  test(`autostart: ${name} -> ${want}`, () => {
    assert.equal(autostartVerdict({ setting, platform, marked, now: NOW }), want);
  });
