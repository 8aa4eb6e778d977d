// Files to remove if the process is told to stop (SIGTERM when a hook times out, SIGINT, SIGHUP): held locks
// and temp files; and commands to stop (a policy `run` rule's, which runs in a process group of its own).
// SIGKILL cannot be caught; what it leaves is reclaimed later (dead-pid locks, temp sweeps).
import { unlinkSync } from 'node:fs';

const owned = new Set<string>();

export const own = (path: string): void => {
  owned.add(path);
};

export const disown = (path: string): void => {
  owned.delete(path);
};

const stops = new Set<() => void>();

/** `stop` is called if the process is told to stop while it is registered. */
export const onStop = (stop: () => void): void => {
  stops.add(stop);
};

export const offStop = (stop: () => void): void => {
  stops.delete(stop);
};

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Stops every command and removes every file still owned (a process that stops on purpose, after its work in
 * flight is done).
 */
export const releaseOwned = (): void => {
  for (const stop of stops) stop();
  stops.clear();
  for (const path of owned) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
  owned.clear();
};

/**
 * Called once at the process edge. A process that serves many calls (the resident server) passes `onSignal`
 * to finish what is in flight first; it then calls releaseOwned itself.
 */
export const cleanUpOnSignals = (onSignal?: (signal: string) => void): void => {
  for (const [name, number] of Object.entries(SIGNALS)) {
    if (onSignal) {
      process.on(name, () => onSignal(name));
      continue;
    }
    process.once(name, () => {
      releaseOwned();
      process.exit(128 + number);
    });
  }
};
