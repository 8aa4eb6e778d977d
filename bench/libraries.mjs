#!/usr/bin/env node
// Measures the two git libraries fettle does not use (isomorphic-git, simple-git) against plain
// child_process + git, on fixtures built here, and checks the three it does use (commander, diff, nanoid):
// import cost, which of fettle's bundles holds them, jsdiff's cost and fettle's timeout + git fallback.
// Backs docs/DEPENDENCIES.md. Sections: snapshot timings (fresh node per run, alternating), a ref race,
// a linked-worktree check, simple-git behaviour checks, a bundle check, a jsdiff check.
//
//   node bench/libraries.mjs            full run (~20,000-file fixture, 15 runs per case)
//   node bench/libraries.mjs --quick    tiny fixtures, 2 runs (a smoke test of this script)
//   options: --runs N  --race-updates N  --json  --keep (leave the temp dir for inspection)
//   node bench/libraries.mjs --table-from saved.json   prints the table of a saved --json run
//
// Everything (npm install, npm cache, fixture repos, child scripts) lives in one temp dir that is removed at
// the end; the project's node_modules and package files are only read. Children get an environment without
// GIT_* variables and a HOME inside the temp dir, so the user's git config and hooks play no part.
// POSIX only (process groups, /proc for CPU and RSS on Linux). Node >= 20, git >= 2.28 (init -b).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = ['isomorphic-git@1.44.11', 'simple-git@4.0.2'];
const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..');

// ---------------------------------------------------------------------------------------------------------
// options

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(argv[i + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} needs a positive integer`);
  return value;
};
if (flag('--help') || flag('-h')) {
  console.log('usage: node bench/libraries.mjs [--quick] [--runs N] [--race-updates N] [--json] [--keep]\n       node bench/libraries.mjs --table-from <saved --json output>');
  process.exit(0);
}
const QUICK = flag('--quick');
const RUNS = option('--runs', QUICK ? 2 : 15);
const RACE_PROCS = 8;
const RACE_UPDATES = option('--race-updates', QUICK ? 5 : 15);
const SIMPLE_GIT_CALLS = QUICK ? 5 : 20;
const FIXTURES = QUICK
  ? { small: { dirs: 2, perDir: 5 }, big: { dirs: 10, perDir: 50 } }
  : { small: { dirs: 5, perDir: 10 }, big: { dirs: 200, perDir: 100 } };
const JSON_OUT = flag('--json');

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------------------------------------------------
// temp dir, environment, helpers

const TABLE_FROM = argv.includes('--table-from') ? argv[argv.indexOf('--table-from') + 1] : null;
const TMP = TABLE_FROM ? '' : mkdtempSync(join(tmpdir(), 'fettle-libbench-'));
const DEPS = join(TMP, 'deps');
const HOME = join(TMP, 'home');
/** Children still running; each leads its own process group, so its git processes can be stopped with it. */
const active = new Set();
let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  for (const child of active) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  if (!TMP) return;
  if (flag('--keep')) log(`kept ${TMP}`);
  else rmSync(TMP, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: stopping children and removing the temp dir`);
    cleanup();
    process.exit(130);
  });
}

/**
 * Runs a command to completion without blocking the event loop (so a signal can still clean up).
 * Returns exit code, stdout, stderr and the wall time from spawn to close.
 */
const run = (cmd, args, { cwd, input, stdin, env = ENV } = {}) =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: [stdin ?? 'pipe', 'pipe', 'pipe'] });
    active.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => {
      active.delete(child);
      reject(e);
    });
    child.on('close', (code) => {
      active.delete(child);
      resolve({ code, ms: Number(process.hrtime.bigint() - t) / 1e6, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() });
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    }
  });

/** The environment every child gets: no GIT_* (an inherited GIT_DIR would point git elsewhere), no NODE_OPTIONS. */
const ENV = (() => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^GIT_/i.test(k) || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env.HOME = HOME;
  env.XDG_CONFIG_HOME = join(HOME, '.config');
  env.LC_ALL = 'C';
  env.BENCH_CLK_TCK = String(Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100);
  return env;
})();

/** git in the fixtures; `ok` lists the accepted exit codes (null: any). */
const git = async (cwd, args, { input, stdin, ok = [0] } = {}) => {
  const r = await run('git', args, { cwd, input, stdin });
  if (ok && !ok.includes(r.code)) throw new Error(`git ${args.join(' ')} (in ${cwd}) exited ${r.code}: ${r.stderr}`);
  return { code: r.code, out: r.stdout.toString('utf8').trim(), raw: r.stdout, stderr: r.stderr };
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};
const stats = (xs) => ({
  n: xs.length,
  median: +median(xs).toFixed(1),
  p25: +quantile(xs, 0.25).toFixed(1),
  p75: +quantile(xs, 0.75).toFixed(1),
  min: +Math.min(...xs).toFixed(1),
  max: +Math.max(...xs).toFixed(1),
});

/** The bytes every snapshot stores (~2.5 KB); the parent recomputes them to check what was written. */
function snapshotContent(token) {
  return Buffer.from(`snapshot ${token}\n${'the quick brown fox jumps over the lazy dog 0123456789\n'.repeat(45)}`);
}

// ---------------------------------------------------------------------------------------------------------
// child programs: each is written to DEPS as a small .cjs (so require() finds the temp node_modules) and run
// as a fresh `node` process. They print one JSON line.

/**
 * Prints the result with this process's peak RSS and CPU time. On Linux the peak is VmHWM (ru_maxrss would
 * include the parent's size at fork) and the CPU time includes the git children already reaped (cutime/cstime).
 */
