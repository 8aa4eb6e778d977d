// Timed processes, medians, and the A B A B alternation of every comparison.
import { spawnSync } from 'node:child_process';
import { baseEnv } from './env.mjs';
import { PROCESS_TIMEOUT_MS } from './options.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const stats = (xs) => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
  n: xs.length,
  samples: xs.map((x) => Math.round(x * 100) / 100),
});

/** Alternates the given measurements A B (C) A B ... `n` times after one untimed warm-up round. */
export const alternate = (n, fns) => {
  const samples = fns.map(() => []);
  for (const f of fns) f(-1);
  for (let i = 0; i < n; i++) {
    for (const [j, f] of fns.entries()) samples[j].push(f(i));
  }
  return samples;
};

/** Runs a process synchronously and times it (wall clock, including spawn and exit). */
export const timed = (cmd, args, { cwd, env = baseEnv, input = '', timeout = PROCESS_TIMEOUT_MS } = {}) => {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, input, timeout, killSignal: 'SIGKILL', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t;
  const timedOut = r.error?.code === 'ETIMEDOUT' || (r.signal === 'SIGKILL' && ms >= timeout);
  if (r.error && !timedOut) throw r.error;
  return {
    ms,
    code: r.status,
    signal: r.signal,
    timedOut,
    stdout: r.stdout?.toString('utf8') ?? '',
    stderr: r.stderr?.toString('utf8') ?? '',
  };
};

export const bareNode = (cwd) => timed(process.execPath, ['-e', '0'], { cwd }).ms;
