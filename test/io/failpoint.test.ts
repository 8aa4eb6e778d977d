// io/failpoint.ts: what FETTLE_FAILPOINTS accepts, and `vanish`, which deletes a point's temporary files.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { armFailpoints, failpoint } from '../../src/io/failpoint';

afterEach(() => armFailpoints(undefined));

const refused: [string, RegExp][] = [
  ['record.ref-written=vanish', /must be kill, throw or sleep:<ms>, optionally @<n>, got 'vanish'/],
  ['pack.temp-synced=vanish@0', /must be kill, throw, vanish or sleep:<ms>/],
  ['pack.temp-sunk=vanish', /unknown failpoint 'pack\.temp-sunk'/],
];
for (const [spec, why] of refused)
  test(`FETTLE_FAILPOINTS=${spec} is refused`, () => assert.throws(() => armFailpoints(spec), why));

test('vanish deletes the files the point names, at the pass given and no other', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fettle-failpoint-'));
  const temps = [join(dir, 'tmp_pack_1'), join(dir, 'tmp_idx_1')];
  for (const t of temps) writeFileSync(t, 'x');
  armFailpoints('pack.temp-synced=vanish@2');
  await failpoint('pack.temp-synced', temps);
  assert.deepEqual(temps.map(existsSync), [true, true], 'the first pass is left alone');
  await failpoint('pack.temp-synced', temps);
  assert.deepEqual(temps.map(existsSync), [false, false]);
});
