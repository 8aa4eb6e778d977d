import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { entryHeader } from '../../src/store/pack-format';
import { writePack, type NewObject } from '../../src/store/pack-write';
import { makeRepo, type Repo } from '../helpers/repo';

const objectsOf = (repo: Repo): string => join(repo.dir, '.git', 'objects');
const packDir = (repo: Repo): string => join(objectsOf(repo), 'pack');
const target = (repo: Repo, objectFormat: 'sha1' | 'sha256' = 'sha1') => ({
  objectsDir: objectsOf(repo),
  objectFormat,
});
const packFiles = (repo: Repo): string[] => readdirSync(packDir(repo)).sort();

const gitHash = (repo: Repo, object: NewObject): string =>
  execFileSync('git', ['hash-object', '-t', object.type, '--stdin', '--no-filters'], {
    cwd: repo.dir,
    env: repo.env,
    input: object.body,
  })
    .toString()
    .trim();

// [label, object]: git must compute the same id and read back the same bytes
const cases: [string, NewObject][] = [
  ['empty blob', { type: 'blob', body: Buffer.alloc(0) }],
  ['binary blob with NULs', { type: 'blob', body: Buffer.from([0, 0xff, 0x0a, 0, 0xc3]) }],
  ['1 MB blob', { type: 'blob', body: Buffer.alloc(1 << 20, 'x') }],
  ['17 MB of random bytes (compressed as a stream)', { type: 'blob', body: randomBytes(17 << 20) }],
  ['empty tree', { type: 'tree', body: Buffer.alloc(0) }],
];

for (const [label, object] of cases) {
  test(`writePack stores what git reads back byte for byte: ${label}`, async () => {
    const repo = makeRepo();
    const { oids, name } = await writePack(target(repo), [object]);
    assert.equal(oids[0], gitHash(repo, object));
    assert.equal(repo.git('cat-file', '-t', oids[0] as string), object.type);
    assert.ok(repo.gitBytes('cat-file', object.type, oids[0] as string).equals(object.body));
    assert.match(repo.git('verify-pack', '-v', join(packDir(repo), `${name}.idx`)), /: ok$/);
    assert.equal(repo.git('fsck', '--strict', '--no-dangling'), '');
  });
}

test('writePack: several objects in one pack, in the order given, a repeated one stored once', async () => {
  const repo = makeRepo();
  const objects: NewObject[] = [
    { type: 'blob', body: Buffer.from('one\n') },
    { type: 'blob', body: Buffer.from('two\n') },
    { type: 'blob', body: Buffer.from('one\n') },
  ];
  const { oids, name } = await writePack(target(repo), objects);
  assert.deepEqual(
    oids,
    objects.map((o) => gitHash(repo, o)),
  );
  assert.deepEqual(packFiles(repo), [`${name}.idx`, `${name}.pack`]);
  const listed = repo.git('verify-pack', '-v', join(packDir(repo), `${name}.idx`));
  assert.match(listed, /non delta: 2 objects/);
  assert.equal(repo.git('count-objects', '-v').match(/^count: (\d+)/m)?.[1], '0', 'nothing loose');
});

test('writePack in a sha256 repository', async () => {
  const repo = makeRepo();
  repo.git('init', '-q', '--object-format=sha256', 'r256');
  const dir = join(repo.dir, 'r256');
  const { oids, name } = await writePack({ objectsDir: join(dir, '.git', 'objects'), objectFormat: 'sha256' }, [
    { type: 'blob', body: Buffer.from('x\n') },
  ]);
  assert.equal(oids[0]?.length, 64);
  assert.equal(name?.length, 'pack-'.length + 64);
  assert.equal(repo.git('-C', dir, 'cat-file', 'blob', oids[0] as string), 'x');
  assert.equal(repo.git('-C', dir, 'fsck', '--strict', '--no-dangling'), '');
});

