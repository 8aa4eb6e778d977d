// Waiting for the background storage maintenance (`fettle gc --auto`, detached) a write may have started in a
// repository: a test that counts fettle's packs must count them once it is over. The writer spawns it before it
// exits, so once the write returned, the process is listed in /proc.
import { readdirSync, readFileSync } from 'node:fs';

const maintenanceRunning = (dir: string): boolean =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return args.includes('--auto') && args.includes('gc') && args.includes(dir);
      } catch {
        return false; // gone meanwhile
      }
    });

export const maintenanceSettled = async (dir: string, timeoutMs = 30_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (maintenanceRunning(dir)) {
    if (Date.now() > until) throw new Error(`background maintenance in ${dir} still runs after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
