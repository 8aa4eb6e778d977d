// The processes above this one, for telling a person's command from an agent's (core/caller.ts): on Linux read
// from /proc, elsewhere from one `ps` listing. Read only when a command decides a change, never on the hook path.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ProcessInfo } from '../core/caller';

/** Enough for any real chain of shells and runtimes; a loop in what the system reports ends here too. */
const MAX_DEPTH = 64;

const procEntry = (pid: number): (ProcessInfo & { ppid: number }) | null => {
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from its end.
  const close = stat.lastIndexOf(') ');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  const argv = cmdline.split('\0').filter((w, i, all) => w !== '' || i < all.length - 1);
  return { pid, name, argv, ppid: Number.isSafeInteger(ppid) ? ppid : 0 };
};

const fromProc = (start: number): ProcessInfo[] | null => {
  const found: ProcessInfo[] = [];
  for (let pid = start; pid > 0 && found.length < MAX_DEPTH; ) {
    const entry = procEntry(pid);
    if (!entry) return found.length === 0 && pid === start ? null : found;
    found.push({ pid: entry.pid, name: entry.name, argv: entry.argv });
    pid = entry.ppid;
  }
  return found;
};

/** `ps -A -o pid=,ppid=,args=` as a chain from `start` upward (pure, for macOS and the BSDs). */
export const chainFromPs = (listing: string, start: number): ProcessInfo[] => {
  const byPid = new Map<number, { ppid: number; args: string }>();
  for (const line of listing.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s?(.*)$/.exec(line);
    if (m) byPid.set(Number(m[1]), { ppid: Number(m[2]), args: m[3] ?? '' });
  }
  const found: ProcessInfo[] = [];
  for (let pid = start; pid > 0 && found.length < MAX_DEPTH; ) {
    const entry = byPid.get(pid);
    if (!entry) break;
    found.push({ pid, name: '', argv: entry.args.split(/\s+/).filter(Boolean) });
    pid = entry.ppid;
  }
  return found;
};

/**
 * The processes from `start` (this one's parent) upward, parent first; null where the system does not say. `ps`
 * is run by its absolute path: one put first on PATH by whoever started this process is not asked.
 */
export const ancestors = (start: number, platform: NodeJS.Platform = process.platform): ProcessInfo[] | null => {
  if (platform === 'linux') return fromProc(start);
  if (platform === 'win32') return null;
  try {
    const listing = execFileSync('/bin/ps', ['-A', '-o', 'pid=,ppid=,args='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return chainFromPs(listing, start);
  } catch {
    return null;
  }
};

/**
 * A process and when it started, in clock ticks since boot (/proc/<pid>/stat, field 22): with the pid, a name no
 * later process reuses. Linux only; null elsewhere and when it cannot be read (the ladder then skips the rung).
 */
export const processStart = (
  pid: number,
  platform: NodeJS.Platform = process.platform,
): { pid: number; start: string } | null => {
  if (platform !== 'linux' || pid <= 1) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // fields after "(comm) " start at field 3, the state
    const start = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19];
    return start && /^\d+$/.test(start) ? { pid, start } : null;
  } catch {
    return null;
  }
};
