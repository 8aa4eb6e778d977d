// Bash tool calls as Claude Code runs them: PreToolUse (the hook), the command in a shell, then PostToolUse, or
// PostToolUseFailure when it exits non-zero (the client's rule). Payload shapes as the client sends them:
// tool_name "Bash", tool_input {command, description?, timeout?, run_in_background?}.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type HookRun, runCli, runHook } from './cli';
import type { Repo } from './repo';

export type BashEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure';

export interface BashCall {
  command: string;
  cwd: string;
  event?: BashEvent;
  session?: string;
  toolUseId?: string;
  error?: string;
}

export const bashPayload = (c: BashCall): Record<string, unknown> => ({
  session_id: c.session ?? 'session-1',
  transcript_path: '/dev/null',
  cwd: c.cwd,
  permission_mode: 'acceptEdits',
  hook_event_name: c.event ?? 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: c.command, description: 'a test command', timeout: 120000 },
  tool_use_id: c.toolUseId ?? 'toolu_bash_1',
  ...(c.event === 'PostToolUseFailure' ? { error: c.error ?? 'Exit code 1', is_interrupt: false } : {}),
  ...(c.event === 'PostToolUse' ? { tool_response: { stdout: '', stderr: '', interrupted: false } } : {}),
});

export const bashHook = (c: BashCall, env: Record<string, string>): HookRun =>
  runHook(bashPayload(c), { cwd: c.cwd, env });

/** Runs `command` with sh in `cwd`, as the Bash tool would. */
export const shell = (command: string, cwd: string, env: Record<string, string>) =>
  spawnSync('/bin/sh', ['-c', command], { cwd, env, encoding: 'utf8' });

export interface AgentBash {
  pre: HookRun;
  post: HookRun;
  code: number;
  /** the line the model gets, when files changed */
  line: string | undefined;
}

/** One Bash call: PreToolUse, the command, then PostToolUse or (exit code not 0) PostToolUseFailure. */
export const agentBash = (
  repo: Repo,
  command: string,
  o: { session?: string; toolUseId?: string; env?: Record<string, string>; cwd?: string } = {},
): AgentBash => {
  const env = { ...repo.env, ...o.env };
  const call = { command, cwd: o.cwd ?? repo.dir, session: o.session, toolUseId: o.toolUseId };
  const pre = bashHook({ ...call, event: 'PreToolUse' }, env);
  const run = shell(command, call.cwd, env);
  const code = run.status ?? -1;
  const post = bashHook({ ...call, event: code === 0 ? 'PostToolUse' : 'PostToolUseFailure' }, env);
  return { pre, post, code, line: post.json?.hookSpecificOutput?.additionalContext };
};

/** The changeset id the line names (`rollback <id>`). */
export const changesetOf = (line: string | undefined): string => {
  const id = /rollback ([0-9a-z]{8})$/.exec(line ?? '')?.[1];
  if (!id) throw new Error(`no rollback command in: ${line}`);
  return id;
};

/** fettle as the agent's shell (or a person) runs it in the repository. */
export const fettleIn = (repo: Repo, ...args: string[]) => runCli(args, { cwd: repo.dir, env: repo.env });

/** Snapshot files of Bash commands not yet settled, in the test's data directory. */
export const openSnapshotFiles = (repo: Repo): string[] => {
  const dir = join(repo.env.XDG_DATA_HOME as string, 'fettle', 'bash');
  return existsSync(dir) ? readdirSync(dir) : [];
};
