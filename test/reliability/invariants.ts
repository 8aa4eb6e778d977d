// The invariants every reliability scenario ends with (I1-I6, as docs/RELIABILITY.md names them):
//   I1 no torn file: each tracked file holds its old bytes or one of the intended new ones, mode kept;
//   I2 no lost previous content: every byte sequence a write replaced is a blob reachable from refs/fettle*;
//   I3 refs consistent: git fsck clean, every fettle ref a commit whose chain is one change's legal history;
//   I4 the user's HEAD, refs, index, config, hooks and linked worktrees untouched;
//   I5 no litter: no fettle temp file, lock or breaker, no hidden worktree but the test trees `fettle gc` keeps;
//   I6 (per run, see expectOutcome) a stable exit code, no stack trace, one short paragraph.
// Nothing here writes to the repository: no command that refreshes the index.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Repo } from '../helpers/repo';
import { count, show, type Proc } from './harness';

export interface Tracked {
  /** absolute path */
  file: string;
  /** bytes before the scenario (null: absent) */
  old: Buffer | null;
  /** bytes a write in the scenario may leave (null: absent) */
  next: (Buffer | null)[];
  /** permission bits before the scenario */
  mode?: number;
  /** false: the old bytes are not owed even if replaced (the host wrote with no record, see failOpen) */
  owe?: boolean;
}

export interface Expectation {
  files?: Tracked[];
  /** more byte sequences that must be reachable from fettle's refs */
  owed?: Buffer[];
  /** 'none' after clean runs; 'crash' tolerates leftovers of processes the test killed (dead pids only) */
  litter?: 'none' | 'crash';
  /** lock files the scenario itself holds (relative to the git dir) */
  allowLocks?: string[];
}

const sha1 = (b: Buffer | string): string => createHash('sha1').update(b).digest('hex');
export type ObjectFormat = 'sha1' | 'sha256';
/** The id git gives these bytes as a blob, in a repository of `format`. */
export const blobId = (bytes: Buffer, format: ObjectFormat = 'sha1'): string =>
  createHash(format)
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex');
export const formatOf = (repo: Repo): ObjectFormat =>
  repo.git('rev-parse', '--show-object-format') === 'sha256' ? 'sha256' : 'sha1';

const git = (repo: Repo, args: string[]): string =>
  execFileSync('git', args, { cwd: repo.dir, env: repo.env, maxBuffer: 256 * 1024 * 1024 }).toString('utf8');

const commonDirOf = (repo: Repo): string => {
  const d = git(repo, ['rev-parse', '--git-common-dir']).trim();
  return d.startsWith('/') ? d : join(repo.dir, d);
};

const listFiles = (dir: string, skip: (p: string) => boolean = () => false): string[] =>
  !existsSync(dir)
    ? []
    : readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = join(dir, e.name);
        if (skip(p)) return [];
        return e.isDirectory() ? listFiles(p, skip) : [p];
      });

const digest = (p: string): string => (existsSync(p) ? sha1(readFileSync(p)) : '-');

/** Admin dirs of linked worktrees, split into the user's and fettle's hidden ones. */
const worktreeAdmins = (common: string): { user: string[]; fettle: Map<string, string> } => {
  const root = join(common, 'worktrees');
  const user: string[] = [];
  const fettle = new Map<string, string>();
  for (const name of existsSync(root) ? readdirSync(root) : []) {
    const gitdir = existsSync(join(root, name, 'gitdir')) ? readFileSync(join(root, name, 'gitdir'), 'utf8') : '';
    if (gitdir.includes('/fettle/worktrees/')) fettle.set(name, join(root, name));
    else user.push(join(root, name));
  }
  return { user, fettle };
};

