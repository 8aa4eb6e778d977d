// Case `reads`: what re-reads cost the model through fettle_read (`fettle mcp`). A scripted session over this
// repository's own src/ (read from git, never from the work tree): every file read whole at an older commit, read
// again (unchanged), the tree moved to HEAD's src/ outside the agent and every file read again (a diff, or the file
// when the gate trips), then a few files written through fettle_write and read again. The same script runs on a
// second server with `full: true` on every read, which is what a read without fettle sends. Every answer is
// checked against the bytes on disk: an "unchanged" must be identical to what the session holds, a diff must
// turn what it holds into the file. Targets: >= 60 % fewer bytes on re-reads, 0 wrong answers. The read call's
// cost (median ms per call, in process) is reported beside the write call's. A share of the files goes through
// Claude Code's Read hook too (reads-claude.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { applyPatch } from 'diff';
import { baseEnv, CLI, fixtureEnv, git, TMP } from '../env.mjs';
import { opts, ROOT } from '../options.mjs';
import { log } from '../progress.mjs';
import { info, results } from '../results.mjs';
import { stats } from '../timing.mjs';
import { claudeReads, reportClaudeReads } from './reads-claude.mjs';

const BACK = 40;

/** src/'s files at a commit of the checkout, read with git in one cat-file (the work tree is not looked at). */
const srcAt = (commit) => {
  const names = git(ROOT, ['--no-optional-locks', 'ls-tree', '-r', '--name-only', commit, '--', 'src'])
    .split('\n')
    .filter((n) => n.endsWith('.ts'));
  const out = execFileSync('git', ['--no-optional-locks', 'cat-file', '--batch'], {
    cwd: ROOT,
    input: names.map((n) => `${commit}:${n}\n`).join(''),
    maxBuffer: 256 * 1024 * 1024,
  });
  const files = new Map();
  let at = 0;
  for (const name of names) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, eol).toString('latin1').split(' ')[2]);
    files.set(name, Buffer.from(out.subarray(eol + 1, eol + 1 + size)));
    at = eol + 1 + size + 1;
  }
  return files;
};

const putFiles = (repo, files) => {
  for (const [name, bytes] of files) {
    mkdirSync(dirname(join(repo, name)), { recursive: true });
    writeFileSync(join(repo, name), bytes);
  }
};

/** A minimal MCP client over the server's stdio: one JSON object per line each way. */
const mcp = (cwd) => {
  const child = spawn(process.execPath, [CLI, 'mcp'], { cwd, env: baseEnv });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const frame = JSON.parse(line);
    waiting.get(frame.id)?.(frame);
    waiting.delete(frame.id);
  });
  let next = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    init: () =>
      request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench' } }),
    call: async (name, args) => {
      const t0 = performance.now();
      const frame = await request('tools/call', { name, arguments: args });
      return { text: frame.result?.content?.[0]?.text ?? '', ms: performance.now() - t0 };
    },
    close: () => child.stdin.end(),
  };
};

/** The bytes a page answer shows, without its numbers: what the session now holds of a whole file. */
const pageBytes = (text) => {
  const body = text.split('\n').slice(1, -1);
  return body.map((l) => l.slice(l.indexOf('\t') + 1)).join('\n');
};

/** Whether an answer is right, and what the session holds after it. */
const check = (text, held, disk) => {
  const now = disk.toString('utf8');
  const asText = now.endsWith('\n') ? now.slice(0, -1) : now;
  if (/ unchanged since your read/.test(text) && !text.includes('\n')) return { ok: held === now, held };
  if (/ changed since your read at .*\n---/.test(text)) {
    const patched = applyPatch(held, text.slice(text.indexOf('\n') + 1));
    return { ok: patched === now, held: now };
  }
  const page = pageBytes(text.startsWith('[fettle:') ? text.slice(text.indexOf('\n') + 1) : text);
  return { ok: page === asText, held: now };
};

const session = async (repo, names, older, newer, full) => {
  const c = mcp(repo);
  await c.init();
  const held = new Map();
  const tally = {
    first: 0,
    unchanged: 0,
    moved: 0,
    written: 0,
    wrong: 0,
    readMs: { first: [], reread: [] },
    writeMs: [],
  };
  const read = async (name, kind) => {
    const r = await c.call('fettle_read', { path: name, ...(full ? { full: true } : {}) });
    const disk = readFileSync(join(repo, name));
    const v = check(r.text, held.get(name) ?? '', disk);
    if (!v.ok) tally.wrong++;
    held.set(name, v.held);
    tally[kind] += Buffer.byteLength(r.text);
    tally.readMs[kind === 'first' ? 'first' : 'reread'].push(r.ms);
  };
  putFiles(repo, older);
  for (const n of names) await read(n, 'first');
  for (const n of names) await read(n, 'unchanged');
  putFiles(repo, newer);
  for (const n of names) await read(n, 'moved');
  for (const n of names.slice(0, 8)) {
    const edited = `${readFileSync(join(repo, n), 'utf8')}// touched by the bench\n`;
    const w = await c.call('fettle_write', { path: n, content: edited });
    tally.writeMs.push(w.ms);
    // the session wrote these bytes: it holds them
    held.set(n, edited);
    await read(n, 'written');
  }
  c.close();
  await nextSession(repo, names, held, full, tally);
  return tally;
};

