// The post-commit hook's first half, in the entry: a person's `git commit` waits for this and nothing more. It
// finds the new commit with plain file reads (no git process, no bundle), marks it pending (protocol/notes-pending.ts)
// and starts a detached `fettle git-hook post-commit --pending` to write its note. Anything it does not read
// plainly (a repository found another way than ./.git, a HEAD that is not a branch or a commit id, reftable) makes it
// answer false, and the caller notes the commit in the commit, as before.
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';

const ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** The detached half's stderr: appended, and started afresh past this size. */
const LOG_LIMIT = 256 * 1024;

const text = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** The git dir and common dir of the work tree git runs the hook in (its top), or undefined. */
const dirsOf = (cwd: string, env: NodeJS.ProcessEnv): { git: string; common: string } | undefined => {
  if (env.GIT_COMMON_DIR) return undefined;
  let git = env.GIT_DIR ? resolve(cwd, env.GIT_DIR) : join(cwd, '.git');
  if (!statSync(git, { throwIfNoEntry: false })?.isDirectory()) {
    if (env.GIT_DIR) return undefined;
    const link = /^gitdir: (.+)$/.exec(text(git) ?? '')?.[1];
    if (link === undefined) return undefined;
    git = resolve(cwd, link);
  }
  const common = text(join(git, 'commondir'));
  return { git, common: common === undefined ? git : resolve(git, common) };
};

/** What HEAD names: a commit id, read from the ref files as git writes them. */
const headOf = (dirs: { git: string; common: string }): string | undefined => {
  const head = text(join(dirs.git, 'HEAD'));
  if (head === undefined || ID.test(head)) return head;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (ref === undefined) return undefined;
  const loose = text(join(dirs.common, ref));
  if (loose !== undefined) return ID.test(loose) ? loose : undefined;
  const packed = (text(join(dirs.common, 'packed-refs')) ?? '').split('\n').find((l) => l.endsWith(` ${ref}`));
  const id = packed?.slice(0, packed.indexOf(' '));
  return id !== undefined && ID.test(id) ? id : undefined;
};

const logFd = (path: string): number => {
  if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) > LOG_LIMIT) writeFileSync(path, '', { mode: 0o600 });
  return openSync(path, 'a', 0o600);
};

/**
 * Marks HEAD pending and starts the half that notes it; false (nothing done) where it cannot tell HEAD plainly.
 * node:child_process is loaded here, not by the entry: every hook call loads the entry, and most never spawn.
 */
export const commitLater = async (cli: string, cwd: string, env: NodeJS.ProcessEnv): Promise<boolean> => {
  const dirs = dirsOf(cwd, env);
  const head = dirs && headOf(dirs);
  if (dirs === undefined || head === undefined) return false;
  const fettle = join(dirs.common, 'fettle');
  mkdirSync(join(fettle, 'notes-pending'), { recursive: true, mode: 0o700 });
  writeFileSync(join(fettle, 'notes-pending', head), '', { mode: 0o600 });
  const { spawn } = await import('node:child_process');
  const fd = logFd(join(fettle, 'git-hook.log'));
  try {
    const child = spawn(process.execPath, [cli, 'git-hook', 'post-commit', '--pending'], {
      cwd,
      // a partial commit's temporary index is gone by the time the note is written; the note reads no index
      env: { ...env, GIT_INDEX_FILE: undefined },
      detached: true,
      stdio: ['ignore', 'ignore', fd],
    });
    child.unref();
    // the note can wait: the person's commit, and whatever runs next, come first
    if (child.pid !== undefined) setPriority(child.pid, 10);
  } finally {
    closeSync(fd);
  }
  return true;
};
