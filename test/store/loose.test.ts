import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeLoose, type NewObject } from '../../src/store/loose';
import { makeRepo, type Repo } from '../helpers/repo';

const objectsOf = (repo: Repo): string => join(repo.dir, '.git', 'objects');
const target = (repo: Repo, objectFormat: 'sha1' | 'sha256' = 'sha1') => ({
  objectsDir: objectsOf(repo),
  objectFormat,
});
const pathOf = (repo: Repo, oid: string): string => join(objectsOf(repo), oid.slice(0, 2), oid.slice(2));
const tempsIn = (repo: Repo): string[] =>
  readdirSync(objectsOf(repo)).flatMap((d) =>
    /^[0-9a-f]{2}$/.test(d) && statSync(join(objectsOf(repo), d)).isDirectory()
      ? readdirSync(join(objectsOf(repo), d)).filter((f) => f.startsWith('tmp_'))
      : [],
  );

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
  test(`writeLoose stores what git reads back byte for byte: ${label}`, async () => {
    const repo = makeRepo();
    const [oid] = await writeLoose(target(repo), [object]);
    assert.equal(oid, gitHash(repo, object));
    assert.equal(repo.git('cat-file', '-t', oid as string), object.type);
    assert.ok(repo.gitBytes('cat-file', object.type, oid as string).equals(object.body));
    assert.equal(repo.git('fsck', '--strict', '--no-dangling'), '');
  });
}

test('writeLoose in a sha256 repository', async () => {
  const repo = makeRepo();
  repo.git('init', '-q', '--object-format=sha256', 'r256');
  const r256 = { ...repo, dir: join(repo.dir, 'r256') };
  const [oid] = await writeLoose({ objectsDir: join(r256.dir, '.git', 'objects'), objectFormat: 'sha256' }, [
    { type: 'blob', body: Buffer.from('x\n') },
  ]);
  assert.equal(oid?.length, 64);
  assert.equal(repo.git('-C', r256.dir, 'cat-file', 'blob', oid as string), 'x');
});

test('an object already stored is freshened, not rewritten, and objects are read-only', async () => {
  const repo = makeRepo();
  const object: NewObject = { type: 'blob', body: Buffer.from('same\n') };
  const [oid] = await writeLoose(target(repo), [object]);
  const path = pathOf(repo, oid as string);
  assert.equal(statSync(path).mode & 0o777, 0o444);
  const old = new Date('2001-01-01T00:00:00Z');
  utimesSync(path, old, old);
  const ino = statSync(path).ino;
  await writeLoose(target(repo), [object]);
  assert.equal(statSync(path).ino, ino, 'the file was kept');
  assert.ok(statSync(path).mtimeMs > old.getTime(), 'its mtime was refreshed, so a prune with an expiry keeps it');
});

test('object files follow the read bits of the objects directory, whatever the umask', async () => {
  const repo = makeRepo();
  chmodSync(objectsOf(repo), 0o750);
  const previous = process.umask(0o077);
  try {
    const [oid] = await writeLoose(target(repo), [{ type: 'blob', body: Buffer.from('shared\n') }]);
    assert.equal(statSync(pathOf(repo, oid as string)).mode & 0o777, 0o440);
  } finally {
    process.umask(previous);
  }
});

test('a write that fails leaves no temp file and says why', async () => {
  const repo = makeRepo();
  // The temp file is written in objects/ab, then the rename into objects/ab/f/x fails: objects/ab/f is a file.
  mkdirSync(join(objectsOf(repo), 'ab'));
  writeFileSync(join(objectsOf(repo), 'ab', 'f'), 'in the way');
  const object: NewObject = { type: 'blob', body: Buffer.from('blocked\n'), oid: 'abf/x' };
  await assert.rejects(writeLoose(target(repo), [object]), /ENOTDIR/);
  assert.deepEqual(tempsIn(repo), [], 'the temp file written before the failing rename is gone');
});
