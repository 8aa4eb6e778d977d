// The command-line program. Commands are thin: parse, call the protocol, print. Errors are rendered here,
// once: the message, the next command to run, and a stack only with FETTLE_DEBUG.
import { Command, CommanderError, Option } from 'commander';
import { EXIT, exitCodeFor, FettleError, toFettleError } from '../errors';
import { cleanUpOnSignals } from '../io/cleanup';
import { selfCommand, spellCommands } from '../io/self';
import { armFailpoints } from '../io/failpoint';
import { readStdin } from '../io/stdin';
import { page } from './pager';
import { policyCheck } from './policy';
import { applyCommand, type ApplyCommandOptions } from './apply';
import { confirmCommand } from './confirm';
import { demo } from './demo';
import { discardCommand } from './discard';
import { doctor } from './doctor';
import { spelled, type Edge, type Io } from './edge';
import { gcCommand } from './gc';
import { info } from './info';
import { INSTALL_AGENTS, type InstallAgent, install, installResidentCommand, uninstall } from './install';
import { logCommand } from './log';
import { read } from './read';
import { reviewCommand } from './review';
import { rollbackCommand, type RollbackOptions } from './rollback';
import { serveCommand, type ServeOptions } from './serve';
import { showCommand } from './show';
import { status } from './status';
import { testCommand, type TestOptions } from './test';
import { write } from './write';

const VERSION = '0.1.0';

const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

const defaultIo = (): Io => ({
  out,
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  stdin: readStdin,
  script: process.argv[1],
  isTTY: Boolean(process.stdout.isTTY),
  page: (text) => (process.stdout.isTTY ? page(text, process.env, out) : out(text)),
  errWrite: (raw) => process.stderr.write(raw),
  errTTY: Boolean(process.stderr.isTTY),
  columns: process.stderr.columns,
});

