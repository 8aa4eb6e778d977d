// B.5 rows 6-8, 22: the disk says no. File size limit (SIGXFSZ/EFBIG), a full filesystem (a small tmpfs),
// read-only directory / file / .git (as nobody: CI runs as root, and root ignores permission bits), fsync
// failing with EIO (libfiu), and the order of fsyncs and renames (strace). Each tool that is missing skips
// its scenario with the reason.
// Tier: slow, a reliability loop: many fettle processes per case (kills, faults, fuzzed input, concurrent writers) (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { CLI, writePayload } from '../helpers/cli';
import { repoAt, type Repo } from '../helpers/repo';
import {
  agentWrite,
  asNobody,
  count,
  giveToNobody,
  have,
  isRoot,
  repoWith,
  reportAs,
  scenario,
  show,
  spawnFettle,
  text,
  type SpawnOpts,
} from './harness';
import { checkInvariants, expectOutcome, track, userState } from './invariants';

reportAs('faults');

const OLD = text(40, 'old');
const SMALL = OLD.replace('old 1\n', 'old 1 changed\n');

const fresh = (files: Record<string, string | Buffer> = { 'a.txt': OLD }): Repo => repoWith(files);

/** Runs `fettle write <file>` and checks the failure is clean: exit 1, a message matching `why`, file untouched. */
const writeFails = async (
  repo: Repo,
  file: string,
  content: string | Buffer,
  why: RegExp,
  o: Partial<SpawnOpts> = {},
) => {
  const before = userState(repo);
  const t = track(repo.path(file), []);
  const r = await spawnFettle(['write', file], { cwd: repo.dir, env: repo.env, input: content, ...o });
  count('faults');
  expectOutcome(r, { exit: [1] });
  assert.match(r.stderr, why, show(r));
  checkInvariants(repo, before, { files: [t], litter: 'none' });
};

/** A hook PreToolUse that cannot record blocks the write (exit 2) with one line saying so. */
const hookBlocks = async (repo: Repo, file: string, content: string, why: RegExp, o: Partial<SpawnOpts> = {}) => {
  const before = userState(repo);
  const t = track(repo.path(file), []);
  const run = await agentWrite({ file: repo.path(file), content, cwd: repo.dir }, repo.env, o);
  count('faults');
  expectOutcome(run.pre, { exit: [2], hook: true });
  assert.match(run.pre.stderr, /^fettle blocked this write because it could not save the previous content/);
  assert.match(run.pre.stderr, why, show(run.pre));
  assert.equal(run.written, false);
  checkInvariants(repo, before, { files: [t], litter: 'none' });
};

// ---- file size limit (RLIMIT_FSIZE): git is killed by SIGXFSZ, node gets EFBIG ----

// Random bytes: git compresses loose objects, so only incompressible content reaches the limit in git too.
const noise = (n: number): Buffer => randomBytes(n);

scenario(
  'ulimit -f: `fettle write` of a direct change larger than the limit fails cleanly and changes nothing',
  undefined,
  async () => {
    const repo = fresh({ 'data.bin': noise(1024) });
    await writeFails(repo, 'data.bin', noise(600 * 1024), /larger than this process may write/, { ulimitBlocks: 256 });
  },
);

scenario(
  'ulimit -f: `fettle write` of a staged change whose proposal cannot be stored fails cleanly and changes nothing',
  undefined,
  async () => {
    const repo = fresh();
    await writeFails(repo, 'a.txt', noise(600 * 1024), /larger than this process may write/, { ulimitBlocks: 256 });
  },
);

scenario('ulimit -f: a hook write whose previous bytes cannot be stored is blocked', undefined, async () => {
  const repo = fresh();
  repo.write('data.bin', noise(300 * 1024)); // not committed: git must write it
  await hookBlocks(
    repo,
    'data.bin',
    'new\n',
    /could not save the previous content .* larger than this process may write/,
    { ulimitBlocks: 64 },
  );
});

