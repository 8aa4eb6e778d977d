import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { editTree, hashObject, parseTree, TREE_MODE, type NewTree, type TreeEntry } from '../../src/store/tree-codec';
import { encodeTree } from '../helpers/objects';
import { makeRepo, type Repo } from '../helpers/repo';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** One repository for the tests that only add objects to it (each builds its trees in an index of its own). */
let shared: Repo | undefined;
const objectRepo = (): Repo => {
  shared ??= makeRepo();
  return shared;
};

const blob = (repo: Repo, content: string) =>
  execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo.dir, env: repo.env, input: content })
    .toString()
    .trim();
const mktree = (repo: Repo, entries: TreeEntry[]) => {
  const input = entries
    .map((e) => `${e.mode} ${e.mode === TREE_MODE ? 'tree' : 'blob'} ${e.oid}\t${e.name.toString()}\n`)
    .join('');
  return execFileSync('git', ['mktree'], { cwd: repo.dir, env: repo.env, input }).toString().trim();
};
const entry = (mode: string, name: string, oid: string): TreeEntry => ({ mode, name: Buffer.from(name), oid });
const catTree = (repo: Repo, oid: string) => repo.gitBytes('cat-file', 'tree', oid);

/** Blob ids already known, per repository and content: the oracle hashes each content once. */
const known = new Map<string, string>();

/** Blob ids of many contents from one git process (`hash-object --stdin-paths`), in order. */
const blobs = (repo: Repo, contents: string[]): string[] => {
  const fresh = [...new Set(contents.filter((c) => !known.has(`${repo.dir}\0${c}`)))];
  if (fresh.length > 0) {
    const dir = mkdtempSync(join(repo.home, 'blobs-'));
    const paths = fresh.map((c, i) => {
      const path = join(dir, String(i));
      writeFileSync(path, c);
      return path;
    });
    const ids = execFileSync('git', ['hash-object', '-w', '--no-filters', '--stdin-paths'], {
      cwd: repo.dir,
      env: repo.env,
      input: `${paths.join('\n')}\n`,
    })
      .toString()
      .trim()
      .split('\n');
    rmSync(dir, { recursive: true });
    for (const [i, c] of fresh.entries()) known.set(`${repo.dir}\0${c}`, ids[i] as string);
  }
  return contents.map((c) => known.get(`${repo.dir}\0${c}`) as string);
};

/** The oracle: git's own index turns (path -> content) into a tree (one update-index, one write-tree). */
const gitTreeOf = (repo: Repo, files: Record<string, string>): string => {
  const env = { ...repo.env, GIT_INDEX_FILE: join(repo.home, `index-${Math.random()}`) };
  const ids = blobs(repo, Object.values(files));
  const input = Object.keys(files)
    .map((p, i) => `100644 ${ids[i]}\t${p}\n`)
    .join('');
  execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: repo.dir, env, input });
  return execFileSync('git', ['write-tree'], { cwd: repo.dir, env }).toString().trim();
};

/** levels along `path` read from git, as writeTreeWith does */
const levelsOf = (repo: Repo, tree: string, segments: string[]): Buffer[] =>
  segments.map((_, depth) => {
    try {
      const spec = `${tree}:${segments.slice(0, depth).join('/')}`;
      return execFileSync('git', ['cat-file', 'tree', spec], { cwd: repo.dir, env: repo.env, stdio: 'pipe' });
    } catch {
      return Buffer.alloc(0);
    }
  });
const entriesOf = (t: NewTree | undefined): TreeEntry[] => parseTree(t?.body ?? Buffer.alloc(0), 20);

/** `git mktree -z --batch` input: git computes the ids independently of fettle's encoder */
const mktreeInput = (trees: NewTree[]): Buffer =>
  Buffer.concat(
    trees.flatMap((t) => [
      ...entriesOf(t).map((e) => {
        const type = e.mode === TREE_MODE ? 'tree' : e.mode === '160000' ? 'commit' : 'blob';
        return Buffer.concat([Buffer.from(`${e.mode} ${type} ${e.oid}\t`, 'latin1'), e.name, Buffer.from([0])]);
      }),
      Buffer.from([0]),
    ]),
  );

