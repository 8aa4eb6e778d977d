// Shared machinery of the reliability suite: fettle spawned asynchronously (so many can run at once and a
// test can kill one mid-flight), a seeded PRNG, the Claude Code host's side of a Write, and the tally of what
// the suite did, printed at the end of each file for docs/RELIABILITY.md.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { CLI, overHttp, writePayload, type WriteCall } from '../helpers/cli';
import { clientCall, sharedResident } from '../helpers/resident';
import { makeRepo, type Repo } from '../helpers/repo';

/** Iteration multiplier: 1 in CI (the default), larger locally (`FETTLE_STRESS=10`). */
export const STRESS = Math.max(1, Number.parseInt(process.env.FETTLE_STRESS ?? '1', 10) || 1);

/** Fixed unless FETTLE_SEED is set, so a CI failure replays exactly; every randomized test prints its seed. */
export const SEED = Number.parseInt(process.env.FETTLE_SEED ?? '20260601', 10) >>> 0;

/** mulberry32: tiny, fast, good enough to drive test choices reproducibly. */
export const prng = (seed: number) => {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
};
export type Rng = ReturnType<typeof prng>;

export interface Proc {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
  /** true when the test itself killed it */
  killed: boolean;
}

export interface SpawnOpts {
  cwd: string;
  env: Record<string, string>;
  input?: string | Buffer;
  failpoints?: string;
  /** SIGKILL after this many ms (the whole process group, so git children die too) */
  killAfterMs?: number;
  /** prefix argv, e.g. setpriv or faketime */
  wrap?: string[];
  /** RLIMIT_FSIZE in 512-byte blocks, applied by the shell before exec */
  ulimitBlocks?: number;
  /** RLIMIT_NOFILE: how many descriptors the process may hold, applied by the shell before exec */
  ulimitFiles?: number;
  /** RLIMIT_AS in KiB: the address space the process may take, applied by the shell before exec */
  ulimitVirtualKb?: number;
  onSpawn?: (pid: number) => void;
  /** each chunk of stderr as it arrives */
  onStderr?: (chunk: Buffer) => void;
}

/** The built CLI in its own process group, as a host would run it. Never rejects. */
export const spawnFettle = (args: string[], o: SpawnOpts): Promise<Proc> =>
  spawnArgv([process.execPath, CLI, ...args], o);

/** Any command (git, as the user runs it) under the same rules as spawnFettle. */
export const spawnArgv = (command: string[], o: SpawnOpts): Promise<Proc> =>
  new Promise((resolve) => {
    let argv = command;
    if (o.ulimitBlocks !== undefined) argv = ['sh', '-c', `ulimit -f ${o.ulimitBlocks} && exec "$@"`, 'sh', ...argv];
    if (o.ulimitFiles !== undefined) argv = ['sh', '-c', `ulimit -n ${o.ulimitFiles} && exec "$@"`, 'sh', ...argv];
    if (o.ulimitVirtualKb !== undefined)
      argv = ['sh', '-c', `ulimit -v ${o.ulimitVirtualKb} && exec "$@"`, 'sh', ...argv];
    if (o.wrap) argv = [...o.wrap, ...argv];
    const env = { ...o.env, ...(o.failpoints ? { FETTLE_FAILPOINTS: o.failpoints } : {}) };
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: o.cwd, env, detached: true, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let killed = false;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      err.push(c);
      o.onStderr?.(c);
    });
    child.stdin.on('error', () => undefined);
    if (child.pid) o.onSpawn?.(child.pid);
    if (o.killAfterMs !== undefined) {
      timer = setTimeout(() => {
        killed = true;
        killGroup(child.pid);
      }, o.killAfterMs);
    }
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        pid: child.pid ?? -1,
        killed,
      });
    });
    child.stdin.end(o.input ?? '');
  });

