// The real Gemini CLI, pinned (client.json), installed into a cache outside the repository by
// scripts/test-e2e.mjs (its bundle's path in FETTLE_E2E_GEMINI), run headless (`gemini -p`) with an API key and
// GOOGLE_GEMINI_BASE_URL pointing at the fake Gemini API (fake-api.ts). Its user settings turn off everything
// that calls home: usage statistics, telemetry, update checks; gemini.test.ts's strace check proves none is
// missed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ChildRun, runChild } from '../local';

export const GEMINI: { package: string; version: string } = JSON.parse(
  readFileSync(join(__dirname, 'client.json'), 'utf8'),
);

export const geminiDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.FETTLE_E2E_GEMINI_DIR ||
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'fettle-e2e', `gemini-cli-${GEMINI.version}`);

export const geminiScript = (dir = geminiDir()): string =>
  join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');

export const geminiPath = (): string => {
  const path = process.env.FETTLE_E2E_GEMINI ?? geminiScript();
  if (!existsSync(path)) throw new Error(`Gemini CLI is not installed at ${path}: run the suite with npm run test:e2e`);
  return path;
};

const MODEL = 'gemini-2.5-flash';

/** The user settings of a run: an API key's auth, and nothing that calls home. fettle's install adds its hooks. */
export const geminiSettings = (home: string): string => {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'settings.json');
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  writeFileSync(path, `${JSON.stringify(settings, null, 2)}\n`);
  return path;
};

export type GeminiRun = ChildRun;

export interface GeminiOptions {
  cwd: string;
  api: string;
  env: Record<string, string>;
  prompt?: string;
  /** --approval-mode (default yolo: every tool call goes ahead without a person) */
  mode?: string;
  /** more client arguments (`--session-id`, `--resume`) */
  args?: string[];
  wrap?: string[];
  timeoutMs?: number;
}

export const runGemini = (o: GeminiOptions): Promise<GeminiRun> => {
  const args = [
    geminiPath(),
    '-p',
    o.prompt ?? 'Do the task.',
    '-m',
    MODEL,
    '--approval-mode',
    o.mode ?? 'yolo',
    // A fresh temporary directory is no folder the user trusted; headless, Gemini CLI otherwise refuses it.
    '--skip-trust',
    ...(o.args ?? []),
  ];
  const env = { ...o.env, GEMINI_API_KEY: 'not-a-key', GOOGLE_GEMINI_BASE_URL: o.api, NO_COLOR: '1' };
  const [file, ...pre] = o.wrap ? [...o.wrap, process.execPath] : [process.execPath];
  return runChild(file as string, [...pre, ...args], { cwd: o.cwd, env, timeoutMs: o.timeoutMs ?? 90_000 });
};
