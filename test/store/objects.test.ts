import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStoreAt } from '../../src/store/locate';
import type { Store } from '../../src/store/store';
import { writeCommit } from '../../src/store/objects';
import { headCommit, readFile, readObjects } from '../../src/store/object-read';
import { writeBlob, writeTreeWith } from '../helpers/objects';
import { makeRepo, type Repo } from '../helpers/repo';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const openStore = (repo: Repo): Promise<Store> => openStoreAt(repo.dir, repo.env, join(repo.home, 'data'));
const WHEN = new Date('2024-05-06T07:08:09Z');

const commitWith = async (store: Store, files: Record<string, { bytes: Buffer; mode: string }>): Promise<string> => {
  let tree: string | null = null;
  for (const [path, f] of Object.entries(files))
    tree = await writeTreeWith(store, tree, path, { mode: f.mode, oid: await writeBlob(store, f.bytes) });
  return writeCommit(store, tree ?? EMPTY_TREE, [], 'test\n', WHEN);
};

// [label, bytes, git mode]
const payloads: [string, Buffer, string][] = [
  ['100k random bytes', randomBytes(100_000), '100644'],
  ['100k random bytes, executable', randomBytes(100_000), '100755'],
  ['empty', Buffer.alloc(0), '100644'],
  ['CRLF text', Buffer.from('a\r\nb\r\n\r\n'), '100644'],
  ['text without a final newline', Buffer.from('no newline'), '100644'],
  ['invalid UTF-8 and NULs', Buffer.from([0xff, 0xfe, 0, 0, 0xc3, 0x28, 0x0a]), '100644'],
];

for (const [label, bytes, mode] of payloads) {
  test(`writeBlob/readFile are byte-exact: ${label} (${mode})`, async () => {
    const repo = makeRepo();
    const store = await openStore(repo);
    const oid = await writeBlob(store, bytes);
    assert.ok(repo.gitBytes('cat-file', 'blob', oid).equals(bytes));
    const commit = await commitWith(store, { 'bin/data.bin': { bytes, mode } });
    const file = await readFile(store, commit, 'bin/data.bin');
    assert.ok(file?.bytes.equals(bytes));
    assert.equal(file?.mode, mode);
    assert.equal(file?.oid, oid);
  });
}

test("writeBlob bypasses git's filters (autocrlf, .gitattributes, a clean filter)", async () => {
  const repo = makeRepo();
  repo.write('.gitattributes', '* text=auto eol=crlf filter=upper\n');
  repo.git('config', 'core.autocrlf', 'true');
  repo.git('config', 'filter.upper.clean', 'tr a-z A-Z');
  repo.git('config', 'filter.upper.required', 'true');
  const store = await openStore(repo);
  const bytes = Buffer.from('mixed\r\nendings\n');
  const oid = await writeBlob(store, bytes);
  assert.ok(repo.gitBytes('cat-file', 'blob', oid).equals(bytes));
});

test('readFile returns null for a missing path, a directory, and a missing parent', async () => {
  const repo = makeRepo();
  const store = await openStore(repo);
  const commit = await commitWith(store, { 'd/f.txt': { bytes: Buffer.from('x'), mode: '100644' } });
  for (const path of ['nope.txt', 'd', 'd/nope', 'e/f.txt'])
    assert.equal(await readFile(store, commit, path), null, path);
});

test('readObjects reads several objects in one call; missing ones are null', async () => {
  const repo = makeRepo();
  const store = await openStore(repo);
  const a = await writeBlob(store, Buffer.from('a\n'));
  const big = randomBytes(70_000);
  const b = await writeBlob(store, big);
  const out = await readObjects(store, [a, '0123456789abcdef0123456789abcdef01234567', b, 'HEAD:nothing']);
  assert.equal(out[0]?.body.toString(), 'a\n');
  assert.equal(out[0]?.type, 'blob');
  assert.equal(out[1], null);
  assert.ok(out[2]?.body.equals(big));
  assert.equal(out[3], null);
  assert.deepEqual(await readObjects(store, []), []);
});

const manyFiles = (): Record<string, string> => {
  const files: Record<string, string> = {};
  for (let d = 0; d < 10; d++) for (let f = 0; f < 20; f++) files[`d${d}/sub/f${f}.txt`] = `dir ${d} file ${f}\n`;
  for (let f = 0; f < 20; f++) files[`top${f}.txt`] = `${f}\n`;
  return files;
};

// [label, path, new content (null: remove)]
const edits: [string, string, string | null][] = [
  ['replace a deep file', 'd3/sub/f7.txt', 'changed\n'],
  ['replace a root file', 'top5.txt', 'changed\n'],
  ['add a file in a new dir', 'new/deep/file.txt', 'fresh\n'],
  ['remove a deep file', 'd9/sub/f0.txt', null],
];

for (const [label, path, content] of edits) {
  test(`writeTreeWith on a base with many files changes only that path: ${label}`, async () => {
    const repo = makeRepo(manyFiles());
    const store = await openStore(repo);
    const baseTree = repo.git('rev-parse', 'HEAD^{tree}');
    const leaf = content === null ? null : { mode: '100644', oid: await writeBlob(store, Buffer.from(content)) };
    const tree = await writeTreeWith(store, 'HEAD^{tree}', path, leaf);
    assert.equal(repo.git('diff', '--name-only', baseTree, tree), path);
    if (content !== null) assert.equal(repo.git('cat-file', 'blob', `${tree}:${path}`), content.trim());
    repo.git('fsck', '--no-dangling', '--connectivity-only');
    assert.equal(repo.git('ls-tree', '-r', '-t', tree).split('\n').length > 200, true);
  });
}