// ---- a full disk: a 3 MB tmpfs holding the repository ----

const mounts: string[] = [];
after(() => {
  for (const m of mounts) {
    spawnSync('umount', ['-l', m]);
    rmSync(m, { recursive: true, force: true });
  }
});

const tmpfsRepo = (): Repo | null => {
  if (!isRoot || !have('mount')) return null;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fettle-tmpfs-')));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir]).status !== 0) return null;
  mounts.push(dir);
  mkdirSync(join(dir, 'repo'));
  const repo = repoAt(join(dir, 'repo'), dir);
  repo.env.FETTLE_HISTORY_MAX_COUNT = '1000000';
  repo.git('init', '-q', '-b', 'main');
  repo.git('config', 'gc.auto', '0');
  repo.write('a.txt', OLD);
  repo.commit('initial');
  return repo;
};
const NO_TMPFS = 'needs root and a mountable tmpfs for a real ENOSPC';

/** Leaves about `free` bytes on the filesystem. */
const fill = (repo: Repo, free: number): void => {
  const avail = () =>
    Number(spawnSync('df', ['-B1', '--output=avail', repo.dir], { encoding: 'utf8' }).stdout.split('\n')[1]);
  writeFileSync(join(repo.dir, '..', 'filler'), Buffer.alloc(Math.max(0, avail() - free)));
};

