// StoreCache mode for tests: `fettle install --resident` into a HOME of its own (settings, port, token), the
// server it starts, and hook calls made through that settings file as Claude Code makes them (http-hook.mjs).
// One server per test file, stopped when the file ends; each repository's own HOME travels in the forwarded
// environment, as it would from a Claude Code session started there.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv } from './repo';

export interface ResidentSetup {
  home: string;
  /** the cli.js installed */
  cli: string;
  env: Record<string, string>;
  settings: string;
  token: string;
  state: string;
  /** the server's pid, as its pid file says */
  pid: () => number;
}

const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');
const CLIENT = join(__dirname, 'http-hook.mjs');

export const stateDirOf = (home: string): string => join(home, '.local', 'state', 'fettle', 'serve');

/**
 * A fresh resident installation (of `cli`, the built one by default); its server is stopped when the test
 * process exits. `extraEnv` is the environment install, and so the first server, runs in.
 */
export const setUpResident = (extraEnv: Record<string, string> = {}, cli = CLI): ResidentSetup => {
  // Not a tempDir: those are removed when the file's tests end, before the exit below, which would then find no
  // pid file and leave the server running.
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'fettle-resident-')));
  const env = { ...baseEnv(home), ...extraEnv };
  // At exit, not in an `after` hook: one registered inside a test runs when that test ends.
  process.once('exit', () => {
    spawnSync(process.execPath, [cli, 'serve', '--stop'], { cwd: tmpdir(), env });
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  const r = spawnSync(process.execPath, [cli, 'install', '--resident', '--read'], { cwd: home, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`install --resident failed: ${r.stderr}${r.stdout}`);
  const state = stateDirOf(home);
  return {
    home,
    cli,
    env,
    settings: join(home, '.claude', 'settings.json'),
    token: readFileSync(join(state, 'token'), 'utf8').trim(),
    state,
    pid: () => Number(readFileSync(join(state, 'pid'), 'utf8').split(' ')[0]),
  };
};

let shared: ResidentSetup | undefined;

/** The test file's resident installation, made on first use. */
export const sharedResident = (): ResidentSetup => {
  shared ??= setUpResident();
  return shared;
};

/** The argv and environment of one client call (for callers that spawn it themselves, many at once). */
export const clientCall = (
  setup: ResidentSetup,
  env: Record<string, string>,
  token: string | null = setup.token,
): { argv: string[]; env: Record<string, string> } => ({
  argv: [process.execPath, CLIENT],
  env: {
    ...env,
    FETTLE_TEST_SETTINGS: setup.settings,
    ...(token === null ? {} : { FETTLE_SERVE_TOKEN: token }),
  },
});

export interface ClientRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One hook call through resident mode's settings, with `env` as the Claude Code session's environment (the
 * token added unless `token` says otherwise: null for a session started without it).
 */
export const callResident = (
  setup: ResidentSetup,
  input: string,
  opts: { cwd: string; env: Record<string, string>; token?: string | null },
): ClientRun => {
  const call = clientCall(setup, opts.env, opts.token === undefined ? setup.token : opts.token);
  const [command = '', ...args] = call.argv;
  const r = spawnSync(command, args, { cwd: opts.cwd, env: call.env, input, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
};