/** `argv`: the command line as given, for `test`, which needs to see where `--` was (commander drops it). */
export const buildProgram = (edge: Edge, setExit: (code: number) => void, argv: readonly string[] = []): Command => {
  const program = new Command('fettle')
    .description('A git-backed safety net for every file an AI coding agent writes.')
    .version(VERSION)
    .option('-C <dir>', 'run as if fettle was started in <dir>')
    // Every subcommand's --help lists -C too (`fettle -C <dir> status`), as git's do.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({ writeOut: (s) => edge.io.out(s), writeErr: (s) => edge.io.err(s) })
    .showHelpAfterError(
      spellCommands('(run `fettle --help` for the list of commands)', selfCommand(edge.env, edge.io.script)),
    );
  const dir = (): string | undefined => program.opts<{ C?: string }>().C;
  const json = new Option('--json', 'print JSON for scripts');

  program
    .command('hook')
    .description("run as a coding agent's hook (reads the hook JSON on stdin)")
    .option('--agent <name>', 'the agent that runs it (claude, codex, gemini, cursor); without it, Claude Code')
    .action(() => {
      // The entry (cli.ts) runs `fettle [-C <dir>] hook [--agent <name>]` in the hook bundle; only odd spellings
      // arrive here.
      throw new FettleError(
        'E_USAGE',
        'fettle hook takes no arguments or options other than -C <dir> and --agent <name>, in that order.',
        { hint: 'An agent runs it as `fettle hook --agent <name>` (install writes it), with the hook JSON on stdin.' },
      );
    });
  program
    .command('mcp')
    .description('run an MCP server on stdin and stdout: tools to write files through fettle and to decide on them')
    .addHelpText(
      'after',
      "\nTools: fettle_write, fettle_write_files, fettle_confirm, fettle_discard, fettle_rollback, fettle_status,\nfettle_log, fettle_show, fettle_read, fettle_apply. An MCP client starts it; see the README for each agent's configuration.",
    )
    .action(() => {
      // The entry (cli.ts) runs `fettle [-C <dir>] mcp` in the MCP bundle; only odd spellings arrive here.
      throw new FettleError('E_USAGE', 'fettle mcp takes no arguments or options other than -C <dir>.', {
        hint: 'An MCP client starts it as `fettle mcp` and speaks JSON-RPC on its stdin and stdout.',
      });
    });
  program
    .command('write')
    .description('write stdin to <file> through the same protocol as the hook')
    .argument('<files...>', 'the file (content on stdin), or with --from several files, one changeset')
    .option('--from <dir>', "each file's new content is the file at the same relative path under <dir>")
    .addOption(json)
    .action(async (files: string[], o: { from?: string; json?: boolean }) =>
      setExit(await write(edge, dir(), files, o)),
    );
  program
    .command('apply')
    .description("apply a contract's text-anchored edits exactly, staged as one changeset for review")
    .argument('<contract>', 'the contract: JSON, or Markdown (*.md) with fenced blocks (schema/contract.v1.json)')
    .option('--dry-run', 'show the diff it would stage, staging nothing')
    .option('--test', "run the contract's checks in the test tree first; their outcome is recorded with it")
    .option(
      '--link <path>',
      'with --test: link an ignored path of your working tree (e.g. node_modules) into the test tree; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .addOption(json)
    .action(async (contract: string, o: ApplyCommandOptions) => setExit(await applyCommand(edge, dir(), contract, o)));
  program
    .command('confirm')
    .description('apply staged changes, all or nothing')
    .argument('[ids...]', 'change ids or changeset ids')
    .option('--session <id>', 'every pending change of that agent session')
    .option('--all', 'every pending change')
    .option('--expired', 'apply them although their time to confirm ran out (a person only)')
    .option('--with-conflicts', 'if edits made since overlap one, write the merge with conflict markers')
    .addOption(json)
    .action(
      async (
        ids: string[],
        o: { json?: boolean; session?: string; all?: boolean; expired?: boolean; withConflicts?: boolean },
      ) => confirmCommand(edge, dir(), ids, o),
    );
  program
    .command('discard')
    .description('drop staged changes, all or nothing (files are not touched)')
    .argument('[ids...]', 'change ids or changeset ids')
    .option('--session <id>', 'every pending or expired change of that agent session')
    .option('--all', 'every pending or expired change')
    .addOption(json)
    .action(async (ids: string[], o: { json?: boolean; session?: string; all?: boolean }) =>
      discardCommand(edge, dir(), ids, o),
    );
  program
    .command('rollback')
    .description('undo changes fettle recorded, restoring the previous bytes (all or nothing)')
    .argument('[targets...]', 'change ids, fettle commits, or files (the latest change to each still in effect)')
    .option('--session <id>', 'every change of that agent session still in effect, newest first')
    .option('--turn <n>', 'what the session (--session, else the current one) did since turn <n> began')
    .option('--dry-run', 'list the files that would change and how, changing nothing')
    .option('--to <path>', "write the change's previous bytes to <path> instead, leaving the file alone")
    .option('--force', 'overwrite edits made after fettle wrote the file (they are snapshotted first)')
    .addOption(json)
    .action(async (targets: string[], o: RollbackOptions) => rollbackCommand(edge, dir(), targets, o));
  program
    .command('log')
    .description('every change fettle keeps, newest first')
    .argument('[path]', 'only changes to this file')
    .option('--session <id>', 'only changes of this agent session, grouped by turn')
    .option(
      '--agent <name>',
      'only changes made by this coding agent (claude, codex, gemini, cursor, opencode, or an MCP client by its name)',
    )
    .addOption(json)
    .action(async (path: string | undefined, o: { json?: boolean; session?: string; agent?: string }) =>
      logCommand(edge, dir(), path, o),
    );
  program
    .command('show')
    .description('one change: its metadata, commits and diff')
    .argument('<change>', 'change id or fettle commit')
    .addOption(json)
    .action(async (change: string, o: { json?: boolean }) => showCommand(edge, dir(), change, o));
  program
    .command('review')
    .description('a staged change, or a whole agent session, as a pull request; --push it as a branch of a remote')
    .argument('[change]', 'change id or fettle commit')
    .option('--session <id>', 'everything this agent session changed, against the commit it started from')
    .option('--push [remote]', 'push it as a branch of <remote> (default origin)')
    .option('--branch <name>', 'branch name for --push (default fettle/<id>, fettle/sessions/<id>)')
    .option('--force', 'with --push: move the branch although it exists on the remote with another commit')
    .addOption(json)
    .action(
      async (
        change: string | undefined,
        o: { json?: boolean; push?: string | boolean; branch?: string; session?: string; force?: boolean },
      ) => reviewCommand(edge, dir(), change, o),
    );
  program
    .command('test')
    .description(
      'run a command in your working tree as confirm would leave it with staged changes applied: fettle test <id|changeset...> -- <command...>',
    )
    .argument('[args...]', 'change ids, changeset ids or fettle commits, then -- and the command with its arguments')
    .option('--session <id>', 'every pending staged change of this agent session')
    .option(
      '--link <path>',
      'link an ignored path of your working tree (e.g. node_modules) into the test tree; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (args: string[], o: TestOptions) => setExit(await testCommand(edge, dir(), args, argv, o)));
  const policy = program
    .command('policy')
    .description('path rules from .fettle/policy.json and your own policy file: which decides a path, and why');
  policy
    .command('check')
    .description('every rule considered for <path>, which matched, and the one that decides')
    .argument('<path>', 'a file path (it need not exist)')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (path: string, o: { json?: boolean }) => policyCheck(edge, dir(), path, o));
  program
    .command('gc')
    .description("apply the history retention policy now, remove fettle's orphaned files, and pack its objects")
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
    .addOption(json)
    .action(async (o: { json?: boolean }) => status(edge, dir(), o));
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
  const agent = new Option('--agent <name>', 'the coding agent').choices([...INSTALL_AGENTS]).default('claude');
  program
    .command('install')
    .description("register fettle's hooks in a coding agent's settings (Claude Code's unless --agent)")
    .addOption(agent)
    .addOption(scope)
    .option('--read', 'also serve large text Reads (Claude Code; a hook on every Read; off by default)')
    .option('--no-bash', 'do not record what Bash commands change (Claude Code; recorded by default)')
    .option('--resident', 'hooks answered by a resident server (`fettle serve`; Claude Code): no Node start per write')
    .addOption(json)
    .action(
      async (o: {
        scope: 'user' | 'project' | 'local';
        read?: boolean;
        bash: boolean;
        json?: boolean;
        agent: InstallAgent;
        resident?: boolean;
      }) => (o.resident ? installResidentCommand(edge, dir(), o.scope, o) : install(edge, dir(), o.scope, o)),
    );
  program
    .command('uninstall')
    .description("remove fettle's hooks from a coding agent's settings (Claude Code's unless --agent)")
    .addOption(agent)
    .addOption(scope)
    .addOption(json)
    .action(async (o: { scope: 'user' | 'project' | 'local'; json?: boolean; agent: InstallAgent }) =>
      uninstall(edge, dir(), o.scope, o),
    );
  program
    .command('serve')
    .description('the resident hook server (`fettle install --resident`); alone, runs it in the foreground')
    .option('--start', 'start it in the background unless it runs')
    .option('--stop', 'stop it (calls in flight finish first)')
    .option('--restart', 'stop it, then start it')
    .option('--status', 'whether it runs, and whether this shell exports its token')
    .option('--reset-token', 'make a new token (sessions started before are refused until restarted)')
    .addOption(new Option('--guard', 'resident PreToolUse hook, when the server is not running').hideHelp())
    .addOption(new Option('--session-start', 'resident SessionStart hook').hideHelp())
    .addOption(json)
    .action(async (o: ServeOptions) => setExit(await serveCommand(edge, o)));
  program
    .command('demo')
    .description('run the whole protocol in a throwaway repository and show what happens')
    .action(async () => setExit(await demo(edge)));
  return program;
};

let signalsHandled = false;

export const main = async (
  argv: string[],
  edge: Edge = { cwd: process.cwd(), env: process.env, io: defaultIo() },
): Promise<number> => {
  let code: number = EXIT.ok;
  const program = buildProgram(edge, (c) => (code = c), argv);
  try {
    armFailpoints(edge.env.FETTLE_FAILPOINTS);
    if (!signalsHandled) cleanUpOnSignals();
    signalsHandled = true;
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      code = error.exitCode === 0 ? EXIT.ok : EXIT.usage; // --help and --version exit 0
    } else {
      const e = toFettleError(error);
      // The commands a message names run as printed, from the caller's shell.
      const dir = program.opts<{ C?: string }>().C;
      const message = spelled(edge, dir, e.message);
      const hint = e.hint === undefined ? undefined : spelled(edge, dir, e.hint);
      if (argv.includes('--json')) edge.io.out(JSON.stringify({ error: { code: e.code, message, hint } }));
      edge.io.err(`fettle: ${message}${hint ? `\n${hint}` : ''}`);
      if (edge.env.FETTLE_DEBUG && error instanceof Error) edge.io.err(String(error.stack));
      code = exitCodeFor(e);
    }
  }
  process.exitCode = code;
  return code;
};
