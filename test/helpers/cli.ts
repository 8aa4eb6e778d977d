// Runs the built CLI as a separate process, exactly as Claude Code or a script would.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { shellQuote } from '../../src/io/self';
import { callResident, setUpResident, sharedResident } from './resident';

export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/**
 * How the built CLI spells itself in the commands it prints when no `fettle` on PATH is this one, as on the
 * tests' PATH (helpers/repo.ts leaves out every directory holding a `fettle`): the absolute node and script.
 */
export const SELF = `${shellQuote(process.execPath)} ${shellQuote(realpathSync(CLI))}`;

/** `env` with a `fettle` on PATH that is this CLI (a link in `dir`/bin), as after `npm install -g`. */
export const withFettleOnPath = (env: Record<string, string>, dir: string): Record<string, string> => {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(CLI, join(bin, 'fettle'));
  return { ...env, PATH: `${bin}${delimiter}${env.PATH ?? ''}` };
};

/** `text` matched literally inside a RegExp. */
/** An 8-character id one character off: its last replaced by another (ids are random, so it may end in x). */
export const mistyped = (id: string): string => `${id.slice(0, 7)}${id.endsWith('x') ? 'y' : 'x'}`;

export const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export const runCli = (
  args: string[],
  opts: { cwd: string; env: Record<string, string>; input?: string | Buffer },
): Run => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    input: opts.input ?? '',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
};

export interface HookRun extends Run {
  /** stdout parsed as JSON, when it is JSON */
  json?: { hookSpecificOutput?: Record<string, string>; systemMessage?: string };
}

export interface WriteCall {
  file: string;
  content: string;
  cwd: string;
  event?: 'PreToolUse' | 'PostToolUse';
  mode?: string;
  toolUseId?: string;
  session?: string;
}

export const writePayload = (c: WriteCall): Record<string, unknown> => ({
  session_id: c.session ?? 'session-1',
  transcript_path: '/dev/null',
  cwd: c.cwd,
  permission_mode: c.mode ?? 'acceptEdits',
  hook_event_name: c.event ?? 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: c.file, content: c.content },
  tool_use_id: c.toolUseId ?? 'toolu_01',
});

/**
 * The hook path the tests drive: `fettle hook` as a process (the default), or, with FETTLE_TEST_HOOK_PATH=http,
 * the resident server through Claude Code's HTTP hook (test/hook/over-http.test.ts runs suites both ways).
 */
export const overHttp = (): boolean => process.env.FETTLE_TEST_HOOK_PATH === 'http';

/**
 * The server that answers a call over HTTP: the test file's own, or, for a call with failpoints armed, a server
 * started with them (it arms them when it starts, not per call), so a `kill` there ends the server mid-call: the
 * resident counterpart of a hook process killed.
 */
const residentFor = (env: Record<string, string>) =>
  env.FETTLE_FAILPOINTS ? setUpResident({ FETTLE_FAILPOINTS: env.FETTLE_FAILPOINTS }) : sharedResident();

export const runHook = (payload: unknown, opts: { cwd: string; env: Record<string, string> }): HookRun => {
  const input = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const r = overHttp() ? callResident(residentFor(opts.env), input, opts) : runCli(['hook'], { ...opts, input });
  let json: HookRun['json'];
  try {
    json = r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  return { ...r, json };
};

/**
 * One agent Write as Claude Code runs it: PreToolUse; if it neither denied nor blocked, the tool writes the
 * file (as Claude Code would); then PostToolUse.
 */
export const agentWrite = (
  c: WriteCall,
  env: Record<string, string>,
  writeFile: (path: string, content: string) => void,
) => {
  const pre = runHook(writePayload({ ...c, event: 'PreToolUse' }), { cwd: c.cwd, env });
  const denied = pre.json?.hookSpecificOutput?.permissionDecision === 'deny' || pre.code === 2;
  if (denied) return { pre, post: undefined, written: false };
  writeFile(c.file, c.content);
  const post = runHook(writePayload({ ...c, event: 'PostToolUse' }), { cwd: c.cwd, env });
  return { pre, post, written: true };
};

/** `fettle hook` as a separate process, not waited for: several run at once, or beside a server this process runs. */
export const hookInBackground = (
  cwd: string,
  input: unknown,
  env: Record<string, string | undefined>,
): Promise<HookRun> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'hook'], { cwd, env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
    child.stdin.end(JSON.stringify(input));
  });
