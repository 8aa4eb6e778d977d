// The real Codex CLI, pinned (client.json), installed into a cache outside the repository by
// scripts/test-e2e.mjs (which hands its path over in FETTLE_E2E_CODEX), run headless (`codex exec --json`)
// against the fake Responses API (fake-api.ts). Its configuration lives in a CODEX_HOME of the test's own: the
// fake provider as the model's base URL, and every switch that stops it calling home (update check, analytics,
// the plugin catalogue it otherwise fetches from GitHub); plugin.test.ts's strace check proves none is missed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonLines, runChild } from '../local';

export const CODEX: { package: string; version: string } = JSON.parse(
  readFileSync(join(__dirname, 'client.json'), 'utf8'),
);

export const codexDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.FETTLE_E2E_CODEX_DIR ||
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'fettle-e2e', `codex-${CODEX.version}`);

/** The native binary of the platform package (the npm wrapper only finds and starts it). */
export const codexBinary = (dir = codexDir()): string => {
  const triple = process.arch === 'arm64' ? 'aarch64-unknown-linux-musl' : 'x86_64-unknown-linux-musl';
  return join(dir, 'node_modules', '@openai', `codex-linux-${process.arch}`, 'vendor', triple, 'bin', 'codex');
};

export const codexPath = (): string => {
  const path = process.env.FETTLE_E2E_CODEX ?? codexBinary();
  if (!existsSync(path)) throw new Error(`Codex CLI is not installed at ${path}: run the suite with npm run test:e2e`);
  return path;
};

/** The model every run asks for: one the client knows, so it offers its apply_patch tool. */
const MODEL = 'gpt-5.5';
const KEY_VARIABLE = 'FETTLE_E2E_FAKE_KEY';

/** A CODEX_HOME whose config.toml points Codex at `api` and keeps it offline; `extra` is appended as is. */
export const codexHome = (home: string, api: string, extra = ''): string => {
  const dir = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.toml'),
    [
      `model = "${MODEL}"`,
      'model_provider = "fake"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${api}/v1"`,
      'wire_api = "responses"',
      `env_key = "${KEY_VARIABLE}"`,
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[features]',
      'plugins = false',
      '',
      extra,
    ].join('\n'),
  );
  return dir;
};

export interface CodexRun {
  code: number | null;
  /** the --json events, parsed */
  events: Record<string, unknown>[];
  stdout: string;
  stderr: string;
}

export interface CodexOptions {
  cwd: string;
  /** the CODEX_HOME (codexHome) */
  codexHome: string;
  env: Record<string, string>;
  prompt?: string;
  /** more arguments for `codex exec` */
  args?: string[];
  /** a program to run the client under (strace) */
  wrap?: string[];
  timeoutMs?: number;
}

/**
 * One headless session. Outside the sandbox (`-s danger-full-access`): Codex's workspace-write sandbox keeps
 * .git read-only for the commands the model runs, so the model could not run `fettle confirm` there.
 */
export const runCodex = async (o: CodexOptions): Promise<CodexRun> => {
  const args = [
    'exec',
    '--json',
    '--color',
    'never',
    '-s',
    'danger-full-access',
    ...(o.args ?? []),
    o.prompt ?? 'Do the task.',
  ];
  const env = { ...o.env, CODEX_HOME: o.codexHome, [KEY_VARIABLE]: 'not-a-key' };
  const [file, ...pre] = o.wrap ? [...o.wrap, codexPath()] : [codexPath()];
  const run = await runChild(file as string, [...pre, ...args], {
    cwd: o.cwd,
    env,
    timeoutMs: o.timeoutMs ?? 90_000,
  });
  return { ...run, events: jsonLines(run.stdout) };
};
