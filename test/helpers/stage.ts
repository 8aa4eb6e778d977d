// Shared steps of the command tests: run fettle in a repo, stage or write a change, read fettle's refs back.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCli, type Run } from './cli';
import { runInTerminal } from './pty';
import { userState, type Repo } from './repo';

/** A fixed clock (epoch seconds) so ages and expiry never depend on the wall clock. */
export const T0 = 1_750_000_000;

export interface FettleOpts {
  input?: string | Buffer;
  env?: Record<string, string>;
  cwd?: string;
  /** FETTLE_NOW; default T0 */
  now?: number;
  /** run as a person does: in a real terminal, no agent above it (helpers/pty.ts); no input then */
  terminal?: boolean;
}

/**
 * The user's git state read straight from the files, without spawning git: HEAD, branch, tag and stash refs,
 * the index byte for byte, config, and the hook files. Stricter than userState() (any index rewrite shows).
 */
const rawState = (repo: Repo): string => {
  const gitDir = join(repo.dir, '.git');
  const read = (p: string) => (existsSync(p) ? readFileSync(p) : null);
  const walk = (dir: string): string[] =>
    !existsSync(dir)
      ? []
      : readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory()
            ? walk(join(dir, e.name))
            : [`${join(dir, e.name)} ${readFileSync(join(dir, e.name), 'utf8').trim()}`],
        );
  const packed = (read(join(gitDir, 'packed-refs'))?.toString('utf8') ?? '')
    .split('\n')
    .filter((l) => / refs\/(heads|tags|stash)/.test(l));
  const hooks = existsSync(join(gitDir, 'hooks'))
    ? readdirSync(join(gitDir, 'hooks')).map(
        (n) => `${n} ${statSync(join(gitDir, 'hooks', n)).mode} ${statSync(join(gitDir, 'hooks', n)).size}`,
      )
    : [];
  return JSON.stringify({
    head: read(join(gitDir, 'HEAD'))?.toString('utf8'),
    refs: [
      ...walk(join(gitDir, 'refs', 'heads')),
      ...walk(join(gitDir, 'refs', 'tags')),
      ...walk(join(gitDir, 'refs', 'stash')),
      ...packed,
    ],
    index: read(join(gitDir, 'index'))?.toString('base64') ?? null,
    config: read(join(gitDir, 'config'))?.toString('utf8'),
    hooks,
  });
};

/** Runs the built CLI; every run must leave the user's HEAD, branches, index, config and hooks as they were. */
export const fettle = (repo: Repo, args: string[], o: FettleOpts = {}): Run => {
  const before = rawState(repo);
  const run = { cwd: o.cwd ?? repo.dir, env: { ...repo.env, FETTLE_NOW: String(o.now ?? T0), ...o.env } };
  assert.ok(!(o.terminal && o.input !== undefined), 'a run in a terminal takes no input');
  const r = o.terminal
    ? runInTerminal([process.execPath, CLI, ...args], run)
    : runCli(args, { ...run, input: o.input ?? '' });
  assert.equal(
    rawState(repo),
    before,
    `\`fettle ${args.join(' ')}\` changed the user's HEAD, branches, index, config or hooks`,
  );
  return r;
};

const show = (r: Run): string => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

/** `fettle write <path>` of a large change: exit 3, returns the staged id. */
export const stageWrite = (repo: Repo, path: string, content: string | Buffer, o: FettleOpts = {}): string => {
  const r = fettle(repo, ['write', path], { ...o, input: content });
  assert.equal(r.code, 3, show(r));
  const id = /Staged change ([0-9a-z]{8})/.exec(r.stdout)?.[1];
  assert.ok(id, show(r));
  return id;
};

/** `fettle write <path>` that goes straight through: exit 0, returns the recorded id. */
export const directWrite = (repo: Repo, path: string, content: string | Buffer, o: FettleOpts = {}): string => {
  const r = fettle(repo, ['write', path], { ...o, input: content });
  assert.equal(r.code, 0, show(r));
  const id = /as ([0-9a-z]{8}); undo with: .* rollback \1$/m.exec(r.stdout)?.[1];
  assert.ok(id, show(r));
  return id;
};

