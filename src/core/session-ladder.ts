// The session a command outside any agent belongs to (`fettle write`, `fettle apply`, an MCP server whose client
// names none): the first rung of a ladder whose signal is certain. FETTLE_SESSION when set; else the branch checked
// out and the work tree it is checked out in; else the parent process and the moment it started (a pid alone is
// reused); else the directory. Each id is stable across a crash of the command (the branch, the parent and the
// directory outlive it) and says which rung made it, so it is never taken for an agent's own session id. A rung
// whose signal is not certain (a detached HEAD, a GIT_DIR set by hand, a system that does not say when a process
// started) is skipped, never guessed. Pure: the edge reads the signals.
import { createHash } from 'node:crypto';

export type SessionSource = 'env' | 'branch' | 'process' | 'directory';

export interface LadderSignals {
  /** FETTLE_SESSION, as set */
  session: string | undefined;
  /** the branch checked out where the command runs, and the real path of that work tree; null when not certain */
  checkout: { branch: string; workTree: string } | null;
  /** the process that started this one, and when it started (as the system counts it); null when not known */
  parent: { pid: number; start: string } | null;
  /** the command's real working directory */
  cwd: string;
}

export interface LadderSession {
  id: string;
  source: SessionSource;
}

const short = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 8);

/** A branch name as part of an id: readable, one ref component (the hash beside it keeps two apart). */
const readable = (branch: string): string => branch.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40);

export const ladderSession = (s: LadderSignals): LadderSession => {
  if (s.session) return { id: s.session, source: 'env' };
  if (s.checkout) {
    const { branch, workTree } = s.checkout;
    return { id: `branch-${readable(branch)}-${short(workTree, branch)}`, source: 'branch' };
  }
  if (s.parent)
    return { id: `process-${s.parent.pid}-${short(String(s.parent.pid), s.parent.start)}`, source: 'process' };
  return { id: `dir-${short(s.cwd)}`, source: 'directory' };
};

/** What each rung means, for a person reading where a session id came from. */
export const SOURCE_TEXT: Record<SessionSource, string> = {
  env: 'FETTLE_SESSION',
  branch: 'the branch and work tree',
  process: 'the parent process',
  directory: 'the directory',
};

/** The branch a HEAD file names (`ref: refs/heads/<name>`); null for a detached HEAD or anything else. */
export const branchOfHead = (head: string): string | null => {
  const m = /^ref: refs\/heads\/(\S.*)$/.exec(head.trim());
  // reftable keeps a placeholder HEAD naming `.invalid`: the branch is not in the file, so not certain.
  return m && m[1] !== '.invalid' ? (m[1] as string) : null;
};

/** The git dir a `.git` file points at (`gitdir: <path>`, a linked work tree's), null when it says nothing else. */
export const gitdirOfFile = (text: string): string | null => /^gitdir: (.+)$/m.exec(text)?.[1]?.trim() ?? null;

/**
 * An id the ladder made: an MCP server's or a command's own, never the session id an agent client gave its hooks,
 * so `status` does not take it for the session a person works with.
 */
export const isLadderSession = (id: string): boolean =>
  /^(?:branch-[A-Za-z0-9._-]{0,40}|process-\d{1,10}|dir)-[0-9a-f]{8}$/.test(id);
