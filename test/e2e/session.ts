// One real Claude Code session against a scripted API, in a fresh repository with fettle installed the way a user
// installs it for one project (`fettle install --scope local`, or this repository as a plugin with --plugin-dir).
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI, runCli } from '../helpers/cli';
import { makeRepo, type Repo } from '../helpers/repo';
import { type ClientOptions, type ClientRun, runClient } from './client';
import { type FakeApi, type Script, startFakeApi, text, tool } from './fake-api';
import { lines } from '../helpers/repo';

/** This checkout, as Claude Code loads it as a plugin (.claude-plugin/, hooks/, dist/). */
export const PLUGIN_DIR = join(__dirname, '..', '..');

/**
 * How fettle is installed for a session: in the project's settings, as a plugin, not at all, or both ways at once
 * (the case of a user who did both: fettle must answer each tool call once).
 */
export type Install = 'settings' | 'plugin' | 'both' | 'none';

export interface SessionOptions {
  mode?: string;
  install?: Install;
  /** more client arguments */
  args?: string[];
  /** fettle's configuration and anything else for every process of the session */
  env?: Record<string, string>;
  wrap?: string[];
  prompt?: string;
  /** how long the client may run (runClient's default, 60 s, otherwise) */
  timeoutMs?: number;
}

export interface Session {
  run: ClientRun;
  api: FakeApi;
}

/**
 * `fettle install --scope local`, as a user installs it for one project: the hooks go into the repository's
 * .claude/settings.local.json (`--scope project` refuses to write this machine's path into the file teams commit).
 */
export const installFettle = (repo: Repo): void => {
  const r = runCli(['install', '--scope', 'local'], { cwd: repo.dir, env: repo.env });
  if (r.code !== 0) throw new Error(`fettle install failed: ${r.stderr}`);
};

/** A repository holding `files`, committed, with fettle installed in its settings unless told otherwise. */
export const e2eRepo = (files: Record<string, string | Buffer>, install: Install = 'settings'): Repo => {
  const repo = makeRepo(files);
  if (install === 'settings' || install === 'both') installFettle(repo);
  return repo;
};

/** Runs one headless session of the real client in `repo`, the model's turns scripted. */
export const session = async (repo: Repo, script: Script, o: SessionOptions = {}): Promise<Session> => {
  const api = await startFakeApi(script);
  try {
    const opts: ClientOptions = {
      cwd: repo.dir,
      api: api.url,
      env: { ...repo.env, SHELL: '/bin/bash', ...o.env },
      mode: o.mode ?? 'acceptEdits',
      args: [
        ...(o.install === 'plugin' || o.install === 'both' ? ['--plugin-dir', PLUGIN_DIR] : []),
        ...(o.args ?? []),
      ],
      ...(o.wrap ? { wrap: o.wrap } : {}),
      ...(o.prompt ? { prompt: o.prompt } : {}),
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    };
    const run = await runClient(opts);
    return { run, api };
  } finally {
    await api.close();
  }
};

/** The client's final result event (`type: result`), which says whether the session ended cleanly. */
export const resultOf = (run: ClientRun): Record<string, unknown> | undefined =>
  run.events.find((e) => e.type === 'result');

/** Hook events of the stream (--include-hook-events), for messages on failure. */
export const hookEvents = (run: ClientRun): Record<string, unknown>[] =>
  run.events.filter((e) => typeof e.subtype === 'string' && e.subtype.startsWith('hook'));

/** fettle's CLI in the session's repository, as a person runs it from their terminal. */
export const fettle = (repo: Repo, ...args: string[]): string =>
  execFileSync(process.execPath, [CLI, ...args], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });

/** The same, without blocking the fake API's event loop while it runs. */
export const fettleAsync = (repo: Repo, ...args: string[]): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [CLI, ...args], { cwd: repo.dir, env: repo.env, encoding: 'utf8' }, (error, out) =>
      error ? reject(error) : resolve(out),
    ),
  );

/** What failed, for an assertion message: the client's exit, stderr, the hooks that ran and what the model saw. */
export const explain = (s: Session): string =>
  [
    `client exit ${s.run.code} in ${s.run.ms} ms; stderr: ${s.run.stderr.slice(0, 1000)}`,
    `hooks: ${hookEvents(s.run)
      .filter((e) => e.subtype === 'hook_response')
      .map((e) => `${e.hook_name} ${e.outcome} ${e.exit_code} ${String(e.stdout).slice(0, 120)}`)
      .join('\n  ')}`,
    `the model saw: ${s.api
      .results()
      .map((r) => `${r.toolUseId} ${r.isError ? 'error' : 'ok'}: ${JSON.stringify(r.text.slice(0, 300))}`)
      .join('\n  ')}`,
  ].join('\n');

/**
 * The command fettle printed after `lead` ("To apply it, run:", "To drop it, run:", "undo with:"), exactly as
 * printed, to run it the way the model would: through the client's Bash tool. Undefined when not printed.
 */
export const commandAfter = (text: string, lead: string): string | undefined => {
  const at = text.indexOf(lead);
  if (at === -1) return undefined;
  const rest = text.slice(at + lead.length).trimStart();
  return rest.split('\n')[0]?.replace(/`/g, '').trim();
};

export interface LoggedChange {
  id: string;
  path: string;
  tier: string;
  state: string;
  kind: string;
  reason: string | null;
}

/** `fettle log --json`, newest first. */
export const changesIn = (repo: Repo): LoggedChange[] => JSON.parse(fettle(repo, 'log', '--json')).changes;

/** Two files of 30 lines each, in a session where the model reads both, edits 1 line of a.txt, rewrites b.txt. */
export const A_AND_B = { 'a.txt': lines(30), 'b.txt': lines(30) };
export const smallEditThenLargeWrite =
  (repo: Repo): Script =>
  (_req, turn) =>
    [
      [tool('Read', { file_path: repo.path('a.txt') }), tool('Read', { file_path: repo.path('b.txt') })],
      [tool('Edit', { file_path: repo.path('a.txt'), old_string: 'line 3\n', new_string: 'LINE 3\n' })],
      [tool('Write', { file_path: repo.path('b.txt'), content: lines(30, 'new') })],
    ][turn] ?? [text('done')];
