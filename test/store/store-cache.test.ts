// The resident server's git: a repository found once is found again with a few stats, but a nested
// repository made since, or a deleted one, is asked about again; HEAD is read anew each time; kept processes
// answer as fresh ones do, including a lost compare-and-swap, and the next transaction still goes through; whether
// an object is still on disk is answered from the disk as it is now.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import { openStoreAt } from '../../src/store/locate';
import { writeBlobs } from '../../src/store/objects';
import { readObjects } from '../../src/store/object-read';
import { missingObjects } from '../../src/store/object-presence';
import { updateRefs } from '../../src/store/refs';
import { StoreCache } from '../../src/store/store-cache';
import { makeRepo } from '../helpers/repo';

const data = (home: string) => join(home, 'data');

test('a repository found once is reopened from memory, with HEAD read anew', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const resident = new StoreCache();
  try {
    const first = await openStoreAt(repo.dir, repo.env, data(repo.home), { resident });
    assert.equal(first.head, repo.git('rev-parse', 'HEAD'));
    repo.write('a.txt', 'b\n');
    repo.commit('second');
    const again = await openStoreAt(repo.dir, repo.env, data(repo.home), { resident });
    assert.equal(again.head, repo.git('rev-parse', 'HEAD'), 'the new HEAD, not the remembered one');
    assert.equal(again.commonDir, first.commonDir);
    assert.equal(again.workTree, first.workTree);
  } finally {
    resident.close();
  }
});

test('a repository made inside one found before is found, not the outer one', async () => {
  const repo = makeRepo({ 'sub/a.txt': 'a\n' });
  const resident = new StoreCache();
  try {
    const sub = repo.path('sub');
    assert.equal((await openStoreAt(sub, repo.env, data(repo.home), { resident })).workTree, repo.dir);
    execFileSync('git', ['init', '-q', sub], { env: repo.env });
    assert.equal((await openStoreAt(sub, repo.env, data(repo.home), { resident })).workTree, sub);
  } finally {
    resident.close();
  }
});

test('a directory whose repository was deleted gets the private store', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const resident = new StoreCache();
  try {
    assert.equal((await openStoreAt(repo.dir, repo.env, data(repo.home), { resident })).kind, 'repo');
    rmSync(join(repo.dir, '.git'), { recursive: true, force: true });
    mkdirSync(data(repo.home), { recursive: true });
    assert.equal((await openStoreAt(repo.dir, repo.env, data(repo.home), { resident })).kind, 'private');
  } finally {
    resident.close();
  }
});

test('kept processes: reads answer as cat-file does; a lost compare-and-swap is E_CONFLICT and the next update goes through', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const resident = new StoreCache();
  try {
    const store = await openStoreAt(repo.dir, repo.env, data(repo.home), { resident });
    const head = repo.git('rev-parse', 'HEAD');
    const [commit, missing, blob] = await readObjects(store, [head, 'no-such-object', 'HEAD:a.txt']);
    assert.equal(commit?.type, 'commit');
    assert.equal(missing, null);
    assert.equal(blob?.body.toString(), 'a\n');
    await updateRefs(store, [{ op: 'create', ref: 'refs/fettle/aaaaaaaa', oid: head }], 'test');
    await assert.rejects(
      updateRefs(store, [{ op: 'create', ref: 'refs/fettle/aaaaaaaa', oid: head }], 'test'),
      (e: unknown) => e instanceof FettleError && e.code === 'E_CONFLICT',
    );
    await updateRefs(store, [{ op: 'delete', ref: 'refs/fettle/aaaaaaaa', old: head }], 'test');
    assert.equal(repo.git('for-each-ref', 'refs/fettle/'), '');
  } finally {
    resident.close();
  }
});

test('an object a prune deleted is missing, though this process wrote it and its kept cat-file read it', async () => {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const resident = new StoreCache();
  try {
    const store = await openStoreAt(repo.dir, repo.env, data(repo.home), { resident });
    const [oid = ''] = await writeBlobs(store, [Buffer.from('unreachable, written by fettle\n')]);
    assert.equal((await readObjects(store, [oid]))[0]?.type, 'blob', 'the kept cat-file has its pack open');
    repo.git('gc', '-q', '--prune=now');
    assert.deepEqual(await missingObjects(store, [oid]), [oid]);
  } finally {
    resident.close();
  }
});
