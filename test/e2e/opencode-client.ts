// The real opencode client (`opencode-ai` on the npm registry, version in opencode-client.json), installed into a
// cache outside the repository (FETTLE_E2E_OPENCODE_DIR, else $XDG_CACHE_HOME/fettle-e2e/opencode-<version>) by
// scripts/test-e2e.mjs, and run headless (`opencode run`) against the fake API on 127.0.0.1 with every switch that keeps it
// from calling home. Its program is the native binary of the platform package (a compiled Bun program).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { withFettleOnPath } from '../helpers/cli';
import type { Repo } from '../helpers/repo';

const pin = JSON.parse(readFileSync(join(__dirname, 'opencode-client.json'), 'utf8')) as {
  package: string;
  version: string;
};
export const OPENCODE_VERSION = pin.version;

export const opencodeDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.FETTLE_E2E_OPENCODE_DIR ||
  join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'fettle-e2e', `opencode-${pin.version}`);

const binaryIn = (dir: string): string =>
  join(dir, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');

/** The client's binary, which scripts/test-e2e.mjs installs and names in FETTLE_E2E_OPENCODE. */
export const opencodeBinary = (): string => {
  const binary = process.env.FETTLE_E2E_OPENCODE ?? binaryIn(opencodeDir());
  if (!existsSync(binary))
    throw new Error(`opencode is not installed at ${binary}: run the suite with npm run test:e2e`);
  return binary;
};

/**
 * The switches that keep opencode offline: no update check, no models.dev catalogue, no sharing, no LSP
 * downloads, none of its default plugins (provider logins), no scan of Claude Code's or other agents' files.
 */
export const OPENCODE_OFFLINE_ENV: Record<string, string> = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
  OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
};

/**
 * opencode's user configuration in `configHome`/opencode: the fake model as an OpenAI-compatible provider (a
 * provider package opencode bundles), and `permission` as given. opencode installs its plugin SDK into every
 * configuration directory it loads (`npm install` of @opencode-ai/plugin) unless that directory's node_modules and
 * lock file already name it: they are made here, so it installs nothing.
 */
export const writeOpencodeConfig = (configHome: string, api: string, extra: Record<string, unknown> = {}): void => {
  const dir = join(configHome, 'opencode');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'fake/fake-model',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: api, apiKey: 'not-a-key' },
        models: { 'fake-model': { name: 'Fake model', tool_call: true } },
      },
    },
    ...extra,
  };
  writeFileSync(join(dir, 'opencode.json'), JSON.stringify(config, null, 2));
  const dependencies = { '@opencode-ai/plugin': '*' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies } } }));
};

/** The environment of an opencode session in `repo`: its XDG directories in the test's home, fettle on PATH. */
export const opencodeEnv = (repo: Repo): Record<string, string> =>
  withFettleOnPath(
    {
      ...repo.env,
      XDG_CONFIG_HOME: join(repo.home, '.config'),
      XDG_CACHE_HOME: join(repo.home, '.cache'),
      XDG_STATE_HOME: join(repo.home, '.state'),
    },
    repo.home,
  );

export interface OpencodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `opencode run [args] <prompt>` in `cwd` (`args`: `--session <id>` continues a session), stdin closed (it would
 * wait for piped input), under `wrap` when given.
 */
export const runOpencode = (o: {
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  args?: string[];
  wrap?: string[];
}): Promise<OpencodeRun> =>
  new Promise((resolve) => {
    const binary = opencodeBinary();
    const argv = [...(o.wrap ?? []), binary, 'run', ...(o.args ?? []), o.prompt];
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: o.cwd,
      env: { ...o.env, ...OPENCODE_OFFLINE_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
