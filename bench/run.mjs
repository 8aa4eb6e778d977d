#!/usr/bin/env node
// fettle's benchmark harness (`npm run bench`, or `node bench/run.mjs` against an existing dist/).
//
// Every case runs the built CLI (dist/cli.js) as separate processes, the way Claude Code runs the hook, and
// compares it with a baseline measured in the same run: fettle and baseline runs alternate (A B A B ...), and
// the table reports medians and their ratio. Fixture repositories are generated in a temp dir that is
// removed at the end; every process gets a private HOME / XDG dirs / TMPDIR and GIT_CONFIG_NOSYSTEM=1, so
// nothing outside that dir is written (the checkout is only read: dist/, hooks/hooks.json, and the commit
// dist/ was built from, with `git --no-optional-locks`).
//
//   node bench/run.mjs [--quick] [--json] [--runs N] [--cases 0,1,2,5] [--keep] [--keep-ca-certs]
//
// --quick   tiny fixtures and 2 runs: proves the harness works (CI), verdicts are not meaningful
// --json    print the results as JSON on stdout (progress, and then the table, go to stderr)
// --runs N  timed runs per side for the process cases (default 15)
// --cases   run only these cases (1-7; 0 = start-up decomposition and git spawn counts)
// --keep    keep the temp dir (and every fixture repo in it) and print its path
// --keep-ca-certs  leave NODE_EXTRA_CA_CERTS in the environment (removed by default: it makes every node
//           start, fettle's and the baseline's, parse a certificate bundle)
//
// Plain ESM, Node >= 20, no dependencies. See docs/PERFORMANCE.md for what each case measures.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------- options

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');

const usage = () => {
  process.stderr.write('usage: node bench/run.mjs [--quick] [--json] [--runs N] [--cases 0,1,2,...] [--keep] [--keep-ca-certs]\n');
  process.exit(2);
};

