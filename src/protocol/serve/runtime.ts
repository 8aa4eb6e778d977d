// What a long-lived fettle process (the resident server) keeps between calls: the remembered repositories and
// kept git processes (store/store-cache.ts), and housekeeping that need not delay an answer (retention after a
// write, storage maintenance), run after the answer, one task at a time per key, and at most once per `pace`
// milliseconds per key: a task asked for while one of the same key runs or waits replaces the waiting one (the
// later one does all the earlier one would). Starting a process blocks a Node process for milliseconds (fork),
// so housekeeping that starts git must not run after every call of a busy session.
import { StoreCache } from '../../store/store-cache';
import type { Background } from '../context';

export interface Runtime {
  resident: StoreCache;
  background: Background;
  /** resolves when no housekeeping runs or waits (a stop waits for it) */
  idle(): Promise<void>;
  /** how many tasks that complete an answered call run or wait */
  completing(): number;
  close(): void;
}

/** The default pace of a key's housekeeping. */
export const PACE_MS = 1000;

interface Queue {
  running: Promise<void>;
  next: (() => Promise<void>) | null;
  last: number;
  pace: number;
}

export const createRuntime = (onError: (error: unknown) => void): Runtime => {
  const resident = new StoreCache();
  const queues = new Map<string, Queue>();
  const lastRun = new Map<string, number>();
  const completing = new Set<Promise<void>>();
  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const drive = async (key: string, queue: Queue): Promise<void> => {
    while (queue.next) {
      // After the answer that asked for it is sent, and not sooner than `pace` after the last run.
      await wait(Math.max(0, queue.last + queue.pace - Date.now()));
      const task = queue.next;
      queue.next = null;
      queue.last = Date.now();
      await task().catch(onError);
    }
    queues.delete(key);
  };
  return {
    resident,
    background: (key, task, pace = PACE_MS, o = {}) => {
      if (o.completes) {
        // Not queued by key: each completes its own call, and none replaces another.
        const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
          .then(task)
          .catch(onError)
          .finally(() => completing.delete(run));
        completing.add(run);
        return;
      }
      const queue = queues.get(key);
      if (queue) {
        queue.next = task;
        return;
      }
      const fresh: Queue = { running: Promise.resolve(), next: task, last: lastRun.get(key) ?? 0, pace };
      queues.set(key, fresh);
      fresh.running = drive(key, fresh).finally(() => lastRun.set(key, fresh.last));
    },
    idle: async () => {
      while (queues.size > 0 || completing.size > 0)
        await Promise.all([...queues.values()].map((q) => q.running).concat([...completing]));
    },
    completing: () => completing.size,
    close: () => resident.close(),
  };
};