/** Everything of the user's fettle must not change (I4), read without writing anything. */
export const userState = (repo: Repo): string => {
  const common = commonDirOf(repo);
  const refs = git(repo, ['for-each-ref', '--format=%(refname) %(objectname)'])
    .split('\n')
    .filter((l) => l && !/ ?refs\/fettle(-discarded)?\//.test(l.split(' ')[0] ?? ''));
  const hooks = listFiles(join(common, 'hooks')).map((p) => `${relative(common, p)} ${statSync(p).mode} ${digest(p)}`);
  const worktrees = worktreeAdmins(common).user.map(
    (d) => `${d} ${digest(join(d, 'HEAD'))} ${digest(join(d, 'index'))}`,
  );
  return JSON.stringify({
    head: digest(join(common, 'HEAD')),
    refs,
    index: digest(join(common, 'index')),
    config: digest(join(common, 'config')),
    // info/refs is derived data `git gc` rewrites; exclude and attributes are the user's.
    info: ['exclude', 'attributes', 'sparse-checkout'].map((f) => digest(join(common, 'info', f))),
    stashLog: digest(join(common, 'logs', 'refs', 'stash')),
    hooks,
    worktrees,
  });
};

interface FettleCommit {
  parents: string[];
  id?: string;
  kind?: string;
  /** a session ref's commit: the change that landed, and the user's commit the session started from */
  change?: string;
  base?: string;
  /** a session commit's event: write, apply, rollback, or found (the bytes the next change replaced) */
  event?: string;
}

/** Every commit reachable from fettle's refs, with its record trailers. */
const fettleCommits = (repo: Repo): Map<string, FettleCommit> => {
  const out = new Map<string, FettleCommit>();
  // A ref to a missing object makes log fail; fsck reports that, so read what can be read.
  const text = spawnSync(
    'git',
    ['log', '--glob=refs/fettle/*', '--glob=refs/fettle-discarded/*', '--format=%H%x00%P%x00%B%x01'],
    {
      cwd: repo.dir,
      env: repo.env,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  ).stdout;
  for (const chunk of text.split('\x01')) {
    const [oid, parents, body] = chunk.replace(/^\n/, '').split('\0');
    if (!oid || body === undefined) continue;
    out.set(oid, {
      parents: (parents ?? '').split(' ').filter(Boolean),
      id: /^Fettle-Id: (.*)$/m.exec(body)?.[1],
      kind: /^Fettle-Kind: (.*)$/m.exec(body)?.[1],
      change: /^Fettle-Change: (.*)$/m.exec(body)?.[1],
      base: /^Fettle-Base: (.*)$/m.exec(body)?.[1],
      event: /^Fettle-Event: (.*)$/m.exec(body)?.[1],
    });
  }
  return out;
};

/** A change's history, bottom first, as `kind` words: the only legal sequences (ARCHITECTURE "One change"). */
// `proposal snapshot` is a merging confirm stopped after committing the user's bytes (it resumes on rerun);
// a change can be discarded from there too.
// A change's chain; or the one commit of a failed confirm or apply (protocol/record/failed.ts).
const LEGAL = /^(before( after| proposal( snapshot)?( applied| discarded)?)?|failed)$/;

export const fettleRefs = (repo: Repo): { ref: string; oid: string; type: string }[] => {
  const refs = git(repo, [
    'for-each-ref',
    '--format=%(refname) %(objectname)',
    'refs/fettle/',
    'refs/fettle-discarded/',
  ])
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ') as [string, string]);
  // %(objecttype) would make for-each-ref fail outright on a ref to a missing object.
  const types = spawnSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd: repo.dir,
    env: repo.env,
    encoding: 'utf8',
    input: refs.map(([, oid]) => `${oid}\n`).join(''),
  }).stdout.split('\n');
  return refs.map(([ref, oid], i) => ({
    ref,
    oid,
    type: /missing/.test(types[i] ?? '') ? 'missing object' : (types[i] ?? '?'),
  }));
};

/**
 * A session ref: its first-parent chain is session commits (each names one change, none landing twice) down to the user's
 * commit the session started from, which every one of them names as its base.
 */
