// What `fettle doctor` says about lock files: fettle's own (they name their holder), git's packed-refs.lock (one
// left behind blocks every ref deletion in the repository) and git's lock files under fettle's refs. Only reads:
// `fettle gc` removes what can be proved stale (store/packed-refs-lock.ts, store/stale-ref-locks.ts).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '../io/pid';
import { packedLockPath, packedLockState } from '../store/packed-refs-lock';
import { REF_LOCK_STALE_MS, refLocks } from '../store/stale-ref-locks';
import type { Store } from '../store/store';
import { fettleDir } from '../store/worktrees';
import type { Check } from './check';

/** A git lock is held for milliseconds: one older than this is worth a look. */
const REPORT_AFTER_MS = 5_000;

const NO_GIT = 'if no git process is running (`pgrep -l git` lists none)';
const BLOCKS = 'until it goes, git cannot delete a branch, tag or any ref here (`git branch -d` fails: "File exists")';
const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

const packedRefsLock = (store: Store, nowMs: number): Check | null => {
  const lock = packedLockState(store.commonDir, nowMs);
  const path = packedLockPath(store.commonDir);
  if (lock.state === 'fettle' && lock.gone)
    return {
      name: 'locks',
      status: 'fail',
      detail: `packed-refs.lock was left by a fettle maintenance killed while it held it (pid ${lock.pid}, gone): ${BLOCKS}`,
      fix: 'Run `fettle gc`: it removes the lock (so does the next background maintenance).',
    };
  if (lock.state === 'none' || lock.ageMs <= REPORT_AFTER_MS) return null;
  if (lock.state === 'fettle')
    return {
      name: 'locks',
      status: 'warn',
      detail: lock.host
        ? `packed-refs.lock is held by fettle's maintenance on ${lock.host} (pid ${lock.pid} there, ${seconds(lock.ageMs)})`
        : `packed-refs.lock is held by fettle's maintenance (running pid ${lock.pid}, ${seconds(lock.ageMs)})`,
      fix: lock.host
        ? `fettle on ${lock.host} removes it if that run was killed; ${NO_GIT} there, it may be removed by hand: rm ${path}`
        : 'It goes when that run ends; fettle never removes a lock a running process holds.',
    };
  return {
    name: 'locks',
    status: 'fail',
    detail: `packed-refs.lock is ${seconds(lock.ageMs)} old and not fettle's (git's or another program's): ${BLOCKS}`,
    fix: `Wait for the git command holding it; ${NO_GIT}, it was left by a killed one: rm ${path}`,
  };
};

const refLockCheck = async (store: Store, nowMs: number): Promise<Check | null> => {
  const old = (await refLocks(store.commonDir, nowMs)).filter((l) => l.ageMs > REPORT_AFTER_MS);
  if (old.length === 0) return null;
  return {
    name: 'locks',
    status: 'warn',
    detail: `git's lock on a ref of fettle's, left by a killed process: ${old.map((l) => `${l.name} (${seconds(l.ageMs)} old)`).join(', ')}`,
    fix: `\`fettle gc\` removes those older than ${REF_LOCK_STALE_MS / 60_000} minutes; ${NO_GIT}, rm ${join(store.commonDir, '<name>.lock')} removes one now.`,
  };
};

/** fettle's own locks name their holder: a dead one's is taken over by the next command that needs it. */
const fettleLocks = async (store: Store): Promise<Check | null> => {
  const found: string[] = [];
  const locks = join(fettleDir(store), 'locks');
  for (const name of await readdir(locks).catch(() => [] as string[])) {
    const pid = Number.parseInt(await readFile(join(locks, name), 'utf8').catch(() => ''), 10);
    found.push(
      pid > 0 && isAlive(pid)
        ? `${name} (held by running pid ${pid})`
        : `${name} (its holder is gone; the next fettle command takes it over)`,
    );
  }
  return found.length ? { name: 'locks', status: 'warn', detail: found.join('; ') } : null;
};

export const checkLocks = async (store: Store, nowMs: number): Promise<Check[]> => {
  const found = [packedRefsLock(store, nowMs), await refLockCheck(store, nowMs), await fettleLocks(store)].filter(
    (c): c is Check => c !== null,
  );
  return found.length ? found : [{ name: 'locks', status: 'ok', detail: 'no lock held' }];
};