/** Asserts a successful run and returns it. */
export const ok = (r: Run, code = 0): Run => {
  assert.equal(r.code, code, show(r));
  return r;
};

/** The error line a failed command printed, without the `fettle: ` prefix. */
export const errorLine = (r: Run): string => {
  const first = r.stderr.split('\n')[0] ?? '';
  assert.ok(first.startsWith('fettle: '), show(r));
  return first.slice('fettle: '.length);
};

/** Asserts the exit code (default 1) and the error message: exact text after `fettle: `, or a pattern on stderr. */
export const fails = (r: Run, message: string | RegExp, code = 1): void => {
  assert.equal(r.code, code, show(r));
  if (typeof message === 'string') assert.equal(errorLine(r), message);
  else assert.match(r.stderr, message);
};

export const refOid = (repo: Repo, ref: string): string | null => {
  try {
    return repo.git('rev-parse', '-q', '--verify', `${ref}^{commit}`);
  } catch {
    return null;
  }
};

/** Fettle-Kind of each fettle commit along the first-parent chain of `ref`, tip first. */
export const kinds = (repo: Repo, ref: string): string[] =>
  repo.git('log', '--first-parent', '--format=%(trailers:key=Fettle-Kind,valueonly)', ref).split('\n').filter(Boolean);

/**
 * The session `fettle write` and `fettle apply` record under in `repo` when no FETTLE_SESSION is set: the ladder's
 * branch and work tree (core/session-ladder.ts), `main` in every test repository.
 */
export const scriptSession = (repo: Repo, branch = 'main'): string =>
  `branch-${branch}-${createHash('sha256')
    .update(`${realpathSync(repo.dir)}\0${branch}`)
    .digest('hex')
    .slice(0, 8)}`;

/** The test tree of a session's changes: by default the one of `fettle write`'s (scriptSession). */
export const testTreeName = (repo: Repo, session?: string): string => `session-${session ?? scriptSession(repo)}`;
export const testTreeDir = (repo: Repo, session?: string): string =>
  join(repo.dir, '.git', 'fettle', 'worktrees', testTreeName(repo, session));
export const hasTestTree = (repo: Repo, session?: string): boolean =>
  existsSync(testTreeDir(repo, session)) ||
  repo.git('worktree', 'list', '--porcelain').includes(`worktree ${testTreeDir(repo, session)}\n`);

/** Staging makes no test tree; `fettle test` makes it on first use. Runs `true` in it; returns its directory. */
export const openTestTree = (repo: Repo, id: string, o: FettleOpts = {}): string => {
  const r = ok(fettle(repo, ['test', id, '--', 'true'], o));
  const dir = /^fettle: running `true` in the test tree of .*\): (.*)$/m.exec(r.stderr)?.[1];
  assert.ok(dir, r.stderr);
  return dir;
};

/**
 * userState() with the hooks listing reduced to the hook files themselves: its `..` row is the git dir, whose
 * link count and column widths change whenever fettle adds its own folder there.
 */
export const stateOf = (repo: Repo): Record<string, string> => {
  const state = JSON.parse(userState(repo)) as Record<string, string>;
  state.hooks = (state.hooks ?? '')
    .split('\n')
    .filter((row) => !/ \.\.?$/.test(row) && !row.startsWith('total '))
    .map((row) => row.trim().split(/\s+/).join(' '))
    .join('\n');
  return state;
};

/** Runs `body` and asserts the user's HEAD, branches, index, config and hooks are as before. */
export const keepsUserState = <T>(repo: Repo, body: () => T): T => {
  const before = stateOf(repo);
  const result = body();
  assert.deepEqual(stateOf(repo), before, "fettle changed the user's HEAD, branches, index, config or hooks");
  return result;
};

/** The pending/recent listing as `fettle status --json` prints it. */
export interface StatusRow {
  id: string;
  path: string;
  tier: string;
  state: string;
  added: number | null;
  removed: number | null;
  at: string;
  expiresAt: string | null;
  review?: string | null;
}
export const statusJson = (repo: Repo, o: FettleOpts = {}): { pending: StatusRow[]; recent: StatusRow[] } =>
  JSON.parse(ok(fettle(repo, ['status', '--json'], o)).stdout) as { pending: StatusRow[]; recent: StatusRow[] };
