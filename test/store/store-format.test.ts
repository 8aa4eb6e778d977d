// Writing the store format stamp (store-format.ts): only ever created, never replaced. First writers racing each
// other leave one whole stamp and none of their temp files; a stamp found (a newer one included) stays as it was.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import type { Store } from '../../src/store/store';
import { newRefsDir } from '../../src/store/ref-create';
import { readStamp, stampPath, stampStore } from '../../src/store/store-format';
import { makeRepo } from '../helpers/repo';

const storeOf = (commonDir: string): Store => ({ kind: 'repo', commonDir }) as Store;

test('first writers racing to stamp a store leave one whole stamp of this format, and no temp file', async () => {
  const common = join(makeRepo({ 'a.txt': 'a\n' }).dir, '.git');
  const stores = Array.from({ length: 8 }, () => storeOf(common));
  assert.equal(readStamp(storeOf(common)), false, 'no stamp yet');
  for (const s of stores) s.stamped = false; // as opened
  await Promise.all(stores.map(stampStore));
  assert.equal(readFileSync(stampPath(common), 'utf8'), '1\n');
  assert.deepEqual(readdirSync(newRefsDir(common)), [], 'no temp file left');
  assert.deepEqual(
    stores.map((s) => s.stamped),
    stores.map(() => true),
  );
});

test('a stamp found is never replaced: a newer one stays, and the writer is refused before it writes anything', async () => {
  const common = join(makeRepo({ 'a.txt': 'a\n' }).dir, '.git');
  mkdirSync(join(common, 'fettle'));
  writeFileSync(stampPath(common), '7\n');
  const newer = (e: unknown) =>
    e instanceof FettleError && e.code === 'E_STORE_NEWER' && /store format 7/.test(e.message);
  await assert.rejects(stampStore(storeOf(common)), newer);
  assert.equal(readFileSync(stampPath(common), 'utf8'), '7\n');
  assert.deepEqual(readdirSync(join(common, 'fettle')), ['format']);
});
