// Whether a process is alive, and which process a pid names now.
import { readFileSync } from 'node:fs';

/**
 * The state and start time (clock ticks since boot) of a process, from /proc/<pid>/stat (Linux); null where
 * there is no /proc, or no such process. The start time tells a process from a later one given the same pid.
 */
export const processStat = (pid: number): { state: string; start: string } | null => {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses, so fields count from its end.
  const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
};

/**
 * Whether a process exists. EPERM means it does, owned by someone else; only ESRCH means it is gone. A zombie
 * (exited, not yet reaped by a parent that does not wait, as some container inits) is gone too.
 */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return processStat(pid)?.state !== 'Z';
};