/** applies editTree, writes its trees with `git mktree --batch`, checks git printed the same oids */
const edit = (repo: Repo, base: string, path: string, content: string | null): string => {
  const segments = path.split('/');
  const trees = editTree(
    levelsOf(repo, base, segments),
    segments,
    content === null ? null : { mode: '100644', oid: blob(repo, content) },
    'sha1',
  );
  const root = trees[trees.length - 1];
  assert.ok(root);
  if (root.body.length === 0) return root.oid;
  const printed = execFileSync('git', ['mktree', '-z', '--batch'], {
    cwd: repo.dir,
    env: repo.env,
    input: mktreeInput(trees),
  })
    .toString()
    .trim()
    .split('\n');
  assert.deepEqual(
    printed,
    trees.map((t) => t.oid),
  );
  return root.oid;
};

// names that sort differently depending on whether 'a' is a file or a directory ('-' < '.' < '/' < '0')
const tricky: [string, [string, string][]][] = [
  [
    'dir a among a-b, a.b, a0',
    [
      ['tree', 'a'],
      ['blob', 'a-b'],
      ['blob', 'a.b'],
      ['blob', 'a0'],
      ['blob', 'ab'],
    ],
  ],
  [
    'file a among a-b, a.b, a0',
    [
      ['blob', 'a'],
      ['blob', 'a-b'],
      ['blob', 'a.b'],
      ['blob', 'a0'],
    ],
  ],
  [
    'dir foo and file foo.txt',
    [
      ['tree', 'foo'],
      ['blob', 'foo.txt'],
      ['blob', 'foo-bar'],
      ['blob', 'foo0'],
    ],
  ],
  [
    'unicode and uppercase',
    [
      ['blob', 'Z'],
      ['blob', 'a'],
      ['blob', 'é'],
      ['tree', 'B'],
      ['blob', '_'],
    ],
  ],
  [
    'executable, symlink and dir',
    [
      ['exec', 'run.sh'],
      ['link', 'l'],
      ['tree', 'd'],
      ['blob', 'd.txt'],
    ],
  ],
];

for (const [label, spec] of tricky) {
  test(`encodeTree + hashObject = git mktree: ${label}`, () => {
    const repo = objectRepo();
    const sub = mktree(repo, [entry('100644', 'inner', blob(repo, 'inner'))]);
    const modes: Record<string, string> = { tree: TREE_MODE, blob: '100644', exec: '100755', link: '120000' };
    const entries = spec.map(([kind, name]) =>
      entry(modes[kind] ?? '', name, kind === 'tree' ? sub : blob(repo, name)),
    );
    const body = encodeTree([...entries].reverse());
    assert.equal(hashObject('tree', body, 'sha1'), mktree(repo, entries));
    assert.ok(body.equals(catTree(repo, mktree(repo, entries))));
  });
}

test('hashObject of an empty tree and a blob match git', () => {
  assert.equal(hashObject('tree', Buffer.alloc(0), 'sha1'), EMPTY_TREE);
  assert.equal(hashObject('blob', Buffer.from('hello\n'), 'sha1'), 'ce013625030ba8dba906f756967f9e9ca394464a');
});

test('hashObject sha256 matches a sha256 repository', () => {
  const repo = objectRepo();
  const dir = join(repo.home, 'sha256');
  execFileSync('git', ['init', '-q', '--object-format=sha256', dir], { env: repo.env });
  const oid = execFileSync('git', ['hash-object', '--stdin'], { cwd: dir, env: repo.env, input: 'x\n' })
    .toString()
    .trim();
  assert.equal(hashObject('blob', Buffer.from('x\n'), 'sha256'), oid);
});

test('parseTree round-trips `git cat-file tree` output', () => {
  const repo = makeRepo({ 'a.txt': 'a', 'a/b.txt': 'b', 'a-b': 'c', 'z/y/x': 'd' });
  const root = repo.git('rev-parse', 'HEAD^{tree}');
  const raw = catTree(repo, root);
  const entries = parseTree(raw, 20);
  assert.deepEqual(
    entries.map((e) => `${e.mode} ${e.name.toString()}`),
    ['100644 a-b', '100644 a.txt', '40000 a', '40000 z'],
  );
  assert.equal(entries[2]?.oid, repo.git('rev-parse', 'HEAD:a'));
  assert.ok(encodeTree(entries).equals(raw));
});

test('parseTree keeps non-UTF-8 name bytes', () => {
  const raw = Buffer.concat([
    Buffer.from('100644 '),
    Buffer.from([0x66, 0xff]),
    Buffer.from([0]),
    Buffer.alloc(20, 0xab),
  ]);
  const [e] = parseTree(raw, 20);
  assert.deepEqual([...(e?.name ?? [])], [0x66, 0xff]);
  assert.equal(e?.oid, 'ab'.repeat(20));
  assert.ok(encodeTree(parseTree(raw, 20)).equals(raw));
});

