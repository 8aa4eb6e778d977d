// fettle_read's re-reads through `fettle mcp` (the built CLI, a real repository): a session re-reading a file it
// was given is told it is unchanged, or shown the diff against what it read; its own writes through fettle_write
// move what it read; another session is never diffed against what only the first one saw.
// Tier: slow, real MCP server sessions (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../helpers/cli';
import { type McpClient, startMcp } from '../helpers/mcp';
import { lines, makeRepo, type Repo } from '../helpers/repo';

const clients: McpClient[] = [];
after(async () => {
  for (const c of clients) if (c.child.exitCode === null) await c.close();
});

const serve = async (repo: Repo) => {
  const c = startMcp({ cwd: repo.dir, env: repo.env });
  clients.push(c);
  await c.initialize('codex-mcp-client');
  return c;
};

const read = async (c: McpClient, args: Record<string, unknown>): Promise<string> => {
  const r = await c.call('fettle_read', args);
  assert.equal(r.isError, false, r.text);
  return r.text;
};

test('re-reads: unchanged, a diff after an outside change, nothing stale after a write, full on request', async () => {
  const repo = makeRepo({ 'src.ts': lines(100) });
  const c = await serve(repo);
  const file = join(repo.dir, 'src.ts');
  assert.match(await read(c, { path: 'src.ts' }), /^Lines 1-100 of 100 of .*src\.ts:\n {5}1\tline 1\n/);
  assert.match(await read(c, { path: 'src.ts' }), /^.*src\.ts unchanged since your read at \d\d:\d\d:\d\d UTC\.$/);
  assert.match(await read(c, { path: 'src.ts', offset: 10, limit: 5 }), /^lines 10-14 of .*src\.ts unchanged since/);
  writeFileSync(file, lines(100).replace('line 50\n', 'line fifty\n'));
  const diff = await read(c, { path: 'src.ts' });
  assert.match(diff, /src\.ts changed since your read at .*; 1 hunk, \+1 -1: line 50/);
  assert.match(diff, /\n-line 50\n\+line fifty\n/);
  assert.match(await read(c, { path: 'src.ts' }), /unchanged since your read/, 'the diff moved the baseline');
  const next = lines(100).replace('line 50\n', 'line fifty\n').replace('line 70\n', 'line seventy\n');
  const w = await c.call('fettle_write', { path: 'src.ts', content: next });
  assert.equal(w.isError, false, w.text);
  assert.match(await read(c, { path: 'src.ts' }), /unchanged since your read/, 'its own write is what it has seen');
  assert.match(await read(c, { path: 'src.ts', full: true }), /^Lines 1-100 of 100 .*\n {5}1\tline 1\n/);
  writeFileSync(file, lines(100, 'other'));
  assert.match(
    await read(c, { path: 'src.ts' }),
    /^\[fettle: sent in full, not as a diff: changed since your read at .*: 100 % of its lines changed .*\]\nLines 1-100/,
  );
  const other = await serve(repo);
  assert.match(
    await read(other, { path: 'src.ts' }),
    /^fettle: .*src\.ts unchanged since session \S+ read it, \d+ s ago\.\nLines 1-100 of 100 /,
    'a new session gets the file, and whether it changed since the last session read it',
  );
  const info = JSON.parse(runCli(['info', '--json'], { cwd: repo.dir, env: repo.env }).stdout) as {
    reads: { sessions: number; reads: number; answeredShort: number; plainBytes: number; sentBytes: number };
  };
  const { sessions, reads, answeredShort, plainBytes, sentBytes } = info.reads;
  assert.deepEqual({ sessions, reads, answeredShort }, { sessions: 2, reads: 9, answeredShort: 5 });
  assert.ok(sentBytes < plainBytes, JSON.stringify(info.reads));
  assert.match(
    runCli(['info'], { cwd: repo.dir, env: repo.env }).stdout,
    /Reads answered from what the session saw \(fettle_read, .*\): 9 in 2 sessions, 5 answered .*\n.*tokens saved \(an estimate: bytes \/ 4\)/,
  );
});

