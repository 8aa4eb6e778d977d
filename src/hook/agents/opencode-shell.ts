// opencode's `bash` tool and its prompts, from fettle's plugin (plugins/opencode/fettle.mjs). A command is recorded
// by the same snapshot and comparison as Claude Code's Bash (hook/bash.ts): `tool.execute.before` takes the
// snapshot, `tool.execute.after` records what changed and hands the model its line (`{"note"}`, added to the
// tool's output). The command runs in `workdir` when the model gives one, else in opencode's directory. Each
// user message (`chat.message`) starts a turn, so `fettle rollback --turn` covers opencode's sessions.
import { resolve } from 'node:path';
import { runShell } from '../bash';
import type { HookEdge } from '../edge';
import type { HookOutcome } from '../outcome';
import { warn } from '../outcome';
import { commandProblem, str, usablePath, type Obj } from '../payload';
import { countTurn } from '../turn';

export const OPENCODE_SHELL_TOOL = 'bash';

export interface ShellEventIn {
  event: 'before' | 'after';
  session: string | undefined;
  call: string;
  directory: string;
  args: Obj;
}

export const runOpencodeShell = (e: ShellEventIn, edge: HookEdge): Promise<HookOutcome> => {
  const command = e.args.command;
  const problem = commandProblem(command, OPENCODE_SHELL_TOOL);
  if (problem !== undefined || typeof command !== 'string')
    return Promise.resolve(warn(`fettle: ${problem}; this command was not protected by fettle.`));
  const workdir = e.args.workdir;
  const call = {
    command,
    cwd: usablePath(workdir) ? resolve(e.directory, workdir) : e.directory,
    session: e.session,
    toolUse: e.call || undefined,
    agent: 'opencode',
    tool: OPENCODE_SHELL_TOOL,
  };
  const note = (line: string): HookOutcome => ({ exitCode: 0, stdout: JSON.stringify({ note: line }) });
  return runShell({ phase: e.event, call }, edge, note);
};

/** A user message: the session's next turn starts. */
export const countOpencodeTurn = (data: Obj, edge: HookEdge): Promise<HookOutcome> =>
  countTurn({ session: str(data.session), prompt: str(data.prompt) }, edge);
