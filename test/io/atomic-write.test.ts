import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FettleError } from '../../src/errors';
import {
  fileModeOf,
  gitModeOf,
  readDisk,
  removeFile,
  replaceFile,
  realPathOrAbsolute,
} from '../../src/io/atomic-write';
import { TEMP_MARKER } from '../../src/io/temp-files';
import { tempDir } from '../helpers/repo';

const modeOf = (p: string) => statSync(p).mode & 0o7777;
const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes(TEMP_MARKER));
const fresh = (name: string, content: string | Buffer, mode?: number) => {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, content);
  if (mode !== undefined) chmodSync(file, mode);
  return { dir, file };
};

// [existing mode]
for (const mode of [0o600, 0o644, 0o755, 0o700, 0o640]) {
  test(`replaceFile keeps mode ${mode.toString(8)} and replaces the bytes`, async () => {
    const { dir, file } = fresh('f.txt', 'old\n', mode);
    await replaceFile(file, Buffer.from('new\n'));
    assert.equal(readFileSync(file, 'utf8'), 'new\n');
    assert.equal(modeOf(file), mode);
    assert.deepEqual(leftovers(dir), []);
  });
}

test('replaceFile refuses a read-only file (a rename could replace what a write could not)', async () => {
  const { dir, file } = fresh('f.txt', 'old\n', 0o444);
  await assert.rejects(
    replaceFile(file, Buffer.from('new\n')),
    (e: FettleError) => e.code === 'E_IO' && /read-only/.test(e.message),
  );
  assert.equal(readFileSync(file, 'utf8'), 'old\n');
  assert.deepEqual(leftovers(dir), []);
});

test('replaceFile creates a missing file with 0644 regardless of the umask', async () => {
  const dir = tempDir();
  const previous = process.umask(0o077);
  try {
    await replaceFile(join(dir, 'n.txt'), Buffer.from('x'));
  } finally {
    process.umask(previous);
  }
  assert.equal(modeOf(join(dir, 'n.txt')), 0o644);
});

test('an explicit mode wins over the existing one', async () => {
  const { file } = fresh('f', 'a', 0o644);
  await replaceFile(file, Buffer.from('b'), { mode: 0o755 });
  assert.equal(modeOf(file), 0o755);
});

test('replaceFile is byte-exact for 100k random bytes', async () => {
  const { dir, file } = fresh('bin', 'x');
  const bytes = randomBytes(100_000);
  await replaceFile(file, bytes);
  assert.ok(readFileSync(file).equals(bytes));
  assert.deepEqual(leftovers(dir), []);
});

test('replaceFile writes an empty file', async () => {
  const { file } = fresh('f', 'something');
  await replaceFile(file, Buffer.alloc(0));
  assert.equal(readFileSync(file).length, 0);
});

test('replaceFile replaces the inode (rename), so an open reader keeps the old bytes', async () => {
  const { file } = fresh('f', 'old');
  const before = statSync(file).ino;
  await replaceFile(file, Buffer.from('new'));
  assert.notEqual(statSync(file).ino, before);
});

test('createOnly refuses an existing file with E_CONFLICT and leaves it and the dir untouched', async () => {
  const { dir, file } = fresh('f.txt', 'mine\n');
  await assert.rejects(
    replaceFile(file, Buffer.from('theirs\n'), { createOnly: true }),
    (e: unknown) => e instanceof FettleError && e.code === 'E_CONFLICT',
  );
  assert.equal(readFileSync(file, 'utf8'), 'mine\n');
  assert.deepEqual(readdirSync(dir), ['f.txt']);
});

test('createOnly creates a new file and leaves no temp file', async () => {
  const dir = tempDir();
  await replaceFile(join(dir, 'new.txt'), Buffer.from('hi'), { createOnly: true, mode: 0o600 });
  assert.equal(readFileSync(join(dir, 'new.txt'), 'utf8'), 'hi');
  assert.equal(modeOf(join(dir, 'new.txt')), 0o600);
  assert.deepEqual(readdirSync(dir), ['new.txt']);
});

