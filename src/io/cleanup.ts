// Files to remove if the process is told to stop (SIGTERM when a hook times out, SIGINT, SIGHUP): held locks
// and temp files. SIGKILL cannot be caught; what it leaves is reclaimed later (dead-pid locks, temp sweeps).
import { unlinkSync } from 'node:fs';

const owned = new Set<string>();

export const own = (path: string): void => {
  owned.add(path);
};

export const disown = (path: string): void => {
  owned.delete(path);
};

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** Called once at the process edge. */
export const cleanUpOnSignals = (): void => {
  for (const [name, number] of Object.entries(SIGNALS)) {
    process.once(name, () => {
      for (const path of owned) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
      process.exit(128 + number);
    });
  }
};
