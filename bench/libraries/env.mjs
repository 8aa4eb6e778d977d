// The temp dir (npm install, fixtures, child scripts), the children's environment, and running processes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log } from './log.mjs';
import { flag, TABLE_FROM } from './options.mjs';

export const TMP = TABLE_FROM ? '' : mkdtempSync(join(tmpdir(), 'fettle-libbench-'));
export const DEPS = join(TMP, 'deps');
export const HOME = join(TMP, 'home');
/** Children still running; each leads its own process group, so its git processes can be stopped with it. */
export const active = new Set();
let cleaned = false;
export const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  for (const child of active) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  if (!TMP) return;
  if (flag('--keep')) log(`kept ${TMP}`);
  else rmSync(TMP, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: stopping children and removing the temp dir`);
    cleanup();
    process.exit(130);
  });
}

/**
 * Runs a command to completion without blocking the event loop (so a signal can still clean up).
 * Returns exit code, stdout, stderr and the wall time from spawn to close.
 */
export const run = (cmd, args, { cwd, input, stdin, env = ENV } = {}) =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: [stdin ?? 'pipe', 'pipe', 'pipe'] });
    active.add(child);
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => {
      active.delete(child);
      reject(e);
    });
    child.on('close', (code) => {
      active.delete(child);
      resolve({
        code,
        ms: Number(process.hrtime.bigint() - t) / 1e6,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString(),
      });
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    }
  });

/** The environment every child gets: no GIT_* (an inherited GIT_DIR would point git elsewhere), no NODE_OPTIONS. */
export const ENV = (() => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^GIT_/i.test(k) || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env.HOME = HOME;
  env.XDG_CONFIG_HOME = join(HOME, '.config');
  env.LC_ALL = 'C';
  env.BENCH_CLK_TCK = String(Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100);
  return env;
})();

/** git in the fixtures; `ok` lists the accepted exit codes (null: any). */
export const git = async (cwd, args, { input, stdin, ok = [0] } = {}) => {
  const r = await run('git', args, { cwd, input, stdin });
  if (ok && !ok.includes(r.code)) throw new Error(`git ${args.join(' ')} (in ${cwd}) exited ${r.code}: ${r.stderr}`);
  return { code: r.code, out: r.stdout.toString('utf8').trim(), raw: r.stdout, stderr: r.stderr };
};
