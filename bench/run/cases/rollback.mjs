// Case 8: `fettle rollback --session` of a long agent session (1,000 changes), wall time and peak RSS.
//
// The session is written as fettle records it (for each change a `before` commit on HEAD and an `after` commit on
// it under refs/fettle/<id>, and one commit per change on refs/fettle/sessions/<name>), in one `git fast-import`:
// made through the hook, a thousand writes would take minutes of process starts before anything is measured.
// The session edits existing files several times each, creates files and edits them, and afterwards the shell
// removes some of its files and moves others away, as the replayed sessions did.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { baseEnv, CLI, git, TMP } from '../env.mjs';
import { buildRepo, removeRepo, settle } from '../fixtures.mjs';
import { fail } from '../hook-calls.mjs';
import { opts, PROCESS_TIMEOUT_MS, SIZES } from '../options.mjs';
import { log } from '../progress.mjs';
import { info, results } from '../results.mjs';
import { stats } from '../timing.mjs';

export const SESSION = 'bench-rollback';
/** Each file of the session is written this many times in a row. */
const EDITS = 4;
const TIME_BIN = '/usr/bin/time';

const version = (path, v) => `${path}\n${'a line of fixture text\n'.repeat(5)}${v > 0 ? `agent edit ${v}\n` : ''}`;

const record = (o) =>
  [
    o.kind === 'before' ? `fettle: before ${o.path}` : `fettle: write ${o.path} (+1 -1)`,
    '',
    o.kind === 'before'
      ? 'The file as it was on disk before the agent wrote it.'
      : 'The agent wrote this change directly; its parent holds the previous bytes.',
    '',
    `Fettle-Id: ${o.id}`,
    `Fettle-Kind: ${o.kind}`,
    'Fettle-Tier: direct',
    `Fettle-Path: ${o.path}`,
    `Fettle-File: ${o.file}`,
    'Fettle-Stat: +1 -1',
    'Fettle-Reason: small',
    'Fettle-Tool: Write',
    `Fettle-Session: ${SESSION}`,
    `Fettle-Time: ${o.time}`,
    `Fettle-Seq: ${o.kind === 'before' ? 1 : 2}`,
    '',
  ].join('\n');

const sessionRecord = (o) =>
  [
    `fettle: write ${o.path} (+1 -1)`,
    '',
    `Change ${o.id} landed in agent session ${SESSION}.`,
    '',
    `Fettle-Change: ${o.id}`,
    'Fettle-Event: write',
    `Fettle-Path: ${o.path}`,
    `Fettle-Session: ${SESSION}`,
    `Fettle-Base: ${o.base}`,
    `Fettle-Time: ${o.time}`,
    'Fettle-Seq: 3',
    '',
  ].join('\n');

/**
 * `changes` changes of one session in `repo`, EDITS per file, round-robin over the files in time; a tenth of the
 * files are created by the session. The work tree ends as the session left it, then the shell removes and moves
 * some files. Returns the paths whose bytes a rollback must change.
 */