const argv = process.argv.slice(2);
const opts = { quick: false, json: false, runs: undefined, cases: null, keep: false, keepCaCerts: false };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--quick') opts.quick = true;
  else if (a === '--json') opts.json = true;
  else if (a === '--keep') opts.keep = true;
  else if (a === '--keep-ca-certs') opts.keepCaCerts = true;
  else if (a === '--runs' || a.startsWith('--runs=')) {
    const v = a.includes('=') ? a.slice(7) : argv[++i];
    opts.runs = Number(v);
    if (!Number.isInteger(opts.runs) || opts.runs < 1) usage();
  } else if (a === '--cases' || a.startsWith('--cases=')) {
    const v = a.includes('=') ? a.slice(8) : argv[++i];
    opts.cases = new Set(String(v ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  } else if (a === '--help' || a === '-h') usage();
  else usage();
}

const SIZES = opts.quick
  ? { files: 60, small: 20, big: 300, shadow: 200, bigFile: 500_000, history: 20, pending: 5, runs: 2, memRuns: 1 }
  : { files: 1_000, small: 100, big: 100_000, shadow: 50_000, bigFile: 5_000_000, history: 1_000, pending: 50, runs: 15, memRuns: 3 };
const RUNS = opts.runs ?? SIZES.runs;
const want = (id) => !opts.cases || opts.cases.has(String(id));

/** Any single process that takes longer than this is killed and reported: the harness never hangs. */
const PROCESS_TIMEOUT_MS = 120_000;
/** The 5 MB full rewrite must answer within this (issue, case 5), and is killed after HANG_MS. */
const REWRITE_LIMIT_MS = 2_000;
const HANG_MS = 30_000;

// ---------------------------------------------------------------------------------------------- helpers

const log = (msg) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1)}s] ${msg}\n`);
const T0 = performance.now();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length, samples: xs.map((x) => Math.round(x * 100) / 100) });

const TMP = mkdtempSync(join(tmpdir(), 'fettle-bench-'));
// The bench runs a private copy of dist/, so a rebuild during the run cannot change or break what is measured.
const CLI = join(TMP, 'dist', 'cli.js');
if (existsSync(join(DIST, 'cli.js'))) cpSync(DIST, join(TMP, 'dist'), { recursive: true });
const dirs = { home: join(TMP, 'home'), data: join(TMP, 'xdg-data'), config: join(TMP, 'xdg-config'), cache: join(TMP, 'xdg-cache'), state: join(TMP, 'xdg-state'), tmp: join(TMP, 'tmp'), shim: join(TMP, 'shim') };
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });

let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  if (opts.keep) process.stderr.write(`[bench] kept ${TMP}\n`);
  else rmSync(TMP, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

/** The environment of every process: the caller's, minus git/fettle/node settings, with private dirs. */
const baseEnv = (() => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('GIT_') || k.startsWith('FETTLE_') || k.startsWith('XDG_') || k.startsWith('CLAUDE')) continue;
    // NODE_EXTRA_CA_CERTS makes every node start parse a certificate bundle (tens of ms), which is neither
    // fettle's cost nor the baseline's: it would only dilute the ratios.
    if (k === 'NODE_EXTRA_CA_CERTS' && !opts.keepCaCerts) continue;
    if (k === 'NODE_OPTIONS' || k === 'NODE_PATH' || k === 'TMPDIR' || k === 'HOME') continue;
    env[k] = v;
  }
  return {
    ...env,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_CONFIG_HOME: dirs.config,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    TMPDIR: dirs.tmp,
    GIT_CONFIG_NOSYSTEM: '1',
  };
})();

/** For building fixtures: a fixed identity, no auto gc. */
const fixtureEnv = {
  ...baseEnv,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};
const git = (cwd, args, extra = {}) =>
  execFileSync('git', ['-c', 'gc.auto=0', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: extra.env ?? fixtureEnv,
    input: extra.input,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  }).toString('utf8');

/** Runs a process synchronously and times it (wall clock, including spawn and exit). */
const timed = (cmd, args, { cwd, env = baseEnv, input = '', timeout = PROCESS_TIMEOUT_MS } = {}) => {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, input, timeout, killSignal: 'SIGKILL', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t;
  const timedOut = r.error?.code === 'ETIMEDOUT' || (r.signal === 'SIGKILL' && ms >= timeout);
  if (r.error && !timedOut) throw r.error;
  return { ms, code: r.status, signal: r.signal, timedOut, stdout: r.stdout?.toString('utf8') ?? '', stderr: r.stderr?.toString('utf8') ?? '' };
};

const bareNode = (cwd) => timed(process.execPath, ['-e', '0'], { cwd }).ms;

// ---------------------------------------------------------------------------------------------- hooks

/** Which Write hook events Claude Code waits for, from the plugin's hooks/hooks.json (async hooks do not block). */
const hookPlan = (() => {
  const plan = { PreToolUse: { registered: true, blocking: true }, PostToolUse: { registered: true, blocking: true }, source: 'default (hooks/hooks.json not readable)' };
  try {
    const config = JSON.parse(readFileSync(join(ROOT, 'hooks', 'hooks.json'), 'utf8'));
    for (const event of ['PreToolUse', 'PostToolUse']) {
      const groups = (config.hooks?.[event] ?? []).filter((g) => {
        if (!g.matcher || g.matcher === '*') return true;
        try {
          return new RegExp(`^(?:${g.matcher})$`).test('Write');
        } catch {
          return g.matcher === 'Write';
        }
      });
      const hooks = groups.flatMap((g) => g.hooks ?? []).filter((h) => h.type === 'command');
      plan[event] = { registered: hooks.length > 0, blocking: hooks.some((h) => !h.async && !h.asyncRewake) };
    }
    plan.source = 'hooks/hooks.json';
  } catch {
    // keep the default: both events registered and blocking
  }
  return plan;
})();

let toolUseCounter = 0;
const payload = (cwd, event, file, content, toolUseId) =>
  JSON.stringify({
    session_id: 'bench-session',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Write',
    tool_input: { file_path: file, content },
    tool_use_id: toolUseId,
  });

const hookOnce = (cwd, input, env = baseEnv, timeout = PROCESS_TIMEOUT_MS) => {
  const r = timed(process.execPath, [CLI, 'hook'], { cwd, env, input, timeout });
  let json;
  try {
    json = r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { ...r, json, denied: json?.hookSpecificOutput?.permissionDecision === 'deny' };
};

const fail = (what, r) => {
  throw new Error(`${what}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}${r.timedOut ? ' (timed out)' : ''}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`);
};

/**
 * One direct Write as Claude Code runs it: PreToolUse (must let it through), the tool writes the file,
 * PostToolUse. Returns the time of the blocking hook processes only (not our own write).
 */
const directWrite = (repo, file, content, env = baseEnv) => {
  const id = `toolu_bench_${++toolUseCounter}`;
  let blocking = 0;
  const times = {};
  if (hookPlan.PreToolUse.registered) {
    const pre = hookOnce(repo, payload(repo, 'PreToolUse', file, content, id), env);
    if (pre.code !== 0 || pre.denied || pre.stdout.trim() !== '') fail(`direct PreToolUse on ${file} did not pass silently`, pre);
    times.pre = pre.ms;
    if (hookPlan.PreToolUse.blocking) blocking += pre.ms;
  }
  writeFileSync(file, content);
  if (hookPlan.PostToolUse.registered) {
    const post = hookOnce(repo, payload(repo, 'PostToolUse', file, content, id), env);
    if (post.code !== 0 || !post.json?.hookSpecificOutput?.additionalContext) fail(`direct PostToolUse on ${file} did not report the write`, post);
    times.post = post.ms;
    if (hookPlan.PostToolUse.blocking) blocking += post.ms;
  }
  return { ms: blocking, ...times };
};

/** One staged Write: PreToolUse denies it (nothing is written, no PostToolUse follows). */
const stagedWrite = (repo, file, content, env = baseEnv, timeout = PROCESS_TIMEOUT_MS) => {
  const id = `toolu_bench_${++toolUseCounter}`;
  const pre = hookOnce(repo, payload(repo, 'PreToolUse', file, content, id), env, timeout);
  return pre;
};
const stagedOk = (repo, file, content, env) => {
  const pre = stagedWrite(repo, file, content, env);
  if (pre.code !== 0 || !pre.denied) fail(`staged PreToolUse on ${file} did not deny`, pre);
  return pre.ms;
};

// ---------------------------------------------------------------------------------------------- fixtures

const pad = (n, w) => String(n).padStart(w, '0');
const DIRECT_LINES = 60;
const STAGED_LINES = 200;
const directText = (k) => Array.from({ length: DIRECT_LINES }, (_, i) => (i === 30 ? `edited by write ${k}` : `direct line ${i}`)).join('\n') + '\n';
const stagedBase = () => Array.from({ length: STAGED_LINES }, (_, i) => `staged line ${i}`).join('\n') + '\n';
/** Rewrites every line: far past the ceiling (80 changed lines), so always staged. */
const stagedText = (k) => Array.from({ length: STAGED_LINES }, (_, i) => `rewrite ${k} of line ${i}`).join('\n') + '\n';

/**
 * A committed, packed repository of exactly `n` tracked files: fillers in src/dNNNN/ (100 per directory)
 * and the two files the cases write, src/app/direct.txt and src/app/staged.txt.
 */
const buildRepo = (name, n) => {
  const repo = join(TMP, name);
  const t = performance.now();
  mkdirSync(join(repo, 'src', 'app'), { recursive: true });
  const fillers = Math.max(0, n - 2);
  for (let i = 0; i < fillers; i++) {
    const d = join(repo, 'src', `d${pad(Math.floor(i / 100), 4)}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${pad(i, 6)}.txt`), `fixture file ${i}\n${'a line of fixture text\n'.repeat(5)}`);
  }
  writeFileSync(join(repo, 'src', 'app', 'direct.txt'), directText(0));
  writeFileSync(join(repo, 'src', 'app', 'staged.txt'), stagedBase());
  git(repo, ['init', '-q']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', `fixture: ${n} files`]);
  git(repo, ['repack', '-adq']);
  git(repo, ['prune-packed']);
  const count = Number(git(repo, ['ls-files', '-z']).split('\0').filter(Boolean).length);
  log(`built ${name}: ${count} files, committed and packed, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const buildMs = performance.now() - t;
  settle();
  return { repo, direct: join(repo, 'src', 'app', 'direct.txt'), staged: join(repo, 'src', 'app', 'staged.txt'), files: count, buildMs };
};
/** Big repos go as soon as their case is done (disk space); --keep keeps them for a look. */
const removeRepo = (r) => {
  if (opts.keep) return;
  rmSync(r.repo, { recursive: true, force: true });
  settle();
};