/**
 * A new session's first reads of the same files: the page, and with fettle the line (and diff) saying what changed
 * since the last session read it. A note of "unchanged" is right only when the file holds what that session held.
 */
const nextSession = async (repo, names, held, full, tally) => {
  const c = mcp(repo);
  await c.init();
  tally.next = 0;
  tally.notes = 0;
  for (const n of names) {
    const r = await c.call('fettle_read', { path: n, ...(full ? { full: true } : {}) });
    tally.next += Buffer.byteLength(r.text);
    const disk = readFileSync(join(repo, n), 'utf8');
    if (!r.text.startsWith('fettle: ')) continue;
    tally.notes++;
    const unchanged = / unchanged since session \S+ read it, /.test(r.text.split('\n')[0]);
    if (unchanged && held.get(n) !== disk) tally.wrong++;
  }
  c.close();
};

export const measureReads = async () => {
  const newerCommit = git(ROOT, ['--no-optional-locks', 'rev-parse', 'HEAD']).trim();
  const olderCommit = git(ROOT, ['--no-optional-locks', 'rev-parse', `HEAD~${BACK}`]).trim();
  const [older, newer] = [srcAt(olderCommit), srcAt(newerCommit)];
  // a file over a page (40,000 characters) is read in pages, which never move a baseline
  const fits = (n) => (older.get(n)?.length ?? 0) < 39_000 && (newer.get(n)?.length ?? 0) < 39_000;
  // every other file: a session of ~450 reads, a few minutes on a loaded machine
  const names = [...older.keys()]
    .filter((n) => newer.has(n) && fits(n))
    .filter((_, i) => i % 2 === 0)
    .slice(0, opts.quick ? 20 : undefined);
  log(`case reads: ${names.length} files of src/ at HEAD~${BACK} then HEAD, read and re-read through fettle_read`);
  const sides = [];
  for (const full of [false, true]) {
    const repo = join(TMP, full ? 'reads-plain' : 'reads-fettle');
    mkdirSync(repo);
    git(repo, ['init', '-q']);
    putFiles(repo, older);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'older'], { env: fixtureEnv });
    sides.push(await session(repo, names, older, newer, full));
  }
  const [withFettle, without] = sides;
  // Claude Code's Read hook: a process per event, so a share of the files (a few minutes on a loaded machine)
  const claudeNames = names.filter((_, i) => i % 3 === 0).slice(0, opts.quick ? 8 : 60);
  const claudeRepo = join(TMP, 'reads-claude');
  mkdirSync(claudeRepo);
  git(claudeRepo, ['init', '-q']);
  putFiles(claudeRepo, older);
  git(claudeRepo, ['add', '-A']);
  git(claudeRepo, ['commit', '-qm', 'older'], { env: fixtureEnv });
  log(`case reads: ${claudeNames.length} of them through Claude Code's Read hook`);
  reportClaudeReads(
    claudeReads(claudeRepo, claudeNames, (files) => putFiles(claudeRepo, files), newer),
    claudeNames.length,
  );
  for (const t of sides) t.reread = t.unchanged + t.moved + t.written;
  const saving = 1 - withFettle.reread / without.reread;
  const pct = (k) => `${Math.round(100 * (1 - withFettle[k] / without[k]))} %`;
  results.push({
    id: 'reads',
    name: `re-reads through fettle_read: bytes sent on ${names.length} files' re-reads, with fettle vs a plain read`,
    fettle: { median: withFettle.reread, unit: 'bytes' },
    baseline: { median: without.reread, unit: 'bytes' },
    ratio: withFettle.reread / without.reread,
    target: { op: '<=', value: 0.4 },
    met: opts.quick ? null : saving >= 0.6 && withFettle.wrong === 0 && without.wrong === 0,
    note: `${Math.round(saving * 100)} % fewer bytes on re-reads (about ${Math.round((without.reread - withFettle.reread) / 4)} tokens, an estimate: bytes / 4); first reads ${withFettle.first} vs ${without.first} bytes; wrong answers ${withFettle.wrong} and ${without.wrong}`,
  });
  info.push({
    id: 'reads-next-session',
    name: `case reads: a new session's first reads: ${withFettle.next} bytes vs ${without.next} (${withFettle.notes} with a line on what changed since the last session read them)`,
    median: withFettle.next,
    unit: 'bytes',
  });
  for (const [k, what] of [
    ['unchanged', 'unchanged files'],
    ['moved', `files moved from HEAD~${BACK} to HEAD outside the session`],
    ['written', 'files the session wrote through fettle_write'],
  ])
    info.push({
      id: `reads-${k}`,
      name: `case reads: re-reads of ${what}: ${withFettle[k]} bytes vs ${without[k]} (${pct(k)} fewer)`,
      median: withFettle[k],
      unit: 'bytes',
    });
  const ms = (xs) => stats(xs);
  info.push({ id: 'reads-first-ms', name: 'case reads: a first fettle_read call, ms', ...ms(withFettle.readMs.first) });
  info.push({
    id: 'reads-reread-ms',
    name: 'case reads: a re-read fettle_read call, ms',
    ...ms(withFettle.readMs.reread),
  });
  info.push({
    id: 'reads-plain-ms',
    name: 'case reads: a full: true fettle_read call, ms',
    ...ms(without.readMs.reread),
  });
  info.push({ id: 'reads-write-ms', name: 'case reads: a fettle_write call (direct), ms', ...ms(withFettle.writeMs) });
};