const sessionProblems = (ref: string, oid: string, commits: Map<string, FettleCommit>): string[] => {
  const problems: string[] = [];
  const seen = new Set<string>();
  let at: string | undefined = oid;
  let base: string | undefined;
  let above: FettleCommit | undefined;
  for (; at && commits.get(at)?.change; at = commits.get(at)?.parents[0]) {
    const c = commits.get(at) as FettleCommit;
    // A `found` commit comes right below the landing of the change that replaced its bytes.
    if (c.event === 'found' && (above?.change !== c.change || above?.event === 'found'))
      problems.push(`${ref}: found commit ${at} is not under its change's landing`);
    if (c.event !== 'found' && seen.has(c.change as string)) problems.push(`${ref}: change ${c.change} landed twice`);
    seen.add(c.change as string);
    above = c;
    if (base !== undefined && c.base !== base) problems.push(`${ref}: commit ${at} names base ${c.base}, not ${base}`);
    base = c.base;
    if (commits.get(at)?.kind) problems.push(`${ref}: commit ${at} is a change's record`);
  }
  if (seen.size === 0) problems.push(`${ref}: its tip is not a session commit`);
  if ((at ?? undefined) !== base) problems.push(`${ref}: the session sits on ${at}, but names ${base} as its base`);
  return problems;
};

/** I3: fsck clean; each ref a commit; its first-parent chain one change's legal history under its own id. */
const refProblems = (repo: Repo): string[] => {
  const problems: string[] = [];
  const fsck = spawnSync('git', ['-c', 'core.fsmonitor=false', 'fsck', '--no-dangling', '--no-progress'], {
    cwd: repo.dir,
    env: repo.env,
    encoding: 'utf8',
  });
  if (fsck.status !== 0 || /error|missing|broken|corrupt/i.test(fsck.stderr + fsck.stdout))
    problems.push(`git fsck: ${fsck.status} ${fsck.stderr}${fsck.stdout}`);
  const commits = fettleCommits(repo);
  for (const { ref, oid, type } of fettleRefs(repo)) {
    if (type !== 'commit') {
      problems.push(`${ref} points at a ${type}`);
      continue;
    }
    if (ref.startsWith('refs/fettle/sessions/')) {
      problems.push(...sessionProblems(ref, oid, commits));
      continue;
    }
    // What a session is told of its changes (record/feedback.ts): a chain of its own, no change's record.
    if (ref.startsWith('refs/fettle/feedback/')) {
      if (!/^fettle: feedback to session /.test(git(repo, ['log', '-1', '--format=%s', oid])))
        problems.push(`${ref}: its tip is not a feedback commit`);
      continue;
    }
    const id = ref.slice(ref.lastIndexOf('/') + 1);
    const chain: string[] = [];
    for (let at: string | undefined = oid; at && commits.get(at)?.kind; at = commits.get(at)?.parents[0]) {
      const c = commits.get(at) as FettleCommit;
      if (c.id !== id) problems.push(`${ref}: commit ${at} belongs to change ${c.id}`);
      chain.unshift(c.kind as string);
    }
    const tip = chain[chain.length - 1];
    if (!LEGAL.test(chain.join(' '))) problems.push(`${ref}: illegal history ${chain.join(' -> ')}`);
    if (ref.startsWith('refs/fettle-discarded/') !== (tip === 'discarded')) problems.push(`${ref}: tip is ${tip}`);
  }
  return problems;
};

/**
 * Object ids reachable from fettle's refs (the parents of `before` records included: HEAD's files), and the
 * ids those refs need that are missing from the object store.
 */