/**
 * Flushes dirty pages before timing: building a 100,000-file repo leaves hundreds of MB for the kernel to
 * write back, and an fsync made meanwhile can wait for it, which would charge the build to fettle.
 */
function settle() {
  spawnSync('sync', [], { stdio: 'ignore', timeout: PROCESS_TIMEOUT_MS });
}

// ---------------------------------------------------------------------------------------------- results

const results = [];
const info = [];
const notes = [];
if (process.env.NODE_EXTRA_CA_CERTS) {
  notes.push(opts.keepCaCerts
    ? 'NODE_EXTRA_CA_CERTS was kept (--keep-ca-certs): every node start, fettle and baseline, pays for loading it'
    : 'NODE_EXTRA_CA_CERTS was removed from the environment of every process (it slows every node start by a constant; --keep-ca-certs keeps it)');
}
/** op: '<=' (fettle/baseline at most value) or '>=' */
const addCase = (row) => {
  const met = opts.quick || row.ratio === null || Number.isNaN(row.ratio) ? null : row.target.op === '<=' ? row.ratio <= row.target.value : row.ratio >= row.target.value;
  results.push({ ...row, met });
};

/** Alternates the given measurements A B (C) A B ... `n` times after one untimed warm-up round. */
const alternate = (n, fns) => {
  const samples = fns.map(() => []);
  fns.forEach((f) => f(-1));
  for (let i = 0; i < n; i++) fns.forEach((f, j) => samples[j].push(f(i)));
  return samples;
};

// ---------------------------------------------------------------------------------------------- machine

const gitVersion = git(TMP, ['--version']).trim();
const machine = {
  node: process.version,
  git: gitVersion.replace(/^git version /, ''),
  cpus: typeof availableParallelism === 'function' ? availableParallelism() : cpus().length,
  cpuModel: cpus()[0]?.model?.trim() ?? 'unknown',
  os: `${platform()} ${release()}`,
  memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  /** 1-minute load average at the start and the end: other work on the machine skews every number */
  loadAverage: { start: Math.round(loadavg()[0] * 100) / 100, end: null },
};

if (!existsSync(CLI)) {
  process.stderr.write(`dist/cli.js not found in ${DIST}; run \`npm run build\` first (\`npm run bench\` does).\n`);
  cleanup();
  process.exit(1);
}

