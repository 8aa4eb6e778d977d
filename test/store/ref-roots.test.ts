// The files under fettle's ref roots, as packing, counting and lock-finding walk them: every non-directory under
// refs/fettle/ and refs/fettle-discarded/, named from the git dir, and nothing of the user's.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { refRootEntries } from '../../src/store/ref-roots';
import { makeRepo } from '../helpers/repo';

test("fettle's ref roots: their files at any depth, locks and links included, and no other ref", async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const git = join(repo.dir, '.git');
  const put = (name: string) => {
    mkdirSync(dirname(join(git, name)), { recursive: true });
    writeFileSync(join(git, name), `${'0'.repeat(40)}\n`);
  };
  for (const name of ['refs/fettle/abc', 'refs/fettle/sessions/s-1', 'refs/fettle/abc.lock', 'refs/fettle-discarded/x'])
    put(name);
  symlinkSync('abc', join(git, 'refs/fettle/link'));
  const entries = await refRootEntries(git);
  assert.deepEqual(entries.map((e) => `${e.name} ${e.isFile}`).sort(), [
    'refs/fettle-discarded/x true',
    'refs/fettle/abc true',
    'refs/fettle/abc.lock true',
    'refs/fettle/link false',
    'refs/fettle/sessions/s-1 true',
  ]);
});

test('a repository without fettle refs has none', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  assert.deepEqual(await refRootEntries(join(repo.dir, '.git')), []);
});
