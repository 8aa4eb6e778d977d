// io/temp-files.ts: the names of the temp files a replace renames over its target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMP_MARKER, tempNameFor } from '../../src/io/temp-files';

test('temp names are hidden, marked, and in the same directory', () => {
  const name = tempNameFor('/a/b/file.txt');
  assert.match(name, /^\/a\/b\/\.file\.txt\.fettle-\d+-[0-9a-f]{8}\.tmp$/);
  assert.ok(name.includes(TEMP_MARKER));
  assert.notEqual(tempNameFor('/a/b/file.txt'), name);
});