/** What was measured: the bundle's size and hash, and the source commit it was built from (when known). */
const build = (() => {
  const bytes = readFileSync(CLI);
  const out = { cliBytes: bytes.length, cliSha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
  try {
    out.commit = git(ROOT, ['rev-parse', '--short', 'HEAD']).trim();
    out.uncommittedChanges = git(ROOT, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no', '--', 'src']).trim() !== '';
  } catch {
    // not a git checkout: leave it out
  }
  return out;
})();

log(`fettle bench${opts.quick ? ' (quick)' : ''}: ${RUNS} runs per side; node ${machine.node}, git ${machine.git}, ${machine.cpus} CPUs; temp dir ${TMP}`);
log(`hook events (from ${hookPlan.source}): PreToolUse ${hookPlan.PreToolUse.blocking ? 'blocking' : 'async'}, PostToolUse ${hookPlan.PostToolUse.registered ? (hookPlan.PostToolUse.blocking ? 'blocking' : 'async') : 'not registered'}`);

const blockingDirect = Number(hookPlan.PreToolUse.blocking) + Number(hookPlan.PostToolUse.registered && hookPlan.PostToolUse.blocking);
/** e.g. "Pre + Post", or "Pre" when PostToolUse runs async */
const blockingLabel = ['PreToolUse', 'PostToolUse'].filter((e) => hookPlan[e].registered && hookPlan[e].blocking).map((e) => e.replace('ToolUse', '')).join(' + ') || 'none blocking';

// ---------------------------------------------------------------------------------------------- run

const spawnCounts = {};

const main = () => {
  let mid; // the 1,000-file repo, shared by cases 0, 1, 2 and 5/6

  if (want(0) || want(1) || want(2) || want(5) || want(6)) mid = buildRepo('repo-1k', SIZES.files);

  // -- 0: start-up decomposition and git spawns per path (information, no target) --------------------
  if (want(0)) {
    log('case 0: start-up decomposition');
    const ignored = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Glob', tool_input: { pattern: '*.txt' }, cwd: mid.repo });
    const [node, hookIgnored, gitSpawn] = alternate(RUNS, [
      () => bareNode(mid.repo),
      () => {
        const r = hookOnce(mid.repo, ignored);
        if (r.code !== 0) fail('hook with a non-Write payload', r);
        return r.ms;
      },
      () => timed('git', ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: mid.repo }).ms,
    ]);
    info.push({ id: '0a', name: 'bare `node -e 0`', ...stats(node) });
    info.push({ id: '0b', name: '`fettle hook` with a non-Write payload (bundle load, no git)', ...stats(hookIgnored) });
    info.push({ id: '0c', name: 'one `git rev-parse --verify HEAD` spawned from node (1k-file repo)', ...stats(gitSpawn) });

    // git spawns per hook path, counted with a PATH shim that logs and execs the real git
    const realGit = (baseEnv.PATH ?? '').split(delimiter).map((d) => join(d, 'git')).find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (realGit) {
      const logFile = join(TMP, 'git-spawns.log');
      writeFileSync(join(dirs.shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> "$FETTLE_BENCH_GIT_LOG"\nexec '${realGit.replace(/'/g, `'\\''`)}' "$@"\n`);
      chmodSync(join(dirs.shim, 'git'), 0o755);
      const shimEnv = { ...baseEnv, PATH: `${dirs.shim}${delimiter}${baseEnv.PATH ?? ''}`, FETTLE_BENCH_GIT_LOG: logFile };
      const take = () => {
        const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
        writeFileSync(logFile, '');
        // drop the pinned `-c key=value` pairs and `--git-dir X`, keep the subcommand and its first flags
        return lines.map((l) => l.replace(/(^| )-c \S+/g, '').replace(/(^| )--git-dir \S+/g, '').trim().split(' ').slice(0, 3).join(' '));
      };
      writeFileSync(logFile, '');
      const id = `toolu_bench_${++toolUseCounter}`;
      const content = directText(`spawn-${id}`);
      const pre = hookOnce(mid.repo, payload(mid.repo, 'PreToolUse', mid.direct, content, id), shimEnv);
      if (pre.code !== 0 || pre.denied) fail('direct PreToolUse (spawn count)', pre);
      spawnCounts['direct PreToolUse'] = take();
      writeFileSync(mid.direct, content);
      const post = hookOnce(mid.repo, payload(mid.repo, 'PostToolUse', mid.direct, content, id), shimEnv);
      if (post.code !== 0) fail('direct PostToolUse (spawn count)', post);
      spawnCounts['direct PostToolUse'] = take();
      const st = stagedWrite(mid.repo, mid.staged, stagedText('spawn'), shimEnv);
      if (!st.denied) fail('staged PreToolUse (spawn count)', st);
      spawnCounts['staged PreToolUse'] = take();
      hookOnce(mid.repo, ignored, shimEnv);
      spawnCounts['non-Write payload'] = take();
      const status = timed(process.execPath, [CLI, 'status'], { cwd: mid.repo, env: shimEnv });
      if (status.code !== 0) fail('fettle status (spawn count)', status);
      spawnCounts['fettle status'] = take();
      // the 5 MB 1 % change goes through the same path plus, when jsdiff gives up, git's diff
      const big = join(mid.repo, 'src', 'app', 'big-spawn.txt');
      writeFileSync(big, bigText(-1, 'none'));
      const bigRun = stagedWrite(mid.repo, big, bigText(0, 'sparse'), shimEnv);
      spawnCounts[`staged PreToolUse, ${fmtBytes(SIZES.bigFile)} file, 1 % of lines changed`] = take();
      if (!bigRun.denied) notes.push(`spawn count of the ${fmtBytes(SIZES.bigFile)} write: the hook did not deny (exit ${bigRun.code})`);
      rmSync(big, { force: true });
      for (const [path, list] of Object.entries(spawnCounts)) log(`  git spawns, ${path}: ${list.length} (${list.map((l) => l.split(' ')[0]).join(', ')})`);
    } else {
      notes.push('git spawn counts: git not found on PATH');
    }
  }

  // -- 1: direct Write, 1k files, ÷ bare node ------------------------------------------------------------
  if (want(1)) {
    log(`case 1: direct Write in the ${mid.files}-file repo vs bare node`);
    const pre = [];
    const post = [];
    const [fettle, node] = alternate(RUNS, [
      (i) => {
        const r = directWrite(mid.repo, mid.direct, directText(`c1-${i}`));
        if (i >= 0) {
          pre.push(r.pre);
          post.push(r.post);
        }
        return r.ms;
      },
      () => bareNode(mid.repo),
    ]);
    const f = stats(fettle);
    const b = stats(node);
    addCase({ id: '1', name: `direct Write (${blockingLabel}), ${mid.files} files ÷ node -e 0`, fettle: f, baseline: b, ratio: f.median / b.median, target: { op: '<=', value: 1.35 } });
    info.push({ id: '1-pre', name: 'case 1: PreToolUse alone', ...stats(pre) });
    info.push({ id: '1-post', name: 'case 1: PostToolUse alone', ...stats(post) });
    info.push({ id: '1-per-process', name: `case 1 ÷ ${blockingDirect} × node -e 0 (per blocking process)`, ratio: f.median / (blockingDirect * b.median) });
  }

  // -- 2: staged Write, 1k files, ÷ bare node ------------------------------------------------------------
  if (want(2)) {
    log(`case 2: staged Write in the ${mid.files}-file repo vs bare node`);
    const [fettle, node] = alternate(RUNS, [(i) => stagedOk(mid.repo, mid.staged, stagedText(`c2-${i}`)), () => bareNode(mid.repo)]);
    const f = stats(fettle);
    const b = stats(node);
    addCase({ id: '2', name: `staged Write (Pre, denies), ${mid.files} files ÷ node -e 0`, fettle: f, baseline: b, ratio: f.median / b.median, target: { op: '<=', value: 1.8 } });
  }

  // -- 3: cases 1 and 2 in a big repo ÷ a small repo -----------------------------------------------------
  if (want(3)) {
    log(`case 3: building ${SIZES.big}- and ${SIZES.small}-file repos`);
    const big = buildRepo('repo-big', SIZES.big);
    const small = buildRepo('repo-small', SIZES.small);
    info.push({ id: '3-build', name: `build of the ${big.files}-file repo (write, add, commit, repack)`, median: big.buildMs, n: 1 });
    log('case 3a: direct Write, big vs small');
    const [bd, sd] = alternate(RUNS, [(i) => directWrite(big.repo, big.direct, directText(`c3b-${i}`)).ms, (i) => directWrite(small.repo, small.direct, directText(`c3s-${i}`)).ms]);
    const fb = stats(bd);
    const fs = stats(sd);
    addCase({ id: '3a', name: `direct Write (${blockingLabel}), ${big.files} files ÷ ${small.files} files`, fettle: fb, baseline: fs, ratio: fb.median / fs.median, target: { op: '<=', value: 1.1 } });
    log('case 3b: staged Write, big vs small');
    const [bs, ss] = alternate(RUNS, [(i) => stagedOk(big.repo, big.staged, stagedText(`c3b-${i}`)), (i) => stagedOk(small.repo, small.staged, stagedText(`c3s-${i}`))]);
    const gb = stats(bs);
    const gs = stats(ss);
    addCase({ id: '3b', name: `staged Write, ${big.files} files ÷ ${small.files} files`, fettle: gb, baseline: gs, ratio: gb.median / gs.median, target: { op: '<=', value: 1.1 } });
    removeRepo(big);
    removeRepo(small);
  }

  // -- 4: shadow-repo snapshot ÷ fettle's direct write, 50k files ----------------------------------------
  if (want(4)) {
    const repo = buildRepo('repo-shadow', SIZES.shadow);
    const shadowDir = join(TMP, 'shadow.git');
    const shadowEnv = { ...fixtureEnv, GIT_DIR: shadowDir, GIT_WORK_TREE: repo.repo };
    const sg = (args) => timed('git', ['-c', 'gc.auto=0', ...args], { cwd: repo.repo, env: shadowEnv });
    const init = sg(['init', '-q']);
    if (init.code !== 0) fail('shadow git init', init);
    const first = [sg(['add', '-A']), sg(['commit', '-q', '--no-verify', '-m', 'shadow: first snapshot'])];
    if (first.some((r) => r.code !== 0)) fail('shadow first snapshot', first.find((r) => r.code !== 0));
    const firstMs = first[0].ms + first[1].ms;
    settle(); // the first snapshot wrote one loose object per file
    info.push({ id: '4-first', name: `shadow repo: first whole-tree snapshot of ${repo.files} files (cold, once)`, median: firstMs, n: 1 });
    log(`case 4: shadow snapshot vs fettle direct Write in the ${repo.files}-file repo (first snapshot took ${firstMs.toFixed(0)} ms)`);
    const touched = join(repo.repo, 'src', 'd0000', 'f000000.txt');
    const [fettle, shadow] = alternate(RUNS, [
      (i) => directWrite(repo.repo, repo.direct, directText(`c4-${i}`)).ms,
      (i) => {
        // the agent's write happened (untimed); the peer then snapshots the whole tree
        writeFileSync(touched, `fixture file 0\nshadow edit ${i}\n`);
        const add = sg(['add', '-A']);
        const commit = sg(['commit', '-q', '--no-verify', '-m', `shadow snapshot ${i}`]);
        if (add.code !== 0) fail('shadow git add -A', add);
        if (commit.code !== 0) fail('shadow git commit', commit);
        return add.ms + commit.ms;
      },
    ]);
    const s = stats(shadow);
    const f = stats(fettle);
    // here the baseline is the peer's way and the ratio is baseline ÷ fettle: how many times cheaper fettle is
    addCase({ id: '4', name: `shadow snapshot (git add -A + commit) ÷ fettle direct Write, ${repo.files} files`, fettle: f, baseline: s, ratio: s.median / f.median, target: { op: '>=', value: 20 } });
    if (!opts.keep) rmSync(shadowDir, { recursive: true, force: true });
    removeRepo(repo);
  }

  // -- 5: 5 MB diff ÷ git diff --no-index; full rewrite answers in time ----------------------------------
  if (want(5)) {
    const file = join(mid.repo, 'src', 'app', 'big.txt');
    writeFileSync(file, bigText(-1, 'none'));
    git(mid.repo, ['add', 'src/app/big.txt']);
    git(mid.repo, ['commit', '-q', '--no-verify', '-m', 'fixture: big text file']);
    const caseDir = join(TMP, 'case5');
    mkdirSync(caseDir, { recursive: true });
    const oldCopy = join(caseDir, 'old.txt');
    const newCopy = join(caseDir, 'new.txt');
    writeFileSync(oldCopy, readFileSync(file));
    writeFileSync(newCopy, bigText(0, 'sparse'));
    settle();
    log(`case 5: ${fmtBytes(SIZES.bigFile)} file, 1 % of lines changed: fettle PreToolUse vs git diff --no-index`);
    const [fettle, gitDiff] = alternate(RUNS, [
      (i) => stagedOk(mid.repo, file, bigText(i, 'sparse')),
      () => {
        const r = timed('git', ['diff', '--no-index', '--no-color', '--no-ext-diff', '-U3', oldCopy, newCopy], { cwd: caseDir });
        if (r.code !== 1) fail('git diff --no-index', r);
        return r.ms;
      },
    ]);
    const f = stats(fettle);
    const g = stats(gitDiff);
    addCase({ id: '5', name: `${fmtBytes(SIZES.bigFile)} text, 1 % lines changed: PreToolUse (staged) ÷ git diff --no-index`, fettle: f, baseline: g, ratio: f.median / g.median, target: { op: '<=', value: 3 } });

    log(`case 5b: ${fmtBytes(SIZES.bigFile)} full rewrite must answer within ${REWRITE_LIMIT_MS} ms`);
    const rewriteRuns = Math.max(1, Math.min(RUNS, 5));
    const times = [];
    let hung = false;
    let answer = '';
    for (let i = 0; i < rewriteRuns && !hung; i++) {
      const r = stagedWrite(mid.repo, file, bigText(i, 'all'), baseEnv, HANG_MS);
      if (r.timedOut) {
        hung = true;
        times.push(r.ms);
        break;
      }
      if (r.code !== 0 || !r.denied) fail('full rewrite PreToolUse did not deny', r);
      const reason = r.json.hookSpecificOutput.permissionDecisionReason ?? '';
      answer = /^@@ /m.test(reason) ? 'staged, with a diff' : /[+-]\d+/.test(reason) ? 'staged, with a summary' : 'staged';
      times.push(r.ms);
    }
    const t = stats(times);
    results.push({
      id: '5b',
      name: `${fmtBytes(SIZES.bigFile)} full rewrite: PreToolUse answer time`,
      fettle: t,
      baseline: null,
      ratio: null,
      target: { op: 'ms<=', value: REWRITE_LIMIT_MS },
      met: opts.quick ? null : !hung && t.max <= REWRITE_LIMIT_MS,
      note: hung ? `killed after ${HANG_MS} ms (hung)` : `${answer}; worst of ${times.length} runs ${t.max.toFixed(0)} ms`,
    });
  }

  // -- 6: peak RSS of a 5 MB write -----------------------------------------------------------------------
  if (want(6)) {
    log(`case 6: peak RSS of a ${fmtBytes(SIZES.bigFile)} write`);
    const timeBin = '/usr/bin/time';
    const rssFile = join(TMP, 'rss.txt');
    const probe = existsSync(timeBin) ? spawnSync(timeBin, ['-f', '%M', '-o', rssFile, process.execPath, '-e', '0'], { env: baseEnv }) : null;
    const usable = probe?.status === 0 && existsSync(rssFile) && /^\d+$/.test(readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '');
    if (!usable) {
      results.push({ id: '6', name: `peak RSS of a ${fmtBytes(SIZES.bigFile)} write`, fettle: null, baseline: null, ratio: null, target: { op: 'MB<=', value: 100 }, met: null, note: 'n/a: no GNU time at /usr/bin/time that supports -f (Debian package `time`)' });
    } else {
      /** max RSS in MB of one process run under GNU time (its own and its waited-for children's maximum). */
      const rss = (args, input, cwd) => {
        const r = spawnSync(timeBin, ['-f', '%M', '-o', rssFile, ...args], { cwd, env: baseEnv, input, maxBuffer: 256 * 1024 * 1024, timeout: PROCESS_TIMEOUT_MS });
        const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
        return { mb: kb / 1024, code: r.status, stdout: r.stdout?.toString('utf8') ?? '', stderr: r.stderr?.toString('utf8') ?? '' };
      };
      const file = join(mid.repo, 'src', 'app', 'big.txt');
      if (!existsSync(file)) {
        writeFileSync(file, bigText(-1, 'none'));
      }
      const scenarios = {};
      const nodeRss = [];
      for (let i = 0; i < SIZES.memRuns; i++) {
        nodeRss.push(rss([process.execPath, '-e', '0'], '', mid.repo).mb);
        const sparse = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PreToolUse', file, bigText(100 + i, 'sparse'), `toolu_bench_${++toolUseCounter}`), mid.repo);
        const rewrite = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PreToolUse', file, bigText(100 + i, 'all'), `toolu_bench_${++toolUseCounter}`), mid.repo);
        // a new 5 MB file: direct, so PreToolUse, the write, then PostToolUse reads and stores it
        const fresh = join(mid.repo, 'src', 'app', `fresh-${i}.txt`);
        const content = bigText(200 + i, 'none');
        const id = `toolu_bench_${++toolUseCounter}`;
        const pre = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PreToolUse', fresh, content, id), mid.repo);
        writeFileSync(fresh, content);
        const post = rss([process.execPath, CLI, 'hook'], payload(mid.repo, 'PostToolUse', fresh, content, id), mid.repo);
        for (const [name, r] of Object.entries({ 'PreToolUse, 1 % of lines changed (staged)': sparse, 'PreToolUse, full rewrite (staged)': rewrite, 'PreToolUse, new file (direct)': pre, 'PostToolUse, new file (direct)': post })) {
          if (r.code !== 0) fail(`RSS run ${name}`, r);
          (scenarios[name] ??= []).push(r.mb);
        }
      }
      const worst = Math.max(...Object.values(scenarios).flat());
      const worstName = Object.entries(scenarios).find(([, v]) => v.includes(worst))?.[0];
      const n = stats(nodeRss);
      results.push({
        id: '6',
        name: `peak RSS of a ${fmtBytes(SIZES.bigFile)} write (worst hook process)`,
        fettle: { median: worst, n: Object.values(scenarios).flat().length, unit: 'MB' },
        baseline: { median: n.median, n: n.n, unit: 'MB' },
        ratio: null,
        target: { op: 'MB<=', value: 100 },
        met: opts.quick ? null : worst <= 100,
        note: `worst: ${worstName}`,
      });
      for (const [name, v] of Object.entries(scenarios)) info.push({ id: '6-rss', name: `peak RSS MB, ${name}`, ...stats(v), unit: 'MB' });
    }
  }

  if (mid) removeRepo(mid);

  // -- 7: status (and log) with 1,000 history entries and 50 pending ÷ bare node -------------------------
  if (want(7)) {
    const r = buildRepo('repo-status', SIZES.files);
    seedHistory(r, SIZES.history, SIZES.pending);
    log(`case 7: fettle status with ${SIZES.history} history entries and ${SIZES.pending} pending vs bare node`);
    const [status, node] = alternate(RUNS, [
      () => {
        const s = timed(process.execPath, [CLI, 'status'], { cwd: r.repo });
        if (s.code !== 0 || !new RegExp(`Pending \\(${SIZES.pending}\\)`).test(s.stdout)) fail(`fettle status did not list ${SIZES.pending} pending changes`, s);
        return s.ms;
      },
      () => bareNode(r.repo),
    ]);
    const f = stats(status);
    const b = stats(node);
    addCase({ id: '7', name: `fettle status, ${SIZES.history} history + ${SIZES.pending} pending ÷ node -e 0`, fettle: f, baseline: b, ratio: f.median / b.median, target: { op: '<=', value: 1.6 } });
    const help = timed(process.execPath, [CLI, '--help'], { cwd: r.repo });
    if (/^\s+log\b/m.test(help.stdout)) {
      const [logT, node2] = alternate(RUNS, [
        () => {
          const s = timed(process.execPath, [CLI, 'log'], { cwd: r.repo });
          if (s.code !== 0) fail('fettle log', s);
          return s.ms;
        },
        () => bareNode(r.repo),
      ]);
      const lf = stats(logT);
      const lb = stats(node2);
      addCase({ id: '7b', name: `fettle log, ${SIZES.history} history + ${SIZES.pending} pending ÷ node -e 0`, fettle: lf, baseline: lb, ratio: lf.median / lb.median, target: { op: '<=', value: 1.6 } });
    } else {
      notes.push('case 7: `fettle log` does not exist in this build; skipped');
      results.push({ id: '7b', name: 'fettle log', fettle: null, baseline: null, ratio: null, target: { op: '<=', value: 1.6 }, met: null, note: 'skipped: no `fettle log` command' });
    }
    // How the hook path grows with history: the same direct Write as case 1, in this repo. Retention is set
    // to keep everything, so the number of changes stays the same across runs.
    const keepAll = { ...baseEnv, FETTLE_HISTORY_MAX_COUNT: '1000000' };
    const [withHistory] = alternate(RUNS, [(i) => directWrite(r.repo, r.direct, directText(`c7-${i}`), keepAll).ms, () => bareNode(r.repo)]);
    info.push({ id: '7-direct', name: `direct Write (${blockingLabel}) with ${SIZES.history} history entries + ${SIZES.pending} pending (retention keeps all)`, ...stats(withHistory) });
    removeRepo(r);
  }
};

/** A text file of about SIZES.bigFile bytes in 50-byte lines; `mode` picks which lines write `k` changes. */
function bigText(k, mode) {
  const lines = Math.floor(SIZES.bigFile / 50);
  const out = new Array(lines);
  for (let i = 0; i < lines; i++) {
    let line;
    if (mode === 'all') line = `rewrite ${k} puts new text on line ${i}`;
    else if (mode === 'sparse' && i % 100 === 50) line = `changed by write ${k}, line ${i}`;
    else line = `original text of the big file, line ${i}`;
    out[i] = line.padEnd(49, '.').slice(0, 49);
  }
  return `${out.join('\n')}\n`;
}

function fmtBytes(n) {
  return n >= 1_000_000 ? `${n / 1_000_000} MB` : `${n / 1_000} kB`;
}

/**
 * History for case 7: one real direct change and one real staged change made through the hook, then
 * copies of their commit chains (same messages, new ids) written in one `git fast-import`, until there are
 * `history` completed changes and `pending` staged ones.
 */
function seedHistory(r, history, pending) {
  const t = performance.now();
  const direct = directWrite(r.repo, r.direct, directText('seed'));
  void direct;
  const staged = stagedWrite(r.repo, r.staged, stagedText('seed'));
  if (!staged.denied) fail('seed staged write', staged);
  const refs = git(r.repo, ['for-each-ref', '--format=%(refname)', 'refs/fettle/']).split('\n').filter(Boolean);
  const chainOf = (ref) => {
    const out = git(r.repo, ['log', '--first-parent', '-z', '--format=%H%n%B', '-2', ref]).split('\0').filter(Boolean);
    return out.map((entry) => {
      const nl = entry.indexOf('\n');
      return { oid: entry.slice(0, nl), message: entry.slice(nl + 1) };
    }).reverse();
  };
  const chains = refs.map((ref) => ({ ref, id: ref.slice(ref.lastIndexOf('/') + 1), chain: chainOf(ref) }));
  const kindOf = (c) => /^Fettle-Kind: (\S+)$/m.exec(c.chain[c.chain.length - 1].message)?.[1];
  const doneTemplate = chains.find((c) => kindOf(c) === 'after');
  const pendingTemplate = chains.find((c) => kindOf(c) === 'proposal');
  if (!doneTemplate || !pendingTemplate) throw new Error(`seed: expected an 'after' and a 'proposal' change, found ${chains.map(kindOf).join(', ')}`);
  const head = git(r.repo, ['rev-parse', 'HEAD']).trim();
  const now = Math.floor(Date.now() / 1000);
  const parts = [];
  let mark = 0;
  const add = (template, n, prefix, ageStep) => {
    for (let i = 0; i < n; i++) {
      const id = `${prefix}${i.toString(36).padStart(7, '0')}`;
      let from = head;
      const when = now - (i + 1) * ageStep;
      for (const c of template.chain) {
        const message = Buffer.from(c.message.split(template.id).join(id));
        mark++;
        parts.push(Buffer.from(`commit refs/fettle/${id}\nmark :${mark}\ncommitter fettle <fettle@localhost> ${when} +0000\ndata ${message.length}\n`), message, Buffer.from(`\nfrom ${from}\n\n`));
        from = `:${mark}`;
      }
    }
  };
  add(doneTemplate, history - 1, 'h', 60);
  add(pendingTemplate, pending - 1, 'p', 1);
  git(r.repo, ['fast-import', '--quiet'], { input: Buffer.concat(parts) });
  const total = git(r.repo, ['for-each-ref', '--format=%(refname)', 'refs/fettle/']).split('\n').filter(Boolean).length;
  log(`seeded ${total} changes (${history} completed, ${pending} pending) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------------------------------------- report

const fmtMs = (v) => (v === undefined || v === null || Number.isNaN(v) ? '—' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);
const fmtCell = (s) => (s === null || s === undefined ? '—' : s.unit === 'MB' ? `${s.median.toFixed(1)} MB` : fmtMs(s.median));
const fmtTarget = (t) => (t.op === 'ms<=' ? `≤ ${t.value} ms` : t.op === 'MB<=' ? `≤ ${t.value} MB` : `${t.op === '<=' ? '≤' : '≥'} ${t.value}`);
const fmtMet = (r) => (r.met === null ? (opts.quick ? 'n/a (quick)' : 'n/a') : r.met ? 'yes' : 'NO');

const report = () => {
  const rows = results.map((r) => [
    r.id,
    r.name,
    fmtCell(r.fettle),
    fmtCell(r.baseline),
    r.ratio === null || r.ratio === undefined ? '—' : r.ratio.toFixed(2),
    fmtTarget(r.target),
    fmtMet(r) + (r.note ? ` (${r.note})` : ''),
  ]);
  const header = ['case', 'what', 'fettle median', 'baseline median', 'ratio', 'target', 'met?'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [];
  out.push(`fettle bench${opts.quick ? ' --quick (tiny fixtures: verdicts are not meaningful)' : ''}`);
  out.push(`node ${machine.node}, git ${machine.git}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, ${machine.memoryGiB} GiB RAM`);
  out.push(`1-minute load average: ${machine.loadAverage.start} at the start, ${machine.loadAverage.end} at the end (${machine.cpus} CPUs)`);
  out.push(`dist/cli.js: ${build.cliBytes} bytes, sha256 ${build.cliSha256}${build.commit ? `, built from ${build.commit}${build.uncommittedChanges ? ' plus uncommitted changes in src/' : ''}` : ''}`);
  out.push(`${RUNS} timed runs per side, alternating with the baseline after one warm-up round; medians. Blocking hook events: ${['PreToolUse', 'PostToolUse'].filter((e) => hookPlan[e].registered && hookPlan[e].blocking).join(' + ')}.`);
  out.push('');
  out.push(line(header));
  out.push(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) out.push(line(r));
  if (info.length) {
    out.push('');
    out.push('Details (no target):');
    for (const i of info) {
      const value = i.ratio !== undefined ? `ratio ${i.ratio.toFixed(2)}` : i.unit === 'MB' ? `median ${i.median.toFixed(1)} MB (min ${i.min.toFixed(1)}, max ${i.max.toFixed(1)}, n ${i.n})` : `median ${fmtMs(i.median)}${i.n > 1 ? ` (min ${fmtMs(i.min)}, max ${fmtMs(i.max)}, n ${i.n})` : ''}`;
      out.push(`  ${i.id.padEnd(13)} ${i.name}: ${value}`);
    }
  }
  if (Object.keys(spawnCounts).length) {
    out.push('');
    out.push('git processes spawned per hook path:');
    for (const [path, list] of Object.entries(spawnCounts)) out.push(`  ${path}: ${list.length}  [${list.map((l) => l.split(' ')[0]).join(', ')}]`);
  }
  for (const n of notes) out.push(`note: ${n}`);
  return out.join('\n');
};

let exitCode = 0;
try {
  main();
} catch (error) {
  exitCode = 1;
  process.stderr.write(`[bench] FAILED: ${error?.stack ?? error}\n`);
} finally {
  cleanup();
}
const total = (performance.now() - T0) / 1000;
machine.loadAverage.end = Math.round(loadavg()[0] * 100) / 100;
if (opts.json) {
  // the table still goes to stderr with the progress lines, for whoever watches the run
  process.stderr.write(`${report()}\n`);
  process.stdout.write(`${JSON.stringify({ quick: opts.quick, runs: RUNS, totalSeconds: Math.round(total), machine, build, hookPlan, sizes: SIZES, results, info, spawnCounts, notes, failed: exitCode !== 0 }, null, 2)}\n`);
} else {
  process.stdout.write(`${report()}\n\n${exitCode ? 'bench FAILED (see above); ' : ''}total ${total.toFixed(0)} s\n`);
}
process.exitCode = exitCode;