test('packs are read-only and follow the read bits of the objects directory, whatever the umask', async () => {
  const repo = makeRepo();
  chmodSync(objectsOf(repo), 0o750);
  const previous = process.umask(0o077);
  try {
    const { name } = await writePack(target(repo), [{ type: 'blob', body: Buffer.from('shared\n') }]);
    for (const ext of ['pack', 'idx'])
      assert.equal(statSync(join(packDir(repo), `${name}.${ext}`)).mode & 0o777, 0o440);
  } finally {
    process.umask(previous);
  }
});

test('a pack holding the bytes of a file only its owner may read is no more readable than that file', async () => {
  const repo = makeRepo();
  const { name } = await writePack(target(repo), [
    { type: 'blob', body: Buffer.from('secret\n'), fileMode: 0o600 },
    { type: 'tree', body: Buffer.alloc(0) },
  ]);
  assert.equal(statSync(join(packDir(repo), `${name}.pack`)).mode & 0o777, 0o400);
});

test('a write that fails leaves no temp file and says why', async () => {
  const repo = makeRepo();
  // The temp files are written, then the rename into place fails: a directory sits where the pack would go.
  const object: NewObject = { type: 'blob', body: Buffer.from('blocked\n') };
  const first = await writePack(target(repo), [object]);
  for (const f of packFiles(repo)) execFileSync('rm', [join(packDir(repo), f)]);
  mkdirSync(join(packDir(repo), `${first.name}.pack`));
  mkdirSync(join(packDir(repo), `${first.name}.pack`, 'x'));
  await assert.rejects(writePack(target(repo), [object]), /EISDIR|ENOTEMPTY|EEXIST/);
  assert.deepEqual(
    packFiles(repo).filter((f) => f.startsWith('tmp_')),
    [],
    'the temp files written before the failing rename are gone',
  );
});

// [size, header bytes]: git's entry header (Documentation/gitformat-pack.txt, "size encoding"), for a blob (type 3)
const headers: [number, number[]][] = [
  [0, [0x30]],
  [15, [0x3f]],
  [16, [0xb0, 0x01]],
  [100, [0xb4, 0x06]],
  [2 ** 31 + 5, [0xb5, 0x80, 0x80, 0x80, 0x40]],
];
for (const [size, bytes] of headers) {
  test(`entryHeader(blob, ${size})`, () => assert.deepEqual([...entryHeader('blob', size)], bytes));
}

test('writePack stores trees at their own level (0: stored) and the rest at the pack level, all read back by git', async () => {
  // 200 entries naming one blob: at level 1 this tree would shrink several times over.
  const repo = makeRepo(Object.fromEntries(Array.from({ length: 200 }, (_, n) => [`f${n}.txt`, 'same\n'])));
  const tree = repo.gitBytes('cat-file', 'tree', 'HEAD^{tree}');
  const blob = Buffer.from('a\n'.repeat(2000));
  const { oids, name } = await writePack({ ...target(repo), level: 1, treeLevel: 0 }, [
    { type: 'tree', body: tree },
    { type: 'blob', body: blob },
  ]);
  const sizes = new Map(
    repo
      .git('verify-pack', '-v', join(packDir(repo), `${name}.idx`))
      .split('\n')
      .map((l) => l.split(/\s+/))
      .filter((f) => f[0] === oids[0] || f[0] === oids[1])
      .map((f) => [f[0], { size: Number(f[2]), inPack: Number(f[3]) }]),
  );
  // A stored deflate stream is the body plus its framing; a compressed one is far smaller for this blob.
  assert.ok((sizes.get(oids[0] as string)?.inPack ?? 0) > tree.length, JSON.stringify([...sizes]));
  assert.ok((sizes.get(oids[1] as string)?.inPack ?? Infinity) < blob.length / 10, JSON.stringify([...sizes]));
  assert.ok(repo.gitBytes('cat-file', 'tree', oids[0] as string).equals(tree));
  assert.equal(repo.git('fsck', '--strict', '--no-dangling'), '');
});