test('writeTreeWith keeps the file mode it is given', async () => {
  const repo = makeRepo({ 'a.sh': 'echo\n' });
  const store = await openStore(repo);
  const tree = await writeTreeWith(store, 'HEAD^{tree}', 'a.sh', {
    mode: '100755',
    oid: await writeBlob(store, Buffer.from('echo\n')),
  });
  assert.equal(repo.git('diff', '--summary', 'HEAD', tree), 'mode change 100644 => 100755 a.sh');
});

test('writeTreeWith: removing the last file of a subdir drops the dir', async () => {
  const repo = makeRepo({ 'keep.txt': 'k', 'd/e/only.txt': 'o' });
  const store = await openStore(repo);
  const tree = await writeTreeWith(store, 'HEAD^{tree}', 'd/e/only.txt', null);
  assert.equal(repo.git('ls-tree', '-r', '-t', '--name-only', tree), 'keep.txt');
});

test('writeTreeWith: removing the only file gives the (written) empty tree', async () => {
  const repo = makeRepo({ 'only.txt': 'o' });
  const store = await openStore(repo);
  const tree = await writeTreeWith(store, 'HEAD^{tree}', 'only.txt', null);
  assert.equal(tree, EMPTY_TREE);
  assert.equal(repo.git('cat-file', '-t', tree), 'tree');
  const commit = await writeCommit(store, tree, [repo.git('rev-parse', 'HEAD')], 'rm\n', WHEN);
  assert.equal(repo.git('diff', '--name-status', 'HEAD', commit), 'D\tonly.txt');
});

test('writeTreeWith from no base builds the whole path', async () => {
  const repo = makeRepo();
  const store = await openStore(repo);
  const tree = await writeTreeWith(store, null, 'a/b/c.txt', {
    mode: '100644',
    oid: await writeBlob(store, Buffer.from('c')),
  });
  assert.equal(repo.git('ls-tree', '-r', '--name-only', tree), 'a/b/c.txt');
});

test("writeTreeWith leaves its objects in a pack in the common dir, noted as fettle's", async () => {
  const repo = makeRepo({ 'x/y.txt': 'y' });
  const store = await openStore(repo);
  const loose = () => repo.git('count-objects', '-v').match(/^count: (\d+)/m)?.[1];
  const before = loose();
  const tree = await writeTreeWith(store, 'HEAD^{tree}', 'x/z.txt', {
    mode: '100644',
    oid: await writeBlob(store, Buffer.from('z')),
  });
  const sub = repo.git('rev-parse', `${tree}:x`);
  const packs = readdirSync(join(store.commonDir, 'fettle', 'packs'));
  assert.ok(packs.length > 0);
  const listed = packs
    .map((name) => repo.git('verify-pack', '-v', join(store.commonDir, 'objects', 'pack', `${name}.idx`)))
    .join('\n');
  for (const oid of [tree, sub]) assert.match(listed, new RegExp(`^${oid} tree`, 'm'), oid);
  assert.equal(loose(), before, 'nothing written loose');
});

test('writeTreeWith works in a sha256 repository', async () => {
  const repo = makeRepo();
  const dir = join(repo.home, 'sha256');
  execFileSync('git', ['init', '-q', '--object-format=sha256', dir], { env: repo.env });
  const store = await openStoreAt(dir, repo.env, join(repo.home, 'data'));
  assert.equal(store.objectFormat, 'sha256');
  assert.equal(store.zeroOid.length, 64);
  const bytes = randomBytes(1000);
  const commit = await commitWith(store, {
    'a/b.bin': { bytes, mode: '100755' },
    'a/c.txt': { bytes: Buffer.from('c'), mode: '100644' },
  });
  assert.equal(commit.length, 64);
  const file = await readFile(store, commit, 'a/b.bin');
  assert.ok(file?.bytes.equals(bytes));
  assert.equal(file?.mode, '100755');
});

test('writeCommit uses the fettle identity, the given time and parents, and never signs', async () => {
  const repo = makeRepo({ 'f.txt': 'f' });
  repo.git('config', 'commit.gpgSign', 'true');
  repo.git('config', 'gpg.program', join(repo.home, 'no-such-gpg'));
  const store = await openStore(repo);
  const head = repo.git('rev-parse', 'HEAD');
  const commit = await writeCommit(store, repo.git('rev-parse', 'HEAD^{tree}'), [head], 'fettle: test\n\nbody\n', WHEN);
  assert.equal(
    repo.git('log', '-1', '--format=%an <%ae>|%cn <%ce>|%at|%ct|%P|%s|%G?', commit),
    `fettle <fettle@localhost>|fettle <fettle@localhost>|${WHEN.getTime() / 1000}|${WHEN.getTime() / 1000}|${head}|fettle: test|N`,
  );
});

test('headCommit: null for an unborn HEAD, the commit otherwise (as read when the store was opened)', async () => {
  const repo = makeRepo({ 'f.txt': 'x' }, { commit: false });
  const store = await openStore(repo);
  assert.equal(headCommit(store), null);
  repo.commit();
  assert.equal(headCommit(store), null, 'a store keeps the HEAD it was opened with');
  assert.equal(headCommit(await openStore(repo)), repo.git('rev-parse', 'HEAD'));
});