export const seedSession = (repo, changes) => {
  const t = performance.now();
  const head = git(repo, ['rev-parse', 'HEAD']).trim();
  const tracked = git(repo, ['ls-files', 'src/d*']).split('\n').filter(Boolean);
  const fileCount = Math.ceil(changes / EDITS);
  const files = Array.from({ length: fileCount }, (_, j) =>
    j % 10 === 9 ? { path: `src/new/n${j}.txt`, created: true } : { path: tracked[j], created: false },
  );
  const parts = [];
  const data = (text) => {
    const b = Buffer.from(text);
    parts.push(Buffer.from(`data ${b.length}\n`), b, Buffer.from('\n'));
  };
  let mark = 0;
  let session = head;
  const start = Date.now() - 3_600_000;
  for (let n = 0; n < changes; n++) {
    const f = files[n % fileCount];
    const v = Math.floor(n / fileCount) + 1;
    const id = `r${n.toString(36).padStart(7, '0')}`;
    const time = start + n * 50;
    const sec = Math.floor(time / 1000);
    const o = { id, path: f.path, file: join(repo, f.path), time, base: head };
    const before = (f.original ??= f.created ? null : readFileSync(join(repo, f.path), 'utf8'));
    const previous = v === 1 ? before : version(f.path, v - 1);
    const blob = (text) => {
      parts.push(Buffer.from(`M 100644 inline ${f.path}\n`));
      data(text);
    };
    parts.push(
      Buffer.from(`commit refs/fettle/${id}\nmark :${++mark}\ncommitter fettle <fettle@localhost> ${sec} +0000\n`),
    );
    data(record({ ...o, kind: 'before', time: time - 20 }));
    parts.push(Buffer.from(`from ${head}\n`));
    if (previous === null) parts.push(Buffer.from(`D ${f.path}\n`));
    else blob(previous);
    parts.push(
      Buffer.from(`commit refs/fettle/${id}\nmark :${++mark}\ncommitter fettle <fettle@localhost> ${sec} +0000\n`),
    );
    data(record({ ...o, kind: 'after' }));
    parts.push(Buffer.from(`from :${mark - 1}\n`));
    blob(version(f.path, v));
    parts.push(
      Buffer.from(
        `commit refs/fettle/sessions/${SESSION}\nmark :${++mark}\ncommitter fettle <fettle@localhost> ${sec} +0000\n`,
      ),
    );
    data(sessionRecord(o));
    parts.push(Buffer.from(`from ${session}\n`));
    blob(version(f.path, v));
    session = `:${mark}`;
    f.last = version(f.path, v);
  }
  git(repo, ['fast-import', '--quiet'], { input: Buffer.concat(parts) });
  for (const f of files) {
    mkdirSync(dirname(join(repo, f.path)), { recursive: true });
    writeFileSync(join(repo, f.path), f.last);
  }
  // The shell afterwards: `rm` of one file in 20 (some the session created), `mv` of another one in 20.
  const expected = [];
  files.forEach((f, j) => {
    const p = join(repo, f.path);
    if (j % 20 === 3 || j % 20 === 9) unlinkSync(p);
    else if (j % 20 === 7) renameSync(p, `${p}.moved`);
    // A file the session created and the shell removed is already as it was: nothing to do.
    if (!(f.created && !existsSync(p))) expected.push(f.path);
  });
  log(
    `seeded a session of ${changes} changes to ${fileCount} files in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return expected.sort();
};

/** Wall time and peak RSS (GNU time: the process and the git processes it waited for) of one fettle command. */
const measured = (repo, args) => {
  const out = join(TMP, 'rollback-time.txt');
  const t = performance.now();
  const r = spawnSync(TIME_BIN, ['-f', '%M', '-o', out, process.execPath, CLI, ...args], {
    cwd: repo,
    env: baseEnv,
    maxBuffer: 256 * 1024 * 1024,
    timeout: PROCESS_TIMEOUT_MS,
  });
  const ms = performance.now() - t;
  const kb = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
  const run = {
    code: r.status,
    signal: r.signal,
    stdout: r.stdout?.toString('utf8') ?? '',
    stderr: r.stderr?.toString('utf8') ?? '',
  };
  if (r.status !== 0 || !(kb > 0)) fail(`fettle ${args.join(' ')}`, run);
  return { ms, mb: kb / 1024, stdout: run.stdout };
};

export const measureRollback = () => {
  const name = `fettle rollback --session, ${SIZES.rollback} changes`;
  if (!existsSync(TIME_BIN)) {
    results.push({
      id: '8',
      name,
      fettle: null,
      baseline: null,
      ratio: null,
      target: { op: 'ms<=', value: 10_000 },
      met: null,
      note: 'n/a: no GNU time at /usr/bin/time (Debian package `time`)',
    });
    return;
  }
  const r = buildRepo('repo-rollback', SIZES.files);
  const expected = seedSession(r.repo, SIZES.rollback);
  settle();
  log(`case 8: ${name}: dry run, then the rollback`);
  const dry = [];
  for (let i = 0; i < Math.min(3, SIZES.runs); i++) {
    const d = measured(r.repo, ['rollback', '--session', SESSION, '--dry-run', '--json']);
    const listed = JSON.parse(d.stdout)
      .files.map((f) => f.path)
      .sort();
    if (JSON.stringify(listed) !== JSON.stringify(expected))
      fail(`the dry run listed ${listed.length} files, expected ${expected.length}`, {
        code: 0,
        stdout: d.stdout.slice(0, 2000),
        stderr: '',
      });
    dry.push(d);
  }
  const done = measured(r.repo, ['rollback', '--session', SESSION, '--json']);
  const left = git(r.repo, ['status', '--porcelain', '--untracked-files=no']).trim();
  if (left !== '')
    fail('after the rollback, tracked files differ from HEAD', { code: 0, stdout: left.slice(0, 2000), stderr: '' });
  results.push({
    id: '8',
    name: `${name} (${expected.length} files): wall time`,
    fettle: { median: done.ms, n: 1 },
    baseline: null,
    ratio: null,
    target: { op: 'ms<=', value: 10_000 },
    met: opts.quick ? null : done.ms <= 10_000,
  });
  results.push({
    id: '8m',
    name: `${name}: peak RSS`,
    fettle: { median: done.mb, n: 1, unit: 'MB' },
    baseline: null,
    ratio: null,
    target: { op: 'MB<=', value: 200 },
    met: opts.quick ? null : done.mb <= 200,
  });
  info.push({ id: '8-dry', name: `${name}, --dry-run: wall time`, ...stats(dry.map((d) => d.ms)) });
  info.push({ id: '8-dry-rss', name: `${name}, --dry-run: peak RSS`, ...stats(dry.map((d) => d.mb)), unit: 'MB' });
  removeRepo(r);
};
