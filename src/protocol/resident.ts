// What a long-lived fettle process (the resident server) keeps between calls: the remembered repositories and
// kept git processes (store/resident.ts), and housekeeping that need not delay an answer (retention after a
// write, storage maintenance), run after the answer, one task at a time per repository; a task asked for
// while one of the same repository waits replaces it (the later one does all the earlier one would).
import { Resident } from '../store/resident';

export type Background = (key: string, task: () => Promise<void>) => void;

export interface Runtime {
  resident: Resident;
  background: Background;
  /** resolves when no housekeeping runs or waits (a stop waits for it) */
  idle(): Promise<void>;
  close(): void;
}

export const createRuntime = (onError: (error: unknown) => void): Runtime => {
  const resident = new Resident();
  const queues = new Map<string, { running: Promise<void>; next: (() => Promise<void>) | null }>();
  const drive = (key: string, task: () => Promise<void>): Promise<void> =>
    new Promise<void>((resolve) => setImmediate(resolve)) // after the answer that asked for it is sent
      .then(task)
      .catch(onError)
      .then(() => {
        const queue = queues.get(key);
        const next = queue?.next;
        if (queue && next) {
          queue.next = null;
          queue.running = drive(key, next);
        } else queues.delete(key);
      });
  return {
    resident,
    background: (key, task) => {
      const queue = queues.get(key);
      if (queue) queue.next = task;
      else queues.set(key, { running: drive(key, task), next: null });
    },
    idle: async () => {
      while (queues.size > 0) await Promise.all([...queues.values()].map((q) => q.running));
    },
    close: () => resident.close(),
  };
};