function out(value) {
  const fs = require('fs');
  const cpu = process.cpuUsage();
  let cpuMs = (cpu.user + cpu.system) / 1000;
  let rssKB = process.resourceUsage().maxRSS;
  try {
    rssKB = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    cpuMs += ((Number(fields[13]) + Number(fields[14])) * 1000) / Number(process.env.BENCH_CLK_TCK || 100);
  } catch {}
  fs.writeSync(1, `${JSON.stringify({ ...value, rssKB, cpuMs })}\n`);
}
function fail(error) {
  require('fs').writeSync(2, `${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
}

/** git through child_process.spawn; resolves stdout as text, rejects on a non-zero exit. */
function cpRunner(cwd, prefix) {
  const { spawn } = require('child_process');
  return (args, input) =>
    new Promise((resolve, reject) => {
      const child = spawn('git', [...(prefix || []), ...args], { cwd, stdio: 'pipe' });
      const o = [];
      const e = [];
      child.stdout.on('data', (c) => o.push(c));
      child.stderr.on('data', (c) => e.push(c));
      child.on('error', reject);
      child.stdin.on('error', () => undefined);
      child.on('close', (code) => {
        if (code === 0) resolve(Buffer.concat(o));
        else {
          const err = new Error(`git ${args[0]} exited ${code}: ${Buffer.concat(e).toString().trim()}`);
          err.exitCode = code;
          reject(err);
        }
      });
      child.stdin.end(input === undefined ? '' : input);
    });
}

/**
 * The text plumbing shared by the simple-git and child_process variants (12 git processes):
 * rev-parse, hash-object -w --stdin, ls-tree per level (4), mktree per level bottom-up (4), commit-tree,
 * update-ref <ref> <new> <zero> (create only if absent). `run(args, input)` returns stdout as text.
 */
async function textPlumbing(run, ref, path, token) {
  const head = (await run(['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  const blob = (await run(['hash-object', '-w', '--stdin'], snapshotContent(token))).trim();
  const segs = path.split('/');
  const dirs = segs.slice(0, -1);
  const levels = [];
  for (let d = 0; d <= dirs.length; d++) {
    const listing = await run(['ls-tree', '-z', `${head}:${dirs.slice(0, d).join('/')}`]);
    levels.push(listing.split('\0').filter(Boolean));
  }
  let child = `100644 blob ${blob}`;
  let tree = '';
  for (let d = dirs.length; d >= 0; d--) {
    const name = segs[d];
    const entries = levels[d].filter((l) => l.slice(l.indexOf('\t') + 1) !== name);
    entries.push(`${child}\t${name}`);
    tree = (await run(['mktree', '-z'], `${entries.join('\0')}\0`)).trim();
    child = `040000 tree ${tree}`;
  }
  const commit = (await run(['commit-tree', tree, '-p', head], 'snapshot\n')).trim();
  await run(['update-ref', ref, commit, '0'.repeat(40)]);
  return { blob, tree, commit };
}

function snapCp() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const raw = cpRunner(repo);
  const run = async (args, input) => (await raw(args, input)).toString('utf8');
  textPlumbing(run, ref, path, token).then(out, fail);
}

function snapSimpleGit() {
  const [repo, ref, path, token, mode] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  let pending;
  const options = { baseDir: repo, input: () => pending };
  if (mode === 'no-exit-wait') options.completion = { onExit: false };
  const sg = simpleGit(options);
  const run = async (args, input) => {
    pending = input;
    try {
      return await sg.raw(args);
    } finally {
      pending = undefined;
    }
  };
  textPlumbing(run, ref, path, token).then(out, fail);
}

function snapIso() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  (async () => {
    const dir = repo;
    const cache = {};
    const head = await git.resolveRef({ fs, dir, ref: 'HEAD' });
    const { commit } = await git.readCommit({ fs, dir, oid: head, cache });
    const blob = await git.writeBlob({ fs, dir, blob: snapshotContent(token) });
    const segs = path.split('/');
    const dirs = segs.slice(0, -1);
    const levels = [];
    let oid = commit.tree;
    for (let d = 0; d <= dirs.length; d++) {
      levels.push(oid ? (await git.readTree({ fs, dir, oid, cache })).tree : []);
      if (d < dirs.length) {
        const entry = levels[d].find((e) => e.path === dirs[d] && e.type === 'tree');
        oid = entry ? entry.oid : null;
      }
    }
    let child = { mode: '100644', type: 'blob', oid: blob };
    let tree = '';
    for (let d = dirs.length; d >= 0; d--) {
      const entries = levels[d].filter((e) => e.path !== segs[d]);
      entries.push({ ...child, path: segs[d] });
      tree = await git.writeTree({ fs, dir, tree: entries });
      child = { mode: '040000', type: 'tree', oid: tree };
    }
    const who = { name: 'bench', email: 'bench@example.invalid', timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    const c = await git.writeCommit({ fs, dir, commit: { message: 'snapshot\n', tree, parent: [head], author: who, committer: who } });
    await git.writeRef({ fs, dir, ref, value: c, force: false });
    return { blob, tree, commit: c };
  })().then(out, fail);
}

/**
 * fettle's own recipe (src/store/objects.ts, refs.ts), in plain JS: 6 git processes (rev-parse, hash-object,
 * one cat-file --batch for the trees along the path, one mktree --batch for all new trees whose ids are
 * computed in-process, commit-tree, update-ref --stdin), fettle's pinned -c options (src/store/git.ts,
 * including core.fsync) and its explicit fsync of the trees mktree wrote.
 */
function snapFettleRecipe() {
  const [repo, ref, path, token] = process.argv.slice(2);
  const { createHash } = require('crypto');
  const fs = require('fs');
  const { join } = require('path');
  const PINNED = [
    '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsync=loose-object,reference,index', '-c', 'core.fsyncMethod=fsync',
    '-c', 'commit.gpgSign=false', '-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false', '-c', 'gc.auto=0',
    '-c', 'maintenance.auto=false', '-c', 'advice.detachedHead=false',
  ];
  const run = cpRunner(repo, PINNED);
  const text = async (args, input) => (await run(args, input)).toString('utf8').trim();
  const parseTree = (raw) => {
    const entries = [];
    for (let i = 0; i < raw.length; ) {
      const sp = raw.indexOf(0x20, i);
      const nul = raw.indexOf(0, sp);
      entries.push({ mode: raw.subarray(i, sp).toString('latin1'), name: Buffer.from(raw.subarray(sp + 1, nul)), oid: raw.subarray(nul + 1, nul + 21).toString('hex') });
      i = nul + 21;
    }
    return entries;
  };
  const key = (e) => (e.mode === '40000' ? Buffer.concat([e.name, Buffer.from('/')]) : e.name);
  const encode = (entries) =>
    Buffer.concat(
      [...entries].sort((a, b) => Buffer.compare(key(a), key(b))).flatMap((e) => [Buffer.from(`${e.mode} `), e.name, Buffer.from([0]), Buffer.from(e.oid, 'hex')]),
    );
  (async () => {
    const head = await text(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
    const blob = await text(['hash-object', '-w', '--stdin'], snapshotContent(token));
    const segs = path.split('/');
    const specs = segs.map((_, d) => `${head}:${segs.slice(0, d).join('/')}`);
    const batch = await run(['cat-file', '--batch', '-z'], Buffer.concat(specs.map((s) => Buffer.from(`${s}\0`))));
    const levels = [];
    for (let i = 0, n = 0; n < specs.length; n++) {
      const eol = batch.indexOf(0x0a, i);
      const size = Number(batch.subarray(i, eol).toString().split(' ')[2]);
      levels.push(parseTree(batch.subarray(eol + 1, eol + 1 + size)));
      i = eol + 1 + size + 1;
    }
    const trees = [];
    let child = { mode: '100644', oid: blob };
    for (let d = segs.length - 1; d >= 0; d--) {
      const name = Buffer.from(segs[d]);
      const entries = levels[d].filter((e) => !e.name.equals(name));
      entries.push({ ...child, name });
      const body = encode(entries);
      const oid = createHash('sha1').update(`tree ${body.length}\0`).update(body).digest('hex');
      trees.push({ oid, entries });
      child = { mode: '40000', oid };
    }
    const input = Buffer.concat(
      trees.flatMap((t) => [
        ...t.entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.mode === '40000' ? 'tree' : 'blob'} ${e.oid}\t`), e.name, Buffer.from([0])])),
        Buffer.from([0]),
      ]),
    );
    const printed = (await text(['mktree', '-z', '--batch'], input)).split('\n');
    trees.forEach((t, i) => {
      if (printed[i] !== t.oid) throw new Error(`tree id mismatch ${printed[i]} != ${t.oid}`);
    });
    // fettle knows its common dir from locating the store; the fixtures are plain repositories
    const dirsToSync = new Set();
    for (const t of trees) {
      const dir = join(repo, '.git', 'objects', t.oid.slice(0, 2));
      try {
        const fd = fs.openSync(join(dir, t.oid.slice(2)), 'r');
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        dirsToSync.add(dir);
      } catch {}
    }
    for (const dir of dirsToSync) {
      const fd = fs.openSync(dir, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    const tree = trees[trees.length - 1].oid;
    const when = `@${Math.floor(Date.now() / 1000)} +0000`;
    const commit = await new Promise((resolve, reject) => {
      const { spawn } = require('child_process');
      const c = spawn('git', [...PINNED, 'commit-tree', '--no-gpg-sign', tree, '-p', head], {
        cwd: repo,
        env: { ...process.env, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
      });
      const o = [];
      c.stdout.on('data', (x) => o.push(x));
      c.on('close', (code) => (code === 0 ? resolve(Buffer.concat(o).toString().trim()) : reject(new Error(`commit-tree ${code}`))));
      c.stdin.end('snapshot\n');
    });
    await run(['update-ref', '-m', 'snapshot', '--stdin'], `create ${ref} ${commit}\n`);
    return { blob, tree, commit };
  })().then(out, fail);
}