export const reachable = (repo: Repo): { ids: Set<string>; missing: string[] } => {
  const r = spawnSync(
    'git',
    ['rev-list', '--objects', '--missing=print', '--glob=refs/fettle/*', '--glob=refs/fettle-discarded/*'],
    {
      cwd: repo.dir,
      env: repo.env,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const lines = r.stdout.split('\n');
  const id = (l: string): string => /^[0-9a-f]{40}(?:[0-9a-f]{24})?(?=\s|$)/.exec(l)?.[0] ?? '';
  const missing = lines.filter((l) => l.startsWith('?')).map((l) => id(l.slice(1)));
  if (r.status !== 0) missing.push(`(rev-list failed: ${r.stderr.trim()})`);
  return { ids: new Set(lines.map(id).filter(Boolean)), missing };
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** I5: leftovers, each with the pid that left it when it can be told. */
export const litterOf = (repo: Repo, allowLocks: string[] = []): { item: string; pid?: number; git?: boolean }[] => {
  const common = commonDirOf(repo);
  const found: { item: string; pid?: number; git?: boolean }[] = [];
  for (const p of listFiles(repo.dir, (x) => x === join(repo.dir, '.git'))) {
    const m = /\.fettle-(\d+)-[0-9a-f]+\.tmp$/.exec(p);
    if (m) found.push({ item: relative(repo.dir, p), pid: Number(m[1]) });
  }
  for (const p of listFiles(common, (x) => x.endsWith('/objects'))) {
    const rel = relative(common, p);
    if (allowLocks.includes(rel)) continue;
    if (rel.startsWith('fettle/locks/')) {
      found.push({ item: rel, pid: Number.parseInt(readFileSync(p, 'utf8'), 10) || undefined });
    } else if (rel.endsWith('.lock')) {
      found.push({ item: rel, git: true });
    } else if (/^fettle\/new-refs\/[^/]+\/(\d+)-/.test(rel)) {
      found.push({ item: rel, pid: Number(/^fettle\/new-refs\/[^/]+\/(\d+)-/.exec(rel)?.[1]) });
    } else if (/^fettle\/tool-use\/.*\.(\d+)\.tmp$/.test(rel)) {
      found.push({ item: rel, pid: Number(/\.(\d+)\.tmp$/.exec(rel)?.[1]) });
    }
  }
  const pending = new Set(
    fettleRefs(repo)
      .filter((r) => r.ref.startsWith('refs/fettle/'))
      .map((r) => r.ref.slice('refs/fettle/'.length)),
  );
  // A test tree (an agent session's, or the shared one) is kept between `fettle test` runs until `fettle gc`;
  // anything else there would be one an earlier fettle made per change.
  const testTree = (name: string) => name === 'no-session' || name.startsWith('session-');
  const hidden = join(common, 'fettle', 'worktrees');
  for (const id of existsSync(hidden) ? readdirSync(hidden) : [])
    if (!pending.has(id) && !testTree(id)) found.push({ item: `fettle/worktrees/${id} (no ref)` });
  for (const [id] of worktreeAdmins(common).fettle)
    if (!pending.has(id) && !testTree(id)) found.push({ item: `worktrees/${id} (no ref)` });
  return found;
};

const describe = (b: Buffer | null): string =>
  b === null ? 'absent' : `${b.length} bytes ${JSON.stringify(b.subarray(0, 40).toString('utf8'))}`;

/** Reads the tracked files' state now: bytes (null: absent) and mode. */
export const track = (file: string, next: (Buffer | string | null)[]): Tracked => {
  const exists = existsSync(file);
  return {
    file,
    old: exists ? readFileSync(file) : null,
    mode: exists ? statSync(file).mode & 0o7777 : undefined,
    next: next.map((n) => (typeof n === 'string' ? Buffer.from(n) : n)),
  };
};

/**
 * Storage maintenance runs in the background after writes (a process the hook starts, or the resident server after
 * its answers): the lock a live one holds is work in progress, not litter. Waits for it to end (a minute at most);
 * a lock whose holder is dead is left for I5 to report.
 */
const awaitMaintenance = (repo: Repo): void => {
  const lock = join(commonDirOf(repo), 'fettle', 'locks', 'maintain.lock');
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    let pid: number;
    try {
      pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    } catch {
      return;
    }
    if (pid > 0 && !isAlive(pid)) return; // no pid yet: its holder is writing it
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
};

/** Checks I1-I5 and fails the test with every violation found; counts torn files and lost contents. */
export const checkInvariants = (repo: Repo, before: string, e: Expectation = {}): { litter: string[] } => {
  awaitMaintenance(repo);
  const problems: string[] = [];
  const owed = [...(e.owed ?? [])];
  for (const t of e.files ?? []) {
    const now = existsSync(t.file) ? readFileSync(t.file) : null;
    const same = (a: Buffer | null, b: Buffer | null) => (a === null || b === null ? a === b : a.equals(b));
    if (![t.old, ...t.next].some((c) => same(c, now))) {
      count('torn');
      problems.push(
        `I1 torn: ${t.file} holds ${describe(now)}; expected old (${describe(t.old)}) or one of ${t.next.length} new`,
      );
    }
    if (now && t.old && t.mode !== undefined && (statSync(t.file).mode & 0o7777) !== t.mode) {
      problems.push(`I1 mode: ${t.file} is ${(statSync(t.file).mode & 0o7777).toString(8)}, was ${t.mode.toString(8)}`);
    }
    if (t.old && t.owe !== false && !same(t.old, now)) owed.push(t.old);
  }
  const { ids, missing } = reachable(repo);
  if (missing.length) {
    count('corruptRefs');
    problems.push(`I3 fettle's refs need missing objects: ${missing.join(', ')}`);
  }
  if (owed.length) {
    const format = formatOf(repo);
    for (const b of new Map(owed.map((o) => [blobId(o, format), o])).values()) {
      if (!ids.has(blobId(b, format))) {
        count('lost');
        problems.push(`I2 lost: ${describe(b)} is not reachable from refs/fettle*`);
      }
    }
  }
  problems.push(...refProblems(repo).map((p) => `I3 ${p}`));
  const after = userState(repo);
  if (after !== before) problems.push(`I4 user state changed:\n  before ${before}\n  after  ${after}`);
  // A maintenance started after the wait (the hook starts it as a process of its own, the resident server after
  // its answers) is still work in progress: its maintain.lock names a live pid, and the `<ref>.lock` it takes for
  // a moment while it packs fettle's refs is gone within moments. Litter is what stays.
  const current = () =>
    litterOf(repo, e.allowLocks).filter(
      (l) => !(l.item === 'fettle/locks/maintain.lock' && l.pid !== undefined && isAlive(l.pid)),
    );
  // After a crash, leftovers of the killed processes are tolerated (a git .lock or an orphaned worktree has no
  // pid: nothing else ran, so it is theirs); anything a live process holds never is.
  const badOf = (found: ReturnType<typeof litterOf>) =>
    found.filter((l) => (e.litter ?? 'none') === 'none' || (l.pid !== undefined && isAlive(l.pid)));
  let litter = current();
  for (const deadline = Date.now() + 3_000; badOf(litter).length > 0 && Date.now() < deadline; litter = current())
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  const bad = badOf(litter);
  if (bad.length) problems.push(`I5 litter: ${bad.map((l) => l.item).join(', ')}`);
  assert.deepEqual(problems, [], problems.join('\n'));
  return { litter: litter.map((l) => l.item) };
};

export interface OutcomeRule {
  /** allowed exit codes */
  exit: number[];
  /** the run may have been killed by the test */
  killed?: boolean;
  /** a hook run: stderr is at most one line */
  hook?: boolean;
}

/** I6: a deliberate exit code, no signal the test did not send, no stack trace, a short message. */
export const expectOutcome = (p: Proc, rule: OutcomeRule): void => {
  if (p.killed && rule.killed) return;
  // A crash: killed by a signal the test did not send, or an uncaught exception's stack.
  const crashed = p.signal !== null || p.code === null || /\n\s+at .+:\d+:\d+\)?/.test(p.stderr);
  if (crashed) count('crashes');
  else if (!rule.exit.includes(p.code as number)) count('wrongExits');
  assert.ok(
    !crashed && rule.exit.includes(p.code as number),
    `I6 unexpected outcome (allowed exits ${rule.exit.join('/')}):\n${show(p)}`,
  );
  // A sleeping failpoint's own line (io/failpoint.ts) is the test's instrument, not fettle's message.
  const lines = p.stderr
    .trimEnd()
    .split('\n')
    .filter((line) => line && !/^failpoint \S+ sleeping \d+ ms$/.test(line));
  assert.ok(lines.length <= (rule.hook ? 1 : 3), `I6 stderr is one short paragraph:\n${show(p)}`);
};