export const killGroup = (pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void => {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};

export const show = (p: Proc | undefined): string =>
  p
    ? `exit ${p.code} signal ${p.signal}\nstdout: ${p.stdout.slice(0, 2000)}\nstderr: ${p.stderr.slice(0, 2000)}`
    : 'not run';

export const hookJson = (p: Proc): { hookSpecificOutput?: Record<string, string> } | undefined => {
  try {
    return p.stdout.trim() ? JSON.parse(p.stdout) : undefined;
  } catch {
    return undefined;
  }
};
export const decisionOf = (p: Proc): string | undefined => hookJson(p)?.hookSpecificOutput?.permissionDecision;

/** Claude Code's view of a PreToolUse: it writes unless the hook denied, asked, or exited 2. */
export const hostProceeds = (pre: Proc): boolean =>
  pre.code !== 2 && decisionOf(pre) !== 'deny' && decisionOf(pre) !== 'ask';

export interface AgentRun {
  pre: Proc;
  post?: Proc;
  written: boolean;
}

/**
 * One Write as the host runs it: PreToolUse; unless it stopped the call, the tool writes `content` (plain
 * writeFileSync, as the host does: same inode, mode kept); then PostToolUse. `preOpts` can kill or fault the Pre.
 */
/** A hook call: `fettle hook`, or with FETTLE_TEST_HOOK_PATH=http the resident server, as Claude Code calls it. */
export const spawnHook = (o: SpawnOpts): Promise<Proc> => {
  if (!overHttp()) return spawnFettle(['hook'], o);
  const call = clientCall(sharedResident(), o.env);
  return spawnArgv(call.argv, { ...o, env: call.env });
};

export const agentWrite = async (
  c: WriteCall,
  env: Record<string, string>,
  preOpts: Partial<SpawnOpts> = {},
  postOpts: Partial<SpawnOpts> = {},
): Promise<AgentRun> => {
  const pre = await spawnHook({
    cwd: c.cwd,
    env,
    input: JSON.stringify(writePayload({ ...c, event: 'PreToolUse' })),
    ...preOpts,
  });
  if (!hostProceeds(pre)) return { pre, written: false };
  try {
    mkdirSync(dirname(c.file), { recursive: true });
    writeFileSync(c.file, c.content);
  } catch {
    return { pre, written: false }; // the tool failed (ELOOP, EISDIR, …): the host sends no PostToolUse
  }
  const post = await spawnHook({
    cwd: c.cwd,
    env,
    input: JSON.stringify(writePayload({ ...c, event: 'PostToolUse' })),
    ...postOpts,
  });
  return { pre, post, written: true };
};

/**
 * A test repository (helpers/repo.ts) whose history fettle keeps whole: the retention policy (at most 100
 * changes by default) would otherwise drop records the invariants count on. Retention has its own tests.
 */
/** FETTLE_TEST_OBJECT_FORMAT=sha256 runs the reliability suite in sha256 repositories (formats.test.ts sets it). */
export const repoWith = (files: Record<string, string | Buffer> = {}, options: { commit?: boolean } = {}): Repo => {
  const format = process.env.FETTLE_TEST_OBJECT_FORMAT;
  const repo = makeRepo(files, {
    ...options,
    ...(format === 'sha1' || format === 'sha256' ? { objectFormat: format } : {}),
  });
  repo.env.FETTLE_HISTORY_MAX_COUNT = '1000000';
  return repo;
};

/** Runs `jobs` with at most `width` in flight. */
export const pool = async <T>(width: number, jobs: (() => Promise<T>)[]): Promise<T[]> => {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await (jobs[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, lane));
  return results;
};

/** Whether a tool is on PATH; FETTLE_TEST_WITHOUT=a,b pretends some are not (to check the skips). */
export const have = (cmd: string): boolean =>
  !(process.env.FETTLE_TEST_WITHOUT ?? '').split(',').includes(cmd) &&
  spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const isRoot = process.getuid?.() === 0;

/** argv prefix that runs a child as nobody (CI runs as root, and root ignores permission bits). */
export const NOBODY = { uid: 65534, gid: 65534 };
export const asNobody = (): string[] | null =>
  have('setpriv') ? ['setpriv', `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups'] : null;

/** Hands a tree to nobody and opens the path down to it, so a process running as nobody can use it. */
export const giveToNobody = (root: string): void => {
  const walk = (p: string) => {
    chownSync(p, NOBODY.uid, NOBODY.gid);
    if (statSync(p).isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(root);
  for (let dir = root; dir !== '/'; dir = dirname(dir)) chmodSync(dir, statSync(dir).mode | 0o755);
};

/** What the suite did, per file, for docs/RELIABILITY.md: printed at the end, appended to FETTLE_RELIABILITY_REPORT. */
export const tally: Record<string, number> = {};
let inKnownBug = false;
/** Violations found inside a scenario marked todo (a known, reported bug) are tallied apart. */
export const count = (key: string, n = 1): void => {
  const k =
    inKnownBug && ['torn', 'lost', 'crashes', 'wrongExits', 'litterLeft', 'corruptRefs'].includes(key)
      ? `knownBug.${key}`
      : key;
  tally[k] = (tally[k] ?? 0) + n;
};

/** `test()` that may be marked todo with the bug it demonstrates; its violations are tallied as known bugs. */
export const scenario = (
  name: string,
  todo: string | undefined,
  body: (t: TestContext) => Promise<void> | void,
): void => {
  test(name, todo ? { todo } : {}, async (t) => {
    inKnownBug = todo !== undefined;
    try {
      await body(t);
    } finally {
      inKnownBug = false;
    }
  });
};
export const reportAs = (suite: string): void => {
  after(() => {
    const line = JSON.stringify({ suite, stress: STRESS, seed: SEED, ...tally });
    process.stdout.write(`# reliability ${line}\n`);
    if (process.env.FETTLE_RELIABILITY_REPORT) appendFileSync(process.env.FETTLE_RELIABILITY_REPORT, `${line}\n`);
  });
};

/** Text of n numbered lines, distinct per tag so every version of a file is unique. */
export const text = (n: number, tag: string): string =>
  Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

/** A modification of `base` touching `k` lines (direct below the floor, staged above the ceiling). */
export const edit = (base: string, k: number, tag: string): string =>
  base
    .split('\n')
    .map((l, i) => (i < k && l !== '' ? `${l} ${tag}` : l))
    .join('\n');