function emptyScript() {
  out({});
}

function importOnly() {
  const target = process.argv[2];
  try {
    require(target);
    out({ loaded: 'require' });
  } catch (error) {
    if (error.code !== 'ERR_REQUIRE_ESM') fail(error);
    import(require('url').pathToFileURL(target).href).then(() => out({ loaded: 'import' }), fail);
  }
}

/** jsdiff as src/core/diff.ts calls it (structuredPatch, context 3, optional timeout), on generated texts. */
function diffTexts(lines, mode) {
  const { createHash } = require('crypto');
  const line = (tag, i) => createHash('sha256').update(`${tag}:${i}`).digest('hex');
  const a = [];
  const b = [];
  for (let i = 0; i < lines; i++) {
    a.push(line('old', i));
    b.push(mode === 'rewrite' || i % 100 === 50 ? line('new', i) : line('old', i));
  }
  return [`${a.join('\n')}\n`, `${b.join('\n')}\n`];
}

function jsdiffCase() {
  const [diffPath, lines, mode, timeout] = process.argv.slice(2);
  const { structuredPatch } = require(diffPath);
  const [a, b] = diffTexts(Number(lines), mode);
  const options = { context: 3 };
  if (timeout !== 'none') options.timeout = Number(timeout);
  const t = performance.now();
  const patch = structuredPatch('a', 'b', a, b, '', '', options);
  const ms = performance.now() - t;
  out({ ms: +ms.toFixed(1), result: patch ? `patch, ${patch.hunks.length} hunk(s)` : 'undefined (gave up)' });
}