test('a partial read never moves the baseline, and a changed window is sent again', async () => {
  const repo = makeRepo({ 'src.ts': lines(100) });
  const c = await serve(repo);
  const file = join(repo.dir, 'src.ts');
  assert.match(await read(c, { path: 'src.ts', offset: 1, limit: 10 }), /^Lines 1-10 of 100 /);
  assert.match(await read(c, { path: 'src.ts', offset: 1, limit: 10 }), /^Lines 1-10 of 100 /, 'no baseline yet');
  await read(c, { path: 'src.ts' });
  writeFileSync(file, lines(100).replace('line 5\n', 'line five\n'));
  assert.match(await read(c, { path: 'src.ts', offset: 50, limit: 10 }), /^lines 50-59 of .* unchanged since/);
  assert.match(
    await read(c, { path: 'src.ts', offset: 1, limit: 10 }),
    /^\[fettle: sent in full, not as a diff: changed/,
  );
  assert.match(await read(c, { path: 'src.ts' }), /-line 5\n\+line five\n/, 'still diffed against the whole read');
});

test('what a session read of a private file is kept as private as the file', async () => {
  const repo = makeRepo({ 'secret.env': 'TOKEN=1\n' });
  chmodSync(join(repo.dir, 'secret.env'), 0o600);
  const c = await serve(repo);
  assert.match(await read(c, { path: 'secret.env' }), /^Lines 1-1 of 1 /);
  const packs = join(repo.dir, '.git', 'objects', 'pack');
  const written = readdirSync(packs).filter((f) => f.endsWith('.pack'));
  assert.ok(written.length > 0, 'the baseline is a blob in a pack');
  for (const f of written) assert.equal(statSync(join(packs, f)).mode & 0o044, 0, `${f} is readable by others`);
});

test('a path the policy ignores is read as a plain read: no baseline, never "unchanged"', async () => {
  const repo = makeRepo({ 'gen.ts': lines(20) });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: 'gen.ts', action: 'ignore' }] }));
  const c = await serve(repo);
  assert.match(await read(c, { path: 'gen.ts' }), /^Lines 1-20 of 20 /);
  assert.match(await read(c, { path: 'gen.ts' }), /^Lines 1-20 of 20 /, 'a re-read is the page again');
});

test("a new session's first read says what changed since another session read it; never with full, nor of an ignored path", async () => {
  const repo = makeRepo({ 'src.ts': lines(100), 'gen.ts': lines(20) });
  repo.write('.fettle/policy.json', JSON.stringify({ version: 1, rules: [{ path: 'gen.ts', action: 'ignore' }] }));
  const first = await serve(repo);
  await read(first, { path: 'src.ts', offset: 1, limit: 10 });
  const second = await serve(repo);
  assert.match(await read(second, { path: 'src.ts' }), /^Lines 1-100 /, 'a page is not a read of the file');
  writeFileSync(join(repo.dir, 'src.ts'), lines(100).replace('line 50\n', 'line fifty\n'));
  await read(first, { path: 'gen.ts' });
  const third = await serve(repo);
  assert.match(await read(third, { path: 'src.ts', full: true }), /^Lines 1-100 /, 'full: the page alone');
  writeFileSync(
    join(repo.dir, 'src.ts'),
    lines(100).replace('line 50\n', 'line fifty\n').replace('line 60\n', 'sixty\n'),
  );
  const fourth = await serve(repo);
  const note = await read(fourth, { path: 'src.ts' });
  assert.match(note, /^fettle: .*src\.ts changed since session \S+ read it, \d+ s ago: \+1 -1\. The diff against/);
  assert.match(note, /\n-line 60\n\+sixty\n(.*\n){3}Lines 1-100 of 100 /, 'against what the full read gave');
  assert.match(await read(fourth, { path: 'gen.ts' }), /^Lines 1-20 /, 'an ignored path has no note');
});