test('given the real path, a write through a symlink replaces the target and the link stays a link', async () => {
  const { dir, file } = fresh('target.txt', 'old\n', 0o600);
  const link = join(dir, 'link.txt');
  symlinkSync('target.txt', link);
  await replaceFile(realPathOrAbsolute(link), Buffer.from('new\n'));
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readlinkSync(link), 'target.txt');
  assert.equal(readFileSync(file, 'utf8'), 'new\n');
  assert.equal(modeOf(file), 0o600);
  assert.deepEqual(leftovers(dir), []);
});

test('replaceFile refuses a directory with E_IO', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'd'));
  await assert.rejects(
    replaceFile(join(dir, 'd'), Buffer.from('x')),
    (e: unknown) => e instanceof FettleError && e.code === 'E_IO',
  );
});

test('replaceFile into a missing directory fails and leaves nothing behind', async () => {
  const dir = tempDir();
  await assert.rejects(replaceFile(join(dir, 'no', 'f'), Buffer.from('x')), /ENOENT/);
  assert.deepEqual(readdirSync(dir), []);
});

test('readDisk returns null for a missing file', async () =>
  assert.equal(await readDisk(join(tempDir(), 'missing')), null));

// Read synchronously up to 256 KiB, asynchronously past it: every size reads the same bytes and mode.
for (const size of [0, 4096, 256 * 1024, 256 * 1024 + 1, 3 * 1024 * 1024 + 7])
  test(`readDisk returns the bytes and permission bits of a ${size}-byte file`, async () => {
    const bytes = randomBytes(size);
    const { file } = fresh('b', bytes, 0o751);
    const disk = await readDisk(file);
    assert.ok(disk?.bytes.equals(bytes));
    assert.equal(disk?.mode, 0o751);
  });

test('readDisk refuses a named pipe at once, without waiting for a writer', async () => {
  const dir = tempDir();
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  await assert.rejects(readDisk(join(dir, 'pipe')), /not a regular file \(a named pipe\)/);
});

test('readDisk follows a symlink', async () => {
  const { dir } = fresh('t', 'target');
  symlinkSync('t', join(dir, 'l'));
  assert.equal((await readDisk(join(dir, 'l')))?.bytes.toString(), 'target');
});

test('readDisk refuses a directory with E_IO', async () =>
  assert.rejects(readDisk(tempDir()), (e: unknown) => e instanceof FettleError && e.code === 'E_IO'));

test('removeFile deletes the file', async () => {
  const { dir, file } = fresh('gone', 'x');
  await removeFile(file);
  assert.deepEqual(readdirSync(dir), []);
});

// [permission bits, git mode]
const toGit: [number, string][] = [
  [0o644, '100644'],
  [0o600, '100644'],
  [0o755, '100755'],
  [0o700, '100755'],
  [0o744, '100755'],
  [0o654, '100755'],
];
for (const [mode, git] of toGit)
  test(`gitModeOf(${mode.toString(8)}) = ${git}`, () => assert.equal(gitModeOf(mode), git));

// [git mode, permission bits]
const fromGit: [string, number][] = [
  ['100644', 0o644],
  ['100755', 0o755],
];
for (const [git, mode] of fromGit)
  test(`fileModeOf(${git}) = ${mode.toString(8)}`, () => assert.equal(fileModeOf(git), mode));

test('realPathOrAbsolute: real path of an existing file, absolute path of a missing one', () => {
  const { dir } = fresh('t', 'x');
  symlinkSync('t', join(dir, 'l'));
  assert.equal(realPathOrAbsolute(join(dir, 'l')), join(dir, 't'));
  assert.equal(realPathOrAbsolute(join(dir, 'missing')), join(dir, 'missing'));
});