for (const [label, free] of [
  ['the record', 16 * 1024],
  ['the new file', 400 * 1024],
] as const) {
  scenario(
    `disk full while writing ${label}: \`fettle write\` fails saying the disk is full, old bytes intact`,
    undefined,
    async (t) => {
      const repo = tmpfsRepo();
      if (!repo) return t.skip(NO_TMPFS);
      repo.write('a.txt', Buffer.alloc(free === 16 * 1024 ? 300 * 1024 : 1024, 'o'));
      fill(repo, free);
      // git's own message for a ref it cannot write names the lock file, not the errno.
      await writeFails(repo, 'a.txt', Buffer.alloc(600 * 1024, 'n'), /disk is full|No space left|couldn't write/);
    },
  );
}

scenario('disk full: a hook write whose previous bytes cannot be stored is blocked', undefined, async (t) => {
  const repo = tmpfsRepo();
  if (!repo) return t.skip(NO_TMPFS);
  // Incompressible: 300 KB that no zlib level fits into the 16 KB left.
  repo.write('a.txt', noise(300 * 1024));
  fill(repo, 16 * 1024);
  await hookBlocks(repo, 'a.txt', 'new\n', /No space left|disk is full|couldn't write/);
});

// ---- read-only: run fettle as nobody ----

/** As root: the repository handed to nobody and fettle run as nobody. Otherwise the bits already bind. */
const nobodyRepo = (): { repo: Repo; wrap: string[] } | null => {
  const repo = fresh({ 'a.txt': OLD, 'ro/f.txt': OLD });
  if (!isRoot) return { repo, wrap: [] };
  const wrap = asNobody();
  if (!wrap) return null;
  giveToNobody(repo.home);
  // The checks run git as root in nobody's repository: let them (fettle scrubs GIT_CONFIG_*).
  Object.assign(repo.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' });
  return { repo, wrap };
};
const NO_SETPRIV =
  'running as root without setpriv: root ignores permission bits, and fettle cannot be run as another user';

scenario(
  'read-only directory: `fettle write` fails with "permission denied" naming the path; nothing changes',
  undefined,
  async (t) => {
    const s = nobodyRepo();
    if (!s) return t.skip(NO_SETPRIV);
    chmodSync(s.repo.path('ro'), 0o555);
    await writeFails(s.repo, 'ro/f.txt', SMALL, /permission denied \(.*ro\//, { wrap: s.wrap });
    chmodSync(s.repo.path('ro'), 0o755);
  },
);

scenario(
  'read-only file (0444) in a writable directory: replaced with its mode kept, or refused; never left torn',
  undefined,
  async (t) => {
    const s = nobodyRepo();
    if (!s) return t.skip(NO_SETPRIV);
    chmodSync(s.repo.path('a.txt'), 0o444);
    const before = userState(s.repo);
    const tracked = track(s.repo.path('a.txt'), [SMALL]);
    const r = await spawnFettle(['write', 'a.txt'], { cwd: s.repo.dir, env: s.repo.env, input: SMALL, wrap: s.wrap });
    count('faults');
    expectOutcome(r, { exit: [0, 1, 5] });
    checkInvariants(s.repo, before, { files: [tracked], litter: 'none' });
    if (r.code === 0) assert.equal(statSync(s.repo.path('a.txt')).mode & 0o777, 0o444, 'the read-only mode is kept');
    t.diagnostic(`read-only file: ${r.code === 0 ? 'replaced, mode 0444 kept' : 'refused'}`);
  },
);

for (const [label, paths] of [
  ['.git/objects', ['.git/objects']],
  ['.git/refs', ['.git/refs']],
  ['the whole .git', ['.git']],
] as const) {
  scenario(
    `${label} not writable: the hook blocks and \`fettle write\` fails; nothing changes`,
    undefined,
    async (t) => {
      const s = nobodyRepo();
      if (!s) return t.skip(NO_SETPRIV);
      for (const p of paths) spawnSync('chmod', ['-R', 'a-w', s.repo.path(p)]);
      // git names the failing step ("unable to create directory for .git/refs/..."), not always the errno.
      const why = /permission|denied|insufficient|unable to create/i;
      await hookBlocks(s.repo, 'a.txt', SMALL, why, { wrap: s.wrap });
      await writeFails(s.repo, 'a.txt', SMALL, why, { wrap: s.wrap });
      spawnSync('chmod', ['-R', 'u+w', s.repo.path('.git')]);
    },
  );
}

// ---- fsync fails with EIO (libfiu, enabled in the running fettle only) ----

const NO_FIU = 'needs fiu-run and fiu-ctrl (Debian fiu-utils)';

/** `fettle write` stalled at `point`, then every fsync of that process fails with EIO. */
/**
 * `fettle write` under libfiu, its fsync made to fail once the process sleeps at `point`: armed only then (the
 * failpoint says so on stderr), so a start slower than usual never arms it early, at an fsync before the point.
 */
const fsyncFailsAt = async (repo: Repo, point: string, input: string) => {
  let pid = 0;
  let reached: () => void = () => undefined;
  const sleeping = new Promise<void>((r) => {
    reached = r;
  });
  let said = '';
  const run = spawnFettle(['write', 'a.txt'], {
    cwd: repo.dir,
    env: repo.env,
    input,
    failpoints: `${point}=sleep:1500`,
    wrap: ['fiu-run', '-x'],
    onSpawn: (p) => (pid = p),
    onStderr: (chunk) => {
      said += chunk.toString('utf8');
      if (said.includes(`failpoint ${point} sleeping`)) reached();
    },
  });
  const outcome = await Promise.race([sleeping.then(() => 'reached'), run.then(() => 'ended')]);
  assert.equal(outcome, 'reached', `fettle ended before the failpoint ${point}: ${said}`);
  const ctl = spawnSync('fiu-ctrl', ['-c', 'enable name=posix/io/sync/fsync,failinfo=5', String(pid)], {
    encoding: 'utf8',
  });
  assert.equal(ctl.status, 0, ctl.stderr);
  count('faults');
  return run;
};

scenario(
  'fsync of the temp file fails (EIO): the write fails, the old file is kept, no temp file left',
  undefined,
  async (t) => {
    if (!have('fiu-run') || !have('fiu-ctrl')) return t.skip(NO_FIU);
    const repo = fresh();
    const before = userState(repo);
    const tracked = track(repo.path('a.txt'), []);
    const r = await fsyncFailsAt(repo, 'write.recorded', SMALL);
    expectOutcome(r, { exit: [1] });
    assert.match(r.stderr, /I\/O error/);
    checkInvariants(repo, before, { files: [tracked], litter: 'none' });
  },
);

scenario(
  'fsync of the directory fails (EIO) after the rename: the message says the file was replaced',
  undefined,
  async (t) => {
    if (!have('fiu-run') || !have('fiu-ctrl')) return t.skip(NO_FIU);
    const repo = fresh();
    const before = userState(repo);
    const tracked = track(repo.path('a.txt'), [SMALL]);
    const r = await fsyncFailsAt(repo, 'replace.temp-synced', SMALL);
    expectOutcome(r, { exit: [1] });
    checkInvariants(repo, before, { files: [tracked], litter: 'none' });
    assert.match(r.stderr, /written|replaced|may not be durable/i, show(r));
  },
);

// ---- durability order (B.5 row 22): fsync(temp) < rename < fsync(dir); the previous bytes' blob first ----

scenario(
  'strace: previous bytes fsynced (pack and ref value, the pack directory, then the ref named), then temp fsynced, renamed over the file, directory fsynced',
  undefined,
  async (t) => {
    if (!have('strace') || spawnSync('strace', ['-o', '/dev/null', 'true']).status !== 0)
      return t.skip('needs strace with ptrace allowed');
    const repo = fresh();
    const trace = join(repo.home, 'trace');
    const r = await spawnFettle(['write', 'a.txt'], {
      cwd: repo.dir,
      env: repo.env,
      input: SMALL,
      wrap: [
        'strace',
        '-f',
        '-y',
        '-qq',
        '-o',
        trace,
        '-e',
        'trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat',
      ],
    });
    expectOutcome(r, { exit: [0] });
    const lines = readFileSync(trace, 'utf8').split('\n');
    const first = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const last = (re: RegExp) => lines.length - 1 - [...lines].reverse().findIndex((l) => re.test(l));
    const objectSync = first(/fsync\(\d+<[^>]*\/objects\/pack\/tmp_pack_/);
    const packDirSync = first(/fsync\(\d+<[^>]*\/objects\/pack>\)/);
    // The ref's value is synced beside the pack, and gets its name only once the pack's directory is synced.
    const refSync = first(/fsync\(\d+<[^>]*\/fettle\/new-refs\/[^/]+\/\d+-[0-9a-f]+>/);
    const refLink = first(/link\w*\(.*\/fettle\/new-refs\/[^/]+\/\d+-[0-9a-f]+".*"[^"]*\/refs\/fettle\/[0-9a-z]{8}"/);
    const tempSync = first(/fsync\(\d+<[^>]*\.a\.txt\.fettle-\d+-[0-9a-f]+\.tmp>/);
    const rename = first(/rename\w*\(.*\.a\.txt\.fettle-\d+-[0-9a-f]+\.tmp".*"[^"]*\/a\.txt"/);
    const dirSync = last(new RegExp(`fsync\\(\\d+<${repo.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}>\\)`));
    const order = { objectSync, packDirSync, refSync, refLink, tempSync, rename, dirSync };
    assert.ok(
      Object.values(order).every((i) => i >= 0),
      `every step was traced: ${JSON.stringify(order)}\n${lines.join('\n').slice(0, 3000)}`,
    );
    assert.ok(objectSync < packDirSync && packDirSync < refLink && refSync < refLink, JSON.stringify(order));
    assert.ok(refLink < rename && tempSync < rename && rename < dirSync, JSON.stringify(order));
    rmSync(trace);
  },
);

// ---- out of file descriptors (RLIMIT_NOFILE): spawning git fails with EMFILE ----

scenario(
  'ulimit -n: out of descriptors, every hook call blocks with one line or completes; none fails open',
  undefined,
  async () => {
    // From too few descriptors to start git at all up to enough for some of its processes: each limit stops the
    // hook at a different step. Whatever the step, a PreToolUse either completes (a record or a staged change)
    // or blocks (exit 2); exit 1 or a crash would let the client write with nothing recorded.
    for (const limit of [20, 22, 24, 26, 28, 30]) {
      for (const content of [SMALL, text(40, 'new')]) {
        const repo = fresh();
        const before = userState(repo);
        const t = track(repo.path('a.txt'), []);
        const run = await agentWrite({ file: repo.path('a.txt'), content, cwd: repo.dir }, repo.env, {
          ulimitFiles: limit,
        });
        count('faults');
        expectOutcome(run.pre, { exit: [0, 2], hook: true });
        if (run.pre.code === 2) {
          assert.match(run.pre.stderr, /^fettle blocked this write because it could not save the previous content/);
          assert.equal(run.written, false, show(run.pre));
          checkInvariants(repo, before, { files: [t], litter: 'none' });
        }
      }
    }
  },
);

// ---- a reader that closes stdout early (EPIPE) ----

/** The hook with its stdout closed by the reader before it answers. */
const hookWithClosedStdout = (repo: Repo, payload: unknown): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'hook'], { cwd: repo.dir, env: repo.env, stdio: 'pipe' });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });

scenario(
  'EPIPE: a deny nobody can read becomes a block; a note nobody can read is dropped; no stack',
  undefined,
  async () => {
    const repo = fresh();
    const before = userState(repo);
    const t = track(repo.path('a.txt'), []);
    const large = writePayload({ file: repo.path('a.txt'), content: text(40, 'new'), cwd: repo.dir });
    const staged = await hookWithClosedStdout(repo, large);
    count('faults');
    assert.equal(staged.code, 2, staged.stderr);
    assert.match(staged.stderr, /^fettle could not deliver its answer \(EPIPE.*nothing was written\.\n$/);
    checkInvariants(repo, before, { files: [t], owed: [Buffer.from(text(40, 'new'))], litter: 'none' });
    const small = { file: repo.path('a.txt'), content: SMALL, cwd: repo.dir, toolUseId: 'toolu_small' };
    const pre = await hookWithClosedStdout(repo, writePayload(small));
    assert.equal(pre.code, 0, pre.stderr);
    repo.write('a.txt', SMALL);
    const post = await hookWithClosedStdout(repo, writePayload({ ...small, event: 'PostToolUse' }));
    assert.equal(post.code, 0, post.stderr);
    assert.equal(post.stderr, '');
  },
);

// ---- a file larger than one Buffer can hold (2 GiB): sparse, so it costs no disk ----

scenario(
  'an Edit of a file over 2 GiB passes with a notice that it is not protected; nothing half-recorded',
  undefined,
  async () => {
    const repo = fresh();
    const big = repo.path('big.log');
    spawnSync('truncate', ['-s', '2200M', big]);
    try {
      const before = userState(repo);
      const payload = {
        ...writePayload({ file: big, content: '', cwd: repo.dir }),
        tool_name: 'Edit',
        tool_input: { file_path: big, old_string: 'a', new_string: 'b' },
      };
      const pre = await spawnFettle(['hook'], { cwd: repo.dir, env: repo.env, input: JSON.stringify(payload) });
      count('faults');
      expectOutcome(pre, { exit: [1], hook: true });
      assert.match(pre.stderr, /^fettle: .*big\.log is 2\.1 GiB, larger than fettle can record .* is NOT protected/);
      const write = await spawnFettle(['write', 'big.log'], { cwd: repo.dir, env: repo.env, input: 'x\n' });
      expectOutcome(write, { exit: [1] });
      assert.match(write.stderr, /larger than fettle can record/, show(write));
      assert.equal(statSync(big).size, 2200 * 2 ** 20, 'fettle write replaced what it could not record');
      checkInvariants(repo, before, { files: [], litter: 'none' });
    } finally {
      rmSync(big, { force: true });
    }
  },
);