/** The fallback of src/protocol/plan.ts: both sides into the object store, then `git diff <blob> <blob>`. */
function gitDiffCase() {
  const [repo, lines, mode] = process.argv.slice(2);
  const run = cpRunner(repo);
  const [a, b] = diffTexts(Number(lines), mode);
  (async () => {
    const t = performance.now();
    const oa = (await run(['hash-object', '-w', '--stdin'], a)).toString().trim();
    const ob = (await run(['hash-object', '-w', '--stdin'], b)).toString().trim();
    const patch = (await run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U3', oa, ob])).toString();
    return { ms: +(performance.now() - t).toFixed(1), result: `patch, ${patch.split('\n').filter((l) => l.startsWith('@@')).length} hunk(s)` };
  })().then(out, fail);
}

/** Race worker, isomorphic-git: read ref, write commit, re-check the ref, writeRef (its only guard). */
function raceIso() {
  const [repo, ref, tree, id, n] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  const dir = repo;
  process.stdout.write('ready\n');
  process.stdin.once('data', async () => {
    let landed = 0;
    let retries = 0;
    let errors = 0;
    const errorKinds = {};
    for (let attempt = 0; landed < Number(n) && attempt < 2000; attempt++) {
      try {
        const old = await git.resolveRef({ fs, dir, ref });
        const who = { name: 'bench', email: 'bench@example.invalid', timestamp: 1700000000 + attempt, timezoneOffset: 0 };
        const c = await git.writeCommit({ fs, dir, commit: { message: `w${id} u${landed} a${attempt}\n`, tree, parent: [old], author: who, committer: who } });
        const now = await git.resolveRef({ fs, dir, ref });
        if (now !== old) {
          retries++;
          continue;
        }
        await git.writeRef({ fs, dir, ref, value: c, force: true });
        landed++;
      } catch (error) {
        errors++; // e.g. a ref file read while another process was rewriting it
        const kind = error.code || error.name || 'Error';
        errorKinds[kind] = (errorKinds[kind] || 0) + 1;
      }
    }
    out({ landed, retries, errors, errorKinds });
    process.exit(0);
  });
}

/** Race worker, git CLI: rev-parse, commit-tree, `update-ref <ref> <new> <old>`; a failed CAS is retried. */
function raceGit() {
  const [repo, ref, tree, id, n] = process.argv.slice(2);
  const run = cpRunner(repo);
  const text = async (args, input) => (await run(args, input)).toString('utf8').trim();
  process.stdout.write('ready\n');
  process.stdin.once('data', async () => {
    let landed = 0;
    let retries = 0;
    let errors = 0;
    for (let attempt = 0; landed < Number(n) && attempt < 2000; attempt++) {
      try {
        const old = await text(['rev-parse', '--verify', ref]);
        const c = await text(['commit-tree', tree, '-p', old], `w${id} u${landed} a${attempt}\n`);
        try {
          await run(['update-ref', ref, c, old]);
          landed++;
        } catch {
          retries++;
        }
      } catch {
        errors++;
      }
    }
    out({ landed, retries, errors });
    process.exit(0);
  });
}

/** Linked worktree, isomorphic-git side. Prints what it resolved and wrote; the parent asks git what it sees. */
function worktreeIso() {
  const [wt, commonDir, ref] = process.argv.slice(2);
  const git = require('isomorphic-git');
  const fs = require('fs');
  const attempt = async (f) => {
    try {
      return { ok: true, value: await f() };
    } catch (error) {
      return { ok: false, error: `${error.code || error.name}: ${String(error.message).split('\n')[0].slice(0, 120)}` };
    }
  };
  (async () => {
    const r = {};
    r.resolveHead = await attempt(() => git.resolveRef({ fs, dir: wt, ref: 'HEAD' }));
    r.readCommitHead = await attempt(async () => (await git.readCommit({ fs, dir: wt, oid: r.resolveHead.value })).oid);
    r.resolveMain = await attempt(() => git.resolveRef({ fs, dir: wt, ref: 'refs/heads/main' }));
    r.writeBlob = await attempt(() => git.writeBlob({ fs, dir: wt, blob: Buffer.from('written from a linked worktree\n') }));
    r.writeRef = await attempt(() => git.writeRef({ fs, dir: wt, ref, value: r.resolveMain.ok ? r.resolveMain.value : r.resolveHead.value, force: true }));
    // the usual workaround: point gitdir at the common dir
    r.commonResolveHead = await attempt(() => git.resolveRef({ fs, dir: wt, gitdir: commonDir, ref: 'HEAD' }));
    return r;
  })().then(out, fail);
}

/** Linked worktree, simple-git side (control): update-ref through simple-git. */
function worktreeSimpleGit() {
  const [wt, ref, oid] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  simpleGit({ baseDir: wt, completion: { onExit: false } })
    .raw(['update-ref', ref, oid])
    .then(() => out({ ok: true }), fail);
}

/** simple-git behaviour checks, in one process: per-call cost, env scrubbing, blocked -c, error detection. */
function simpleGitChecks() {
  const [repo, head, n, idx] = process.argv.slice(2);
  const { simpleGit } = require('simple-git');
  const cp = cpRunner(repo);
  const attempt = async (f) => {
    try {
      return { ok: true, value: String(await f()).trim().slice(0, 160) };
    } catch (error) {
      return { ok: false, error: String(error.message).split('\n')[0].slice(0, 160) };
    }
  };
  (async () => {
    const r = {};
    const sg = simpleGit({ baseDir: repo });
    const sgNoExit = simpleGit({ baseDir: repo, completion: { onExit: false } });
    const time = async (f) => {
      const xs = [];
      await f(); // warm-up
      for (let i = 0; i < Number(n); i++) {
        const t = performance.now();
        await f();
        xs.push(performance.now() - t);
      }
      xs.sort((a, b) => a - b);
      return +xs[xs.length >> 1].toFixed(1);
    };
    r.perCallMs = {
      cpRevParse: await time(() => cp(['rev-parse', 'HEAD'])),
      cpUpdateRef: await time(() => cp(['update-ref', 'refs/bench/calls', head])),
      sgRevParse: await time(() => sg.raw(['rev-parse', 'HEAD'])),
      sgUpdateRef: await time(() => sg.raw(['update-ref', 'refs/bench/calls', head])),
      sgNoExitUpdateRef: await time(() => sgNoExit.raw(['update-ref', 'refs/bench/calls', head])),
    };
    // ambient environment: GIT_AUTHOR_NAME set in this process
    process.env.GIT_AUTHOR_NAME = 'ambient-author';
    r.ambientEnv = {
      cp: (await cp(['var', 'GIT_AUTHOR_IDENT'])).toString().includes('ambient-author'),
      sg: (await sg.raw(['var', 'GIT_AUTHOR_IDENT'])).includes('ambient-author'),
    };
    delete process.env.GIT_AUTHOR_NAME;
    // a temporary index through GIT_INDEX_FILE (what a temp-index snapshot needs)
    r.indexFileEnv = {
      default: await attempt(() => simpleGit({ baseDir: repo }).env('GIT_INDEX_FILE', idx).raw(['rev-parse', '--git-path', 'index'])),
      allowEnvironment: await attempt(() =>
        simpleGit({ baseDir: repo, allowEnvironment: ['GIT_INDEX_FILE'] }).env('GIT_INDEX_FILE', idx).raw(['rev-parse', '--git-path', 'index']),
      ),
    };
    // hooks off for one command, as fettle runs every command
    r.hooksPathOff = {
      default: await attempt(() => sg.raw(['-c', 'core.hooksPath=/dev/null', 'rev-parse', 'HEAD'])),
      allowUnsafeHooksPath: await attempt(() =>
        simpleGit({ baseDir: repo, unsafe: { allowUnsafeHooksPath: true } }).raw(['-c', 'core.hooksPath=/dev/null', 'rev-parse', 'HEAD']),
      ),
    };
    // a non-zero exit with nothing on stderr
    const missing = await cp(['rev-parse', '--verify', '-q', 'refs/bench/missing']).then(() => 0, (e) => e.exitCode);
    r.silentFailure = { gitExitCode: missing, sg: await attempt(() => sg.raw(['rev-parse', '--verify', '-q', 'refs/bench/missing'])) };
    return r;
  })().then(
    (r) => {
      out(r);
      process.exit(0);
    },
    fail,
  );
}

const HELPERS = [snapshotContent, out, fail, cpRunner, textPlumbing, diffTexts];
const CHILDREN = {
  snapCp,
  snapSimpleGit,
  snapIso,
  snapFettleRecipe,
  emptyScript,
  importOnly,
  jsdiffCase,
  gitDiffCase,
  raceIso,
  raceGit,
  worktreeIso,
  worktreeSimpleGit,
  simpleGitChecks,
};
const script = (name) => join(DEPS, `${name}.cjs`);
const writeChildren = () => {
  const helpers = HELPERS.map((f) => f.toString()).join('\n');
  for (const [name, fn] of Object.entries(CHILDREN)) writeFileSync(script(name), `'use strict';\n${helpers}\n(${fn.toString()})();\n`);
};

/** Runs a child to completion; returns wall time (ms, spawn to exit, as a hook caller sees it) and its JSON. */
const runNode = async (args) => {
  const r = await run(process.execPath, args, { cwd: DEPS });
  if (r.code !== 0) throw new Error(`node ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  const line = r.stdout.toString().trim().split('\n').pop();
  return { ms: r.ms, result: line ? JSON.parse(line) : {} };
};

// ---------------------------------------------------------------------------------------------------------
// fixtures

const pad = (n, w) => String(n).padStart(w, '0');
const fileContent = (i) => {
  const lines = [];
  for (let j = 0; j < 48; j++) lines.push(createHash('sha256').update(`fettle-bench:${i}:${j}`).digest('hex'));
  return Buffer.from(`${lines.join('\n')}\n`);
};

/** One commit on main with dirs × perDir files (pkg/dNNN/sub/fNNNNN.txt, ~3 KB each), then gc into one pack. */
const buildRepo = async (dir, { dirs, perDir }) => {
  mkdirSync(dir, { recursive: true });
  await git(dir, ['init', '-q', '-b', 'main']);
  for (const [k, v] of [['user.name', 'bench'], ['user.email', 'bench@example.invalid'], ['gc.auto', '0']]) await git(dir, ['config', k, v]);
  // the fast-import stream goes through a file so this process stays small (children inherit nothing big)
  const streamPath = `${dir}.fast-import`;
  const fd = openSync(streamPath, 'w');
  const put = (x) => writeSync(fd, x);
  const msg = 'fixture\n';
  put(`commit refs/heads/main\nauthor bench <bench@example.invalid> 1700000000 +0000\ncommitter bench <bench@example.invalid> 1700000000 +0000\ndata ${msg.length}\n${msg}`);
  const readme = Buffer.from('fixture repository for bench/libraries.mjs\n');
  put(`M 100644 inline README.md\ndata ${readme.length}\n`);
  put(readme);
  put('\n');
  let i = 0;
  for (let d = 0; d < dirs; d++) {
    for (let f = 0; f < perDir; f++, i++) {
      const body = fileContent(i);
      put(`M 100644 inline pkg/d${pad(d, 3)}/sub/f${pad(i, 5)}.txt\ndata ${body.length}\n`);
      put(body);
      put('\n');
    }
  }
  put('done\n');
  closeSync(fd);
  const stream = openSync(streamPath, 'r');
  try {
    await git(dir, ['fast-import', '--quiet', '--done'], { stdin: stream });
  } finally {
    closeSync(stream);
    rmSync(streamPath);
  }
  await git(dir, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  await git(dir, ['gc', '-q']);
  const packDir = join(dir, '.git', 'objects', 'pack');
  const packs = readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  return {
    path: dir,
    files: i + 1,
    packs: packs.length,
    packBytes: packs.reduce((s, f) => s + statSync(join(packDir, f)).size, 0),
    head: (await git(dir, ['rev-parse', 'HEAD'])).out,
    tree: (await git(dir, ['rev-parse', 'HEAD^{tree}'])).out,
    snapshotDir: `pkg/d${pad(Math.floor(dirs / 2), 3)}/sub`,
  };
};

// ---------------------------------------------------------------------------------------------------------
// measurements

const VARIANTS = {
  iso: { label: 'isomorphic-git', args: (r, ref, p, tok) => [script('snapIso'), r, ref, p, tok] },
  sg: { label: 'simple-git .raw(), defaults', args: (r, ref, p, tok) => [script('snapSimpleGit'), r, ref, p, tok, 'default'] },
  sgNoExit: { label: 'simple-git .raw(), completion.onExit=false', args: (r, ref, p, tok) => [script('snapSimpleGit'), r, ref, p, tok, 'no-exit-wait'] },
  cp: { label: 'child_process, same 12 git calls', args: (r, ref, p, tok) => [script('snapCp'), r, ref, p, tok] },
  fettle: { label: "child_process, fettle's 6-call recipe", args: (r, ref, p, tok) => [script('snapFettleRecipe'), r, ref, p, tok] },
};

/** Case key -> samples of wall ms, CPU ms and peak RSS KB. */
const measureProcesses = async (repos, imports) => {
  const samples = {};
  const add = (key, ms, result) => {
    const s = (samples[key] ??= { wall: [], cpu: [], rss: [] });
    s.wall.push(ms);
    if (result.cpuMs !== undefined) s.cpu.push(result.cpuMs);
    if (result.rssKB !== undefined) s.rss.push(result.rssKB);
  };
  const written = []; // {repo, variant, ref, commit, tree, blob, path, token}
  const loadedWith = {}; // import case -> 'require' or 'import'
  // warm-up and equivalence: every variant writes the same file; all must produce the same tree
  const equivalence = {};
  for (const [repo, fx] of Object.entries(repos)) {
    equivalence[repo] = {};
    for (const [v, spec] of Object.entries(VARIANTS)) {
      const path = `${fx.snapshotDir}/same-for-all.txt`;
      const ref = `refs/fettle/bench/${v}/warm`;
      const { result } = await runNode(spec.args(fx.path, ref, path, 'same'));
      equivalence[repo][v] = result.tree;
      written.push({ repo, variant: v, ref, path, token: 'same', ...result });
    }
  }
  await runNode(['-e', '0']);
  for (const p of Object.values(imports)) await runNode([script('importOnly'), p]);
  // measured rounds: each round runs every case once, in an order rotated by one per round
  const cases = [
    { key: 'floor', args: () => ['-e', '0'] },
    { key: 'empty', args: () => [script('emptyScript')] },
    ...Object.entries(imports).map(([name, p]) => ({ key: `import:${name}`, args: () => [script('importOnly'), p] })),
    ...Object.entries(repos).flatMap(([repo, fx]) =>
      Object.entries(VARIANTS).map(([v, spec]) => ({
        key: `snapshot:${repo}:${v}`,
        args: (round) => spec.args(fx.path, `refs/fettle/bench/${v}/${round}`, `${fx.snapshotDir}/snap-${v}-${round}.txt`, `${v}-${round}`),
        record: (round, result) =>
          written.push({ repo, variant: v, ref: `refs/fettle/bench/${v}/${round}`, path: `${fx.snapshotDir}/snap-${v}-${round}.txt`, token: `${v}-${round}`, ...result }),
      })),
    ),
  ];
  for (let round = 0; round < RUNS; round++) {
    log(`round ${round + 1}/${RUNS} (load ${loadavg()[0].toFixed(2)})`);
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(i + round) % cases.length];
      const { ms, result } = await runNode(c.args(round));
      add(c.key, ms, result);
      c.record?.(round, result);
      if (result.loaded) loadedWith[c.key.slice('import:'.length)] = result.loaded;
    }
  }
  return { samples, written, equivalence, loadedWith };
};

/** Every snapshot: ref points at its commit, whose parent is HEAD and whose file holds the expected bytes. */
const validate = async (repos, written) => {
  const problems = [];
  for (const [repo, fx] of Object.entries(repos)) {
    const mine = written.filter((w) => w.repo === repo);
    const refs = new Map(
      (await git(fx.path, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/fettle/bench/'])).out.split('\n').filter(Boolean).map((l) => l.split(' ')),
    );
    const specs = mine.flatMap((w) => [`${w.commit}^`, `${w.commit}:${w.path}`]);
    const batch = (await git(fx.path, ['cat-file', '--batch'], { input: `${specs.join('\n')}\n` })).raw;
    let i = 0;
    const next = () => {
      const eol = batch.indexOf(0x0a, i);
      const [oid, type, size] = batch.subarray(i, eol).toString().split(' ');
      const body = batch.subarray(eol + 1, eol + 1 + Number(size));
      i = eol + 1 + Number(size) + 1;
      return { oid, type, body };
    };
    for (const w of mine) {
      const parent = next();
      const file = next();
      if (refs.get(w.ref) !== w.commit) problems.push(`${repo} ${w.ref}: ref is ${refs.get(w.ref)}, expected ${w.commit}`);
      if (parent.oid !== fx.head) problems.push(`${repo} ${w.variant}: parent ${parent.oid} is not HEAD`);
      if (!file.body.equals(snapshotContent(w.token))) problems.push(`${repo} ${w.variant}: ${w.path} has the wrong content`);
    }
    const fsck = await git(fx.path, ['fsck', '--no-progress', '--no-dangling'], { ok: null });
    if (fsck.code !== 0) problems.push(`${repo}: git fsck failed: ${fsck.stderr.trim().slice(0, 300)}`);
  }
  return problems;
};

const race = async (fx, kind) => {
  const ref = `refs/fettle/race/${kind}`;
  const root = (await git(fx.path, ['commit-tree', fx.tree], { input: 'race root\n' })).out;
  await git(fx.path, ['update-ref', ref, root]);
  const children = [];
  for (let id = 0; id < RACE_PROCS; id++) {
    const child = spawn(process.execPath, [script(kind === 'iso' ? 'raceIso' : 'raceGit'), fx.path, ref, fx.tree, String(id), String(RACE_UPDATES)], {
      cwd: DEPS,
      env: ENV,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    active.add(child);
    child.on('close', () => active.delete(child));
    let stdout = '';
    let stderr = '';
    const ready = new Promise((resolve) => {
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.includes('ready\n')) resolve();
      });
    });
    child.stderr.on('data', (c) => (stderr += c));
    const done = new Promise((resolve, reject) =>
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').pop())) : reject(new Error(`race ${kind} child ${code}: ${stderr}`)))),
    );
    children.push({ child, ready, done });
  }
  await Promise.all(children.map((c) => c.ready));
  const t = performance.now();
  for (const c of children) c.child.stdin.end('go\n');
  const results = await Promise.all(children.map((c) => c.done));
  const wallMs = performance.now() - t;
  const survived = Number((await git(fx.path, ['rev-list', '--count', `${root}..${ref}`])).out);
  return {
    processes: RACE_PROCS,
    updatesEach: RACE_UPDATES,
    attempted: RACE_PROCS * RACE_UPDATES,
    reportedLanded: results.reduce((s, r) => s + r.landed, 0),
    survived,
    lost: RACE_PROCS * RACE_UPDATES - survived,
    retries: results.reduce((s, r) => s + r.retries, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    errorKinds: results.reduce((acc, r) => {
      for (const [k, v] of Object.entries(r.errorKinds || {})) acc[k] = (acc[k] || 0) + v;
      return acc;
    }, {}),
    wallMs: Math.round(wallMs),
  };
};

const worktreeCheck = async (fx) => {
  const wt = join(TMP, 'linked-wt');
  await git(fx.path, ['worktree', 'add', '-q', '--detach', wt, 'HEAD']);
  await git(wt, ['commit', '-q', '--allow-empty', '-m', 'commit made in the linked worktree']);
  const wtHead = (await git(wt, ['rev-parse', 'HEAD'])).out;
  const mainHead = (await git(fx.path, ['rev-parse', 'HEAD'])).out;
  const commonDir = join(fx.path, '.git');
  const isoRef = 'refs/fettle/wt/iso';
  const { result: iso } = await runNode([script('worktreeIso'), wt, commonDir, isoRef]);
  const seen = async (ref) => (await git(fx.path, ['for-each-ref', '--format=%(objectname)', ref])).out !== '';
  const hasObject = async (oid) => (await git(fx.path, ['cat-file', '-e', oid], { ok: [0, 1, 128] })).code === 0;
  await git(wt, ['update-ref', 'refs/fettle/wt/git', wtHead]);
  await runNode([script('worktreeSimpleGit'), wt, 'refs/fettle/wt/sg', wtHead]);
  const privateDir = join(commonDir, 'worktrees', 'linked-wt');
  const r = {
    gitHeadInWorktree: wtHead,
    iso: {
      resolveHead: iso.resolveHead.ok ? (iso.resolveHead.value === wtHead ? 'ok (the worktree HEAD)' : `wrong: ${iso.resolveHead.value}`) : iso.resolveHead.error,
      readCommitOfHead: iso.readCommitHead.ok ? 'ok' : iso.readCommitHead.error,
      resolveBranchMain: iso.resolveMain.ok ? 'ok' : iso.resolveMain.error,
      writeRef: iso.writeRef.ok ? 'returned ok' : iso.writeRef.error,
      refSeenByForEachRefInMainRepo: await seen(isoRef),
      refFileWrittenUnder: existsSync(join(privateDir, isoRef)) ? '.git/worktrees/<name>/ (per-worktree dir)' : existsSync(join(commonDir, isoRef)) ? '.git/ (common dir)' : 'nowhere found',
      writeBlob: iso.writeBlob.ok ? 'returned ok' : iso.writeBlob.error,
      blobSeenByGit: iso.writeBlob.ok ? await hasObject(iso.writeBlob.value) : null,
      blobFileWrittenUnder: iso.writeBlob.ok
        ? existsSync(join(privateDir, 'objects', iso.writeBlob.value.slice(0, 2), iso.writeBlob.value.slice(2)))
          ? '.git/worktrees/<name>/objects'
          : existsSync(join(commonDir, 'objects', iso.writeBlob.value.slice(0, 2), iso.writeBlob.value.slice(2)))
            ? '.git/objects'
            : 'nowhere found'
        : null,
      withGitdirCommonDir_resolveHead: iso.commonResolveHead.ok
        ? iso.commonResolveHead.value === wtHead
          ? 'the worktree HEAD'
          : iso.commonResolveHead.value === mainHead
            ? "the MAIN worktree's HEAD (not this worktree's)"
            : iso.commonResolveHead.value
        : iso.commonResolveHead.error,
    },
    gitCliRefSeen: await seen('refs/fettle/wt/git'),
    simpleGitRefSeen: await seen('refs/fettle/wt/sg'),
  };
  await git(fx.path, ['worktree', 'remove', '--force', wt]);
  r.iso.afterWorktreeRemove = {
    perWorktreeDirExists: existsSync(privateDir),
    isoRefSeen: await seen(isoRef),
    gitCliRefSeen: await seen('refs/fettle/wt/git'),
  };
  return r;
};

/** Which packages each of fettle's two bundles contains, built in memory the way scripts/build.mjs builds them. */
const bundleCheck = async () => {
  let esbuild;
  try {
    esbuild = createRequire(join(PROJECT, 'package.json'))('esbuild');
  } catch {
    log('esbuild is not installed in the project (run npm ci); skipping the bundle check');
    return null;
  }
  const common = { absWorkingDir: PROJECT, bundle: true, platform: 'node', target: 'node20', format: 'cjs', write: false, metafile: true, logLevel: 'silent' };
  const packages = (meta) =>
    [
      ...new Set(
        Object.keys(meta.inputs)
          .filter((f) => f.includes('node_modules/'))
          .map((f) => {
            const parts = f.split('node_modules/').pop().split('/');
            return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
          }),
      ),
    ].sort();
  const describe = (r) => ({ packages: packages(r.metafile), bytes: r.outputFiles[0].contents.length });
  return {
    hook: describe(await esbuild.build({ ...common, entryPoints: ['src/cli.ts'], external: ['./commands.js'] })),
    commands: describe(await esbuild.build({ ...common, entryPoints: ['src/commands/index.ts'] })),
  };
};

/** jsdiff's cost on full rewrites, fettle's timeout, and the git fallback; one fresh process per case. */
const jsdiffCheck = async (diffPath, repo) => {
  const timeout = Number(/DIFF_TIMEOUT_MS = (\d+)/.exec(readFileSync(join(PROJECT, 'src', 'core', 'diff.ts'), 'utf8'))?.[1] ?? 300);
  const sizes = QUICK ? [250, 500, 1000] : [1000, 2000, 4000];
  const big = QUICK ? 4000 : 20000;
  const cases = [
    ...sizes.map((n) => ({ lines: n, mode: 'rewrite', timeout: 'none' })),
    { lines: sizes[sizes.length - 1], mode: 'onepercent', timeout: 'none' },
    { lines: big, mode: 'onepercent', timeout: 'none' },
    { lines: big, mode: 'rewrite', timeout: String(timeout) },
  ];
  const rows = [];
  for (const c of cases) {
    const { ms, result } = await runNode([script('jsdiffCase'), diffPath, String(c.lines), c.mode, c.timeout]);
    rows.push({ tool: 'jsdiff structuredPatch', ...c, inProcessMs: result.ms, processMs: Math.round(ms), result: result.result });
  }
  for (const mode of ['rewrite', 'onepercent']) {
    const { ms, result } = await runNode([script('gitDiffCase'), repo, String(big), mode]);
    rows.push({ tool: 'git hash-object x2 + git diff', lines: big, mode, timeout: 'none', inProcessMs: result.ms, processMs: Math.round(ms), result: result.result });
  }
  return { fettleTimeoutMs: timeout, rows };
};

// ---------------------------------------------------------------------------------------------------------
// main

const main = async () => {
  const started = performance.now();
  const loadBefore = loadavg().map((x) => +x.toFixed(2));
  mkdirSync(DEPS, { recursive: true });
  mkdirSync(join(HOME, '.config'), { recursive: true });
  writeFileSync(join(DEPS, 'package.json'), '{"name":"fettle-libbench","private":true}\n');

  log(`installing ${PACKAGES.join(' ')} into the temp dir`);
  // npm keeps the user's own environment (registry, proxy settings); its cache and logs go to the temp dir
  const npm = await run(
    'npm',
    ['install', '--prefix', DEPS, '--no-save', '--no-audit', '--no-fund', '--no-update-notifier', '--cache', join(TMP, 'npm-cache'), ...PACKAGES],
    { cwd: DEPS, env: process.env },
  );
  if (npm.code !== 0) throw new Error(`npm install failed: ${npm.stderr}`);
  const depReq = createRequire(join(DEPS, 'package.json'));
  const installed = Object.fromEntries(
    ['isomorphic-git', 'simple-git'].map((p) => [p, JSON.parse(readFileSync(join(DEPS, 'node_modules', p, 'package.json'), 'utf8')).version]),
  );
  writeChildren();

  log('building fixtures');
  const t0 = performance.now();
  const repos = { small: await buildRepo(join(TMP, 'small'), FIXTURES.small), big: await buildRepo(join(TMP, 'big'), FIXTURES.big) };
  const fixtureMs = Math.round(performance.now() - t0);

  const projReq = createRequire(join(PROJECT, 'package.json'));
  const imports = { 'isomorphic-git': depReq.resolve('isomorphic-git'), 'simple-git': depReq.resolve('simple-git') };
  for (const p of ['commander', 'diff', 'nanoid']) {
    try {
      imports[p] = projReq.resolve(p);
    } catch {
      log(`${p} is not installed in the project (run npm ci); skipping its import cost`);
    }
  }
  const projectVersions = {};
  for (const p of ['commander', 'diff', 'nanoid']) {
    if (imports[p]) {
      let dir = dirname(imports[p]);
      while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== p) dir = dirname(dir);
      projectVersions[p] = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    }
  }

  log(`process timings: ${RUNS} rounds`);
  const { samples, written, equivalence, loadedWith } = await measureProcesses(repos, imports);
  const problems = await validate(repos, written);
  const looseAfter = {};
  for (const [k, fx] of Object.entries(repos)) looseAfter[k] = Number(/count: (\d+)/.exec((await git(fx.path, ['count-objects', '-v'])).out)[1]);

  log('race check');
  const raceRepo = await buildRepo(join(TMP, 'race'), { dirs: 1, perDir: 3 });
  const raceResult = { iso: await race(raceRepo, 'iso'), gitUpdateRef: await race(raceRepo, 'git') };

  log('linked worktree check');
  const worktree = await worktreeCheck(repos.small);

  log('bundle check');
  const bundles = await bundleCheck();

  log('jsdiff check');
  const jsdiff = imports.diff ? await jsdiffCheck(imports.diff, repos.small.path) : null;

  log('simple-git checks');
  const { result: sgChecks } = await runNode([script('simpleGitChecks'), repos.small.path, repos.small.head, String(SIMPLE_GIT_CALLS), join(TMP, 'tmp-index')]);
  delete sgChecks.rssKB;
  delete sgChecks.cpuMs;
  const simpleGitChecked = JSON.parse(JSON.stringify(sgChecks).split(TMP).join('<tmp>'));

  const summary = (s) => ({
    wallMs: stats(s.wall),
    cpuMs: s.cpu.length ? stats(s.cpu) : null,
    peakRssMB: s.rss.length ? Math.round(median(s.rss) / 1024) : null,
  });
  const report = {
    mode: QUICK ? 'quick' : 'full',
    runs: RUNS,
    environment: {
      node: process.version,
      git: (await git(TMP, ['--version'])).out,
      platform: `${process.platform} ${process.arch}`,
      cpus: cpus().length,
      loadavgAtStart: loadBefore,
      loadavgAtEnd: loadavg().map((x) => +x.toFixed(2)),
      packages: installed,
      projectPackages: projectVersions,
    },
    fixtures: Object.fromEntries(
      Object.entries({ ...repos, race: raceRepo }).map(([k, fx]) => [k, { files: fx.files, packs: fx.packs, packMB: +(fx.packBytes / 1048576).toFixed(1) }]),
    ),
    fixtureBuildMs: fixtureMs,
    processes: {
      floor: summary(samples.floor),
      emptyScript: summary(samples.empty),
      import: Object.fromEntries(Object.keys(imports).map((k) => [k, { ...summary(samples[`import:${k}`]), loadedWith: loadedWith[k] }])),
      snapshot: Object.fromEntries(
        Object.keys(repos).map((repo) => [repo, Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, summary(samples[`snapshot:${repo}:${v}`])]))]),
      ),
    },
    variants: Object.fromEntries(Object.entries(VARIANTS).map(([k, v]) => [k, v.label])),
    sameTreeFromAllVariants: Object.fromEntries(Object.entries(equivalence).map(([repo, t]) => [repo, new Set(Object.values(t)).size === 1])),
    validationProblems: problems,
    looseObjectsAfterRuns: looseAfter,
    race: raceResult,
    linkedWorktree: worktree,
    simpleGit: simpleGitChecked,
    jsdiff,
    bundles,
    totalSeconds: 0,
  };
  report.totalSeconds = Math.round((performance.now() - started) / 1000);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(table(report));
  if (problems.length || Object.values(report.sameTreeFromAllVariants).includes(false)) process.exitCode = 1;
};

const table = (r) => {
  const lines = [];
  const row = (cells, widths) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  const fl = r.processes.floor.wallMs.median;
  const w = [46, 8, 13, 6, 8, 7];
  const proc = (label, p) =>
    row([label, p.wallMs.median, `${p.wallMs.p25}-${p.wallMs.p75}`, label.startsWith('node -e') ? '' : String(Math.round(p.wallMs.median - fl) || 0), p.cpuMs ? p.cpuMs.median : '', p.peakRssMB ?? ''], w);
  lines.push(`fettle library bench (${r.mode}, ${r.runs} runs): node ${r.environment.node}, ${r.environment.git}, ${r.environment.platform}, ${r.environment.cpus} cpus`);
  lines.push(`isomorphic-git ${r.environment.packages['isomorphic-git']}, simple-git ${r.environment.packages['simple-git']}; load average at start ${r.environment.loadavgAtStart.join(' ')}, at end ${r.environment.loadavgAtEnd.join(' ')}`);
  lines.push(`fixtures: ${Object.entries(r.fixtures).map(([k, f]) => `${k} ${f.files} files / ${f.packs} pack / ${f.packMB} MB`).join('; ')}`);
  lines.push('');
  lines.push('Fresh node process per run. wall = spawn to exit in ms (median, p25-p75); +floor = median - node -e 0;');
  lines.push('cpu = median CPU ms of node plus its git children; rss = median peak RSS of the node process (MB).');
  lines.push(row(['case', 'wall', 'p25-p75', '+floor', 'cpu', 'rss'], w));
  lines.push(proc('node -e 0 (floor)', r.processes.floor));
  lines.push(proc('empty .cjs script', r.processes.emptyScript));
  for (const [k, p] of Object.entries(r.processes.import)) lines.push(proc(`require ${k}${p.loadedWith === 'import' ? ' (via import())' : ''}`, p));
  for (const [repo, vs] of Object.entries(r.processes.snapshot)) {
    lines.push(`snapshot, ${repo} repo (${r.fixtures[repo].files} files, ${r.fixtures[repo].packMB} MB pack):`);
    for (const [v, p] of Object.entries(vs)) lines.push(proc(`  ${r.variants[v]}`, p));
  }
  lines.push(`same tree from every variant: ${JSON.stringify(r.sameTreeFromAllVariants)}; validation problems: ${r.validationProblems.length}`);
  for (const p of r.validationProblems) lines.push(`  ${p}`);
  lines.push('');
  lines.push(`Race: ${r.race.iso.processes} processes x ${r.race.iso.updatesEach} compare-and-swap updates of one ref`);
  for (const [k, x] of Object.entries(r.race)) {
    const kinds = Object.keys(x.errorKinds).length ? ` (${Object.entries(x.errorKinds).map(([e, c]) => `${e} ${c}`).join(', ')})` : '';
    lines.push(`  ${k.padEnd(14)} survived ${x.survived}/${x.attempted} (lost ${x.lost}); workers reported ${x.reportedLanded} landed, ${x.retries} retries, ${x.errors} errors${kinds}; ${x.wallMs} ms`);
  }
  lines.push('');
  lines.push('Linked worktree (git worktree add), isomorphic-git with dir = the worktree:');
  for (const [k, v] of Object.entries(r.linkedWorktree.iso)) lines.push(`  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  lines.push(`  control: ref written in the worktree by git CLI seen: ${r.linkedWorktree.gitCliRefSeen}; by simple-git: ${r.linkedWorktree.simpleGitRefSeen}`);
  lines.push('');
  const s = r.simpleGit;
  const res = (x) => (x.ok ? `ok (${x.value})` : `rejected: ${x.error}`);
  lines.push('simple-git checks (in-process, median ms per call):');
  lines.push(`  ${Object.entries(s.perCallMs).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  lines.push(`  ambient GIT_AUTHOR_NAME reaches git: child_process ${s.ambientEnv.cp}, simple-git ${s.ambientEnv.sg}`);
  lines.push(`  .env('GIT_INDEX_FILE', x): default -> ${res(s.indexFileEnv.default)}`);
  lines.push(`                             allowEnvironment -> ${res(s.indexFileEnv.allowEnvironment)}`);
  lines.push(`  -c core.hooksPath=/dev/null: default -> ${res(s.hooksPathOff.default)}`);
  lines.push(`                               allowUnsafeHooksPath -> ${res(s.hooksPathOff.allowUnsafeHooksPath)}`);
  lines.push(`  rev-parse --verify -q <missing> (git exits ${s.silentFailure.gitExitCode}): simple-git ${s.silentFailure.sg.ok ? `resolved ${JSON.stringify(s.silentFailure.sg.value)}` : `rejected: ${s.silentFailure.sg.error}`}`);
  lines.push('');
  if (r.bundles) {
    lines.push(`esbuild bundles built as scripts/build.mjs does (not written): hook bundle src/cli.ts -> ${r.bundles.hook.packages.join(', ')} (${r.bundles.hook.bytes} bytes);`);
    lines.push(`  commands bundle src/commands/index.ts -> ${r.bundles.commands.packages.join(', ')} (${r.bundles.commands.bytes} bytes)`);
    lines.push('');
  }
  if (r.jsdiff) {
    lines.push(`jsdiff (diff ${r.environment.projectPackages.diff}) vs git, single runs; lines of 64 hex chars; fettle's timeout is ${r.jsdiff.fettleTimeoutMs} ms:`);
    for (const x of r.jsdiff.rows) {
      const label = `${x.tool}, ${x.lines} lines, ${x.mode === 'rewrite' ? 'full rewrite' : '1% changed'}${x.timeout === 'none' ? '' : `, timeout ${x.timeout}`}`;
      lines.push(`  ${label.padEnd(62)} ${String(x.inProcessMs).padStart(8)} ms in-process  -> ${x.result}`);
    }
    lines.push('');
  }
  lines.push(`total ${r.totalSeconds} s (fixtures ${Math.round(r.fixtureBuildMs / 1000)} s)`);
  return `${lines.join('\n')}\n`;
};

if (TABLE_FROM) process.stdout.write(table(JSON.parse(readFileSync(TABLE_FROM, 'utf8'))));
else main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  cleanup();
  process.exit(1);
});