test('parseTree rejects a truncated tree', () =>
  assert.throws(() => parseTree(Buffer.from('100644 a\0abc'), 20), /malformed/));

const base = {
  'a.txt': 'a',
  'a-b': 'ab',
  'dir/one.txt': '1',
  'dir/two.txt': '2',
  'dir/sub/deep.txt': 'deep',
  'z.txt': 'z',
};

// [label, path, new content (null: remove)]
const edits: [string, string, string | null][] = [
  ['replace a root file', 'a.txt', 'A'],
  ['replace a file two levels down', 'dir/sub/deep.txt', 'DEEP'],
  ['add a root file', 'a.b', 'new'],
  ['add a file in an existing dir', 'dir/three.txt', '3'],
  ['add a file in new nested dirs', 'new/deeper/file.txt', 'x'],
  ['add a file next to a dir that sorts around "/"', 'dir.txt', 'x'],
  ['remove a root file', 'z.txt', null],
  ['remove a file in a dir', 'dir/one.txt', null],
  ['remove the last file of a subdir drops the dir', 'dir/sub/deep.txt', null],
  ['remove a path that does not exist', 'nope/nothing.txt', null],
];

for (const [label, path, content] of edits) {
  test(`editTree: ${label} = git's own tree`, () => {
    const repo = objectRepo();
    const before = gitTreeOf(repo, base);
    const after: Record<string, string> = { ...base };
    if (content === null) delete after[path];
    else after[path] = content;
    assert.equal(edit(repo, before, path, content), gitTreeOf(repo, after));
  });
}

test('editTree: removing the last file of a subdir drops the dir', () => {
  const repo = objectRepo();
  const tree = edit(repo, gitTreeOf(repo, { 'keep.txt': 'k', 'd/only.txt': 'o' }), 'd/only.txt', null);
  assert.equal(repo.git('ls-tree', '--name-only', tree), 'keep.txt');
});

test('editTree: removing the only file gives the empty tree as root', () => {
  const repo = objectRepo();
  const before = gitTreeOf(repo, { 'd/only.txt': 'o' });
  const trees = editTree(levelsOf(repo, before, ['d', 'only.txt']), ['d', 'only.txt'], null, 'sha1');
  assert.equal(trees.length, 1);
  assert.deepEqual(trees[0], { oid: EMPTY_TREE, depth: 0, body: Buffer.alloc(0) });
});

test('editTree writes only the trees along the path, children first', () => {
  const repo = objectRepo();
  const before = gitTreeOf(repo, base);
  const trees = editTree(
    levelsOf(repo, before, ['dir', 'sub', 'deep.txt']),
    ['dir', 'sub', 'deep.txt'],
    { mode: '100644', oid: blob(repo, 'v2') },
    'sha1',
  );
  assert.equal(trees.length, 3);
  assert.deepEqual(
    entriesOf(trees[0]).map((e) => e.name.toString()),
    ['deep.txt'],
  );
  assert.equal(entriesOf(trees[2]).length, 4);
});

test('editTree from nothing builds every level', () => {
  const repo = objectRepo();
  assert.equal(edit(repo, gitTreeOf(repo, {}), 'x/y/z.txt', 'z'), gitTreeOf(repo, { 'x/y/z.txt': 'z' }));
});

test('editTree keeps a 1,000-entry directory in git order when it inserts into it', () => {
  const repo = objectRepo();
  const names = Array.from({ length: 1000 }, (_, i) => `f${String(i).padStart(4, '0')}${i % 7 === 0 ? '-x' : ''}.txt`);
  const files = Object.fromEntries(names.map((n) => [`d/${n}`, n]));
  const before = gitTreeOf(repo, files);
  assert.equal(edit(repo, before, 'd/f0500.txt.new', 'new'), gitTreeOf(repo, { ...files, 'd/f0500.txt.new': 'new' }));
  assert.equal(edit(repo, before, 'd/f0500', 'dir-or-file'), gitTreeOf(repo, { ...files, 'd/f0500': 'dir-or-file' }));
  assert.equal(edit(repo, before, 'd/f0500/inner.txt', 'i'), gitTreeOf(repo, { ...files, 'd/f0500/inner.txt': 'i' }));
});
