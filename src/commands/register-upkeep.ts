// The commands that set fettle up and look after a repository (policy, gc, read, status, sessions, doctor, info,
// install, uninstall, serve, demo), registered on the program in the order `fettle --help` lists them, after
// register-changes.ts.
import { type Command, Option } from 'commander';
import { demo } from './demo';
import { doctor } from './doctor';
import type { Edge } from './edge';
import { gcCommand } from './gc';
import { info } from './info';
import { installGitHooksCommand, uninstallGitHooksCommand } from './git-hook';
import { INSTALL_AGENTS, type InstallAgent, install, installResidentCommand, uninstall } from './install';
import { type CheckOptions, policyCheck } from './policy';
import { read } from './read';
import { serveCommand, type ServeOptions } from './serve';
import { sessionsCommand } from './sessions';
import { status } from './status';

export const registerUpkeepCommands = (
  program: Command,
  edge: Edge,
  dir: () => string | undefined,
  setExit: (code: number) => void,
): void => {
  const json = new Option('--json', 'print JSON for scripts');
  const policy = program
    .command('policy')
    .description('rules from .fettle/policy.json and your own policy file: which match a call, and why');
  policy
    .command('check')
    .description('every rule considered for a call on [path], which matched and why, and the one that decides')
    .argument('[path]', 'a file path (it need not exist); none with --command: a Bash command')
    .option('--tool <name>', 'the tool the agent calls (Write, Edit, Bash, apply_patch, ...)')
    .option('--content-file <file>', 'the content the write would leave (its added lines: against <path> on disk)')
    .option('--command <line>', 'a Bash command line (the tool is Bash unless --tool says otherwise)')
    .option('--session <id>', "check state conditions against this agent session's log")
    .option('--run', "run the matching run rules' commands on the tree the write would leave (exit 1 if one fails)")
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (path: string | undefined, o: CheckOptions) => setExit(await policyCheck(edge, dir(), path, o)));
  program
    .command('gc')
    .description(
      "apply the history retention policy now, remove fettle's orphaned files, and pack its objects and refs",
    )
    .option('--dry-run', 'say what would be removed, removing nothing')
    .option(
      '--expire <when>',
      "drop objects only removed changes reached once older than <when> (git's approxidate; default gc.pruneExpire, 2 weeks)",
    )
    .addOption(new Option('--auto', 'storage maintenance only, quietly (started by the hook)').hideHelp())
    .addOption(json)
    .action(async (o: { json?: boolean; dryRun?: boolean; auto?: boolean; expire?: string }) =>
      gcCommand(edge, dir(), o),
    );
  program
    .command('read')
    .description("print a text file with line numbers, past the agent's Read limits")
    .argument('<file>')
    .option('--offset <n>', 'first line to print (1-based)')
    .option('--limit <n>', 'number of lines to print')
    .addOption(json)
    .action(async (file: string, o: { offset?: string; limit?: string; json?: boolean }) => read(edge, dir(), file, o));
  program
    .command('status')
    .description('pending staged changes and recent writes')
    .option('--session <id>', 'the agent session to show (default: the one prompted last)')
    .addOption(json)
    .action(async (o: { json?: boolean; session?: string }) => status(edge, dir(), o));
  program
    .command('sessions')
    .description('the agent sessions that changed files here: turn, changes, pending work, files shared with another')
    .addOption(json)
    .action(async (o: { json?: boolean }) => sessionsCommand(edge, dir(), o));
  program
    .command('doctor')
    .description('check that fettle can protect writes here, and say how to fix what is not')
    .addOption(json)
    .action(async (o: { json?: boolean }) => setExit(await doctor(edge, dir(), o)));
  program
    .command('info')
    .description('the decision rule and the thresholds in force')
    .addOption(json)
    .action(async (o: { json?: boolean }) => info(edge, dir(), o));
  const scope = new Option(
    '--scope <scope>',
    "which settings file: yours, the project's, or (Claude Code) this checkout's",
  )
    .choices(['user', 'project', 'local'])
    .default('user');
  const gitHooks = new Option(
    '--git-hooks',
    "this repository's post-commit and post-rewrite git hooks, which note on refs/notes/fettle which lines of each commit an agent wrote",
  );
  const agent = new Option('--agent <name>', 'the coding agent').choices([...INSTALL_AGENTS]).default('claude');
  program
    .command('install')
    .description("register fettle's hooks in a coding agent's settings (Claude Code's unless --agent)")
    .addOption(agent)
    .addOption(scope)
    .option(
      '--read',
      'also answer Reads (Claude Code): large text files a page at a time, a re-read of unchanged bytes in one line; hooks on every Read, off by default',
    )
    .option('--no-bash', 'do not record what Bash commands change (Claude Code; recorded by default)')
    .option('--resident', 'hooks answered by a resident server (`fettle serve`; Claude Code): no Node start per write')
    .addOption(gitHooks)
    .addOption(json)
    .action(
      async (o: {
        scope: 'user' | 'project' | 'local';
        read?: boolean;
        bash: boolean;
        json?: boolean;
        agent: InstallAgent;
        resident?: boolean;
        gitHooks?: boolean;
      }) =>
        o.gitHooks
          ? installGitHooksCommand(edge, dir(), o)
          : o.resident
            ? installResidentCommand(edge, dir(), o.scope, o)
            : install(edge, dir(), o.scope, o),
    );
  program
    .command('uninstall')
    .description("remove fettle's hooks from a coding agent's settings (Claude Code's unless --agent)")
    .addOption(agent)
    .addOption(scope)
    .addOption(gitHooks)
    .addOption(json)
    .action(
      async (o: { scope: 'user' | 'project' | 'local'; json?: boolean; agent: InstallAgent; gitHooks?: boolean }) =>
        o.gitHooks ? uninstallGitHooksCommand(edge, dir(), o) : uninstall(edge, dir(), o.scope, o),
    );
  program
    .command('serve')
    .description(
      'the resident hook server (started by the first hook call, or `install --resident`); alone, runs it in the foreground',
    )
    .option('--start', 'start it in the background unless it runs')
    .option('--stop', 'stop it (calls in flight finish first)')
    .option('--restart', 'stop it, then start it')
    .option('--status', 'whether it runs, how it authenticates Claude Code, and whether this shell exports its token')
    .option('--reset-token', 'make a new token (where the token is the check, sessions started before must restart)')
    .addOption(new Option('--guard', 'resident PreToolUse hook, when the server is not running').hideHelp())
    .addOption(new Option('--session-start', 'resident SessionStart hook').hideHelp())
    .addOption(json)
    .action(async (o: ServeOptions) => setExit(await serveCommand(edge, o)));
  program
    .command('demo')
    .description('run the whole protocol in a throwaway repository and show what happens')
    .action(async () => setExit(await demo(edge)));
};
