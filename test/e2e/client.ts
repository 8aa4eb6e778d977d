// The real Claude Code client, pinned, installed into a cache outside the repository, and run headless against the
// fake API (fake-api.ts) with nothing leaving 127.0.0.1. scripts/test-e2e.mjs installs it before the tests run
// and hands its path over in FETTLE_E2E_CLAUDE.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonLines, runChild } from './local';

/** The version the suite is written against (docs/DEPENDENCIES.md says why), in the file the installer reads. */
export const CLIENT_VERSION: string = JSON.parse(readFileSync(join(__dirname, 'client.json'), 'utf8')).version;

/** Where the pinned client lives: FETTLE_E2E_CLIENT_DIR, else the user's cache directory. */
export const clientDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.FETTLE_E2E_CLIENT_DIR ||
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'fettle-e2e', `claude-code-${CLIENT_VERSION}`);

/** The native binary of the platform package (the wrapper's postinstall only copies it: not needed). */
export const clientBinary = (dir = clientDir()): string =>
  join(dir, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude');

export const claudePath = (): string => {
  const path = process.env.FETTLE_E2E_CLAUDE ?? clientBinary();
  if (!existsSync(path))
    throw new Error(`the Claude Code client is not installed at ${path}: run the suite with npm run test:e2e`);
  return path;
};

/** The switches that keep the client offline and quiet (docs/HOOK.md: without the first, it looks up hosts). */
export const OFFLINE_ENV: Record<string, string> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  ANTHROPIC_API_KEY: 'sk-ant-e2e-not-a-key',
};

export interface ClientRun {
  code: number | null;
  /** the stream-json events, parsed */
  events: Record<string, unknown>[];
  stdout: string;
  stderr: string;
  ms: number;
}

export interface ClientOptions {
  /** the session's working directory (the repository) */
  cwd: string;
  /** the fake API's URL */
  api: string;
  /** the environment of the run, without the client's own switches (added here) */
  env: Record<string, string>;
  prompt?: string;
  /** --permission-mode */
  mode?: string;
  /** more arguments: --allowedTools, --plugin-dir, ... */
  args?: string[];
  /** a program to run the client under (strace) */
  wrap?: string[];
  timeoutMs?: number;
}

/** One headless session: `claude -p <prompt> --output-format stream-json --verbose --include-hook-events`. */
export const runClient = async (o: ClientOptions): Promise<ClientRun> => {
  const args = [
    '-p',
    o.prompt ?? 'Do the task.',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-hook-events',
    ...(o.mode ? ['--permission-mode', o.mode] : []),
    ...(o.args ?? []),
  ];
  const env = {
    ...o.env,
    ...OFFLINE_ENV,
    ANTHROPIC_BASE_URL: o.api,
    // As root the client refuses bypassPermissions outside a sandbox it is told about.
    ...(o.mode === 'bypassPermissions' ? { IS_SANDBOX: '1' } : {}),
  };
  const [file, ...pre] = o.wrap ? [...o.wrap, claudePath()] : [claudePath()];
  const run = await runChild(file as string, [...pre, ...args], { cwd: o.cwd, env, timeoutMs: o.timeoutMs ?? 60_000 });
  return { ...run, events: jsonLines(run.stdout) };
};
