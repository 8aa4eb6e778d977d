// Policy `run` rules on the writes fettle makes itself (docs/POLICY.md, "run: a command on the tree a write would
// produce"): `fettle write`, `fettle write --from` (a set), `fettle apply` (a contract, a set) and the MCP write
// tools run them as the hook does: a failing command blocks (nothing written, its output shown), or stages the
// write with its output in the record; a passing one lets it through. A set is checked once, whole.
// Tier: slow, end-to-end scenarios through the built CLI, each checking out a test tree (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { type McpClient, startMcp } from '../helpers/mcp';
import { lines, makeRepo, type Repo } from '../helpers/repo';
import { fettle } from '../helpers/stage';
import { fettleRefs, scenario } from '../helpers/tools';

const writePolicy = (repo: Repo, rules: unknown[]) =>
  repo.write('.fettle/policy.json', JSON.stringify({ version: 2, rules }));
const FILES = { 'src/a.txt': lines(20), 'src/b.txt': lines(20) };
const EDITED = lines(20).replace('line 3\n', 'line three\n');
/** `bad` in the file written: the command fails, naming it on stderr. */
const NO_BAD = 'if grep -q bad {file}; then echo "found bad in {file}" >&2; exit 3; fi';
/** Passes only when the two files agree: only the tree of the whole set can tell. */
const AGREE = 'cmp src/a.txt src/b.txt';
const noteOf = (repo: Repo, id: string): string => repo.git('log', '-1', '--format=%B', `refs/fettle/${id}`);
/** A directory outside the repository with each file's new content at its path (made anew each time). */
const source = (repo: Repo, files: Record<string, string>): string => {
  const dir = join(repo.home, `from-${Object.keys(files).length}-${Math.random().toString(36).slice(2)}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
};

scenario('fettle write: a failing command blocks, its output shown; a passing one writes', FILES, (repo) => {
  writePolicy(repo, [{ name: 'no-bad', path: 'src/**', action: 'run', run: NO_BAD }]);
  const bad = fettle(repo, ['write', 'src/a.txt'], { input: 'a bad line\n' });
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /^fettle: Policy rule no-bad .* ran `if grep -q bad src\/a\.txt;.*` .* failed \(exit 3\)\./);
  assert.match(bad.stderr, /\nfound bad in src\/a\.txt\n/);
  assert.match(bad.stderr, /Nothing was written to src\/a\.txt\. Fix what it reports, then write again\./);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  assert.deepEqual(fettleRefs(repo), [], 'nothing recorded');
  const good = fettle(repo, ['write', 'src/a.txt'], { input: EDITED });
  assert.equal(good.code, 0, good.stderr);
  assert.equal(repo.read('src/a.txt').toString(), EDITED);
});

scenario('fettle write: onFail stage stages the write, the output in its record and its text', FILES, (repo) => {
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: AGREE, onFail: 'stage' }]);
  const r = fettle(repo, ['write', 'src/a.txt'], { input: EDITED });
  assert.equal(r.code, 3, r.stderr);
  const id = /^Staged change ([0-9a-z]{8}): .*; staged because the command of policy rule agree .* failed\.$/m.exec(
    r.stdout,
  )?.[1];
  assert.ok(id, r.stdout);
  assert.match(r.stdout, /\nsrc\/a\.txt src\/b\.txt differ: /);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  assert.match(
    noteOf(repo, id),
    /ran `cmp src\/a\.txt src\/b\.txt` .* failed \(exit 1\)\. Its output:\nsrc\/a\.txt src\/b\.txt differ/,
  );
  assert.match(noteOf(repo, id), /^Fettle-Decided-By: policy:agree$/m);
});

scenario('fettle write --from: the set is checked whole, a {file} command once per file', FILES, (repo) => {
  const marker = join(repo.home, 'ran');
  writePolicy(repo, [
    { name: 'each', path: 'src/**', action: 'run', run: `echo {file} >> '${marker}'` },
    { name: 'agree', path: 'src/**', action: 'run', run: AGREE },
  ]);
  const one = fettle(repo, ['write', '--from', source(repo, { 'src/a.txt': EDITED }), 'src/a.txt']);
  assert.equal(one.code, 1, one.stdout);
  assert.match(one.stderr, /Policy rule agree .* failed \(exit 1\)\. Its output:\nsrc\/a\.txt src\/b\.txt differ/);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  const both = source(repo, { 'src/a.txt': EDITED, 'src/b.txt': EDITED });
  const r = fettle(repo, ['write', '--from', both, 'src/a.txt', 'src/b.txt']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(repo.read('src/b.txt').toString(), EDITED);
  assert.deepEqual(readFileSync(marker, 'utf8').split('\n'), ['src/a.txt', 'src/a.txt', 'src/b.txt', '']);
});

scenario('fettle write --from: onFail stage stages the whole set with the output', FILES, (repo) => {
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: AGREE, onFail: 'stage' }]);
  const r = fettle(repo, ['write', '--from', source(repo, { 'src/a.txt': EDITED }), 'src/a.txt']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /^Staged changeset [0-9a-z]{8}, because the command of policy rule agree .* failed:$/m);
  assert.match(r.stdout, /\nsrc\/a\.txt src\/b\.txt differ/);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
});

const contract = (repo: Repo, edits: unknown[]): string => {
  const file = join(repo.home, 'contract.json');
  writeFileSync(file, JSON.stringify({ version: 1, title: 'edit', scope: ['src/**'], edits }));
  return file;
};
const REPLACE = (file: string, to: string) => ({ op: 'replace', file, anchor: 'line 3\n', with: to });

scenario(
  'fettle apply: a failing command refuses the contract; onFail stage notes it in every change',
  FILES,
  (repo) => {
    writePolicy(repo, [
      { name: 'no-bad', path: 'src/**', action: 'run', run: NO_BAD },
      { name: 'agree', path: 'src/**', action: 'run', run: AGREE, onFail: 'stage' },
    ]);
    const bad = fettle(repo, ['apply', contract(repo, [REPLACE('src/a.txt', 'a bad line\n')])]);
    assert.equal(bad.code, 1, bad.stdout);
    assert.match(bad.stderr, /Policy rule no-bad .* failed \(exit 3\)\. Its output:\nfound bad in src\/a\.txt\n/);
    const failed = fettleRefs(repo);
    assert.equal(failed.length, 1, 'nothing staged: the failed attempt is all it adds');
    assert.match(repo.git('log', '-1', '--format=%B', failed[0] as string), /^Fettle-Kind: failed$/m);
    const one = fettle(repo, ['apply', contract(repo, [REPLACE('src/a.txt', 'line three\n')])]);
    assert.equal(one.code, 3, one.stderr);
    const [ref] = fettleRefs(repo).filter((r) => !failed.includes(r));
    assert.ok(ref);
    assert.match(
      repo.git('log', '-1', '--format=%B', ref),
      /Policy rule agree .* failed \(exit 1\)\. Its output:\nsrc\/a\.txt src\/b\.txt differ/,
    );
  },
);

const clients: McpClient[] = [];
after(async () => {
  for (const c of clients) if (c.child.exitCode === null) await c.close();
});

test('MCP fettle_write and fettle_write_files: a failing command blocks, a passing one writes', async () => {
  const repo = makeRepo(FILES);
  writePolicy(repo, [{ name: 'agree', path: 'src/**', action: 'run', run: AGREE }]);
  const c = startMcp({ cwd: repo.dir, env: repo.env });
  clients.push(c);
  await c.initialize('codex-mcp-client');
  const one = await c.call('fettle_write', { path: 'src/a.txt', content: EDITED });
  assert.equal(one.isError, true, one.text);
  assert.match(one.text, /Policy rule agree .* failed \(exit 1\)\. Its output:\nsrc\/a\.txt src\/b\.txt differ/);
  assert.equal(repo.read('src/a.txt').toString(), lines(20), 'nothing written');
  const files = [
    { path: 'src/a.txt', content: EDITED },
    { path: 'src/b.txt', content: EDITED },
  ];
  const both = await c.call('fettle_write_files', { files });
  assert.equal(both.isError, false, both.text);
  assert.equal(repo.read('src/a.txt').toString(), EDITED);
});
