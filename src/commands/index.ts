// The command-line program. Commands are thin: parse, call the protocol, print. Errors are rendered here,
// once: the message, the next command to run, and a stack only with FETTLE_DEBUG.
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError } from 'commander';
import { VERSION } from '../core/version';
import { EXIT, FettleError } from '../errors';
import { selfCommand, spellCommands } from '../io/self';
import { processCaller, type Edge, type Io } from './edge';
import { defaultIo, reportFailure, startCommand } from './process-io';
import { registerAttributionCommands } from './register-attribution';
import { registerChangeCommands } from './register-changes';
import { registerShareCommands } from './register-share';
import { registerUpkeepCommands } from './register-upkeep';

/** The process's io, and a question a person answers at the terminal (review --push). */
const processIo = (): Io => ({
  ...defaultIo(),
  ask: async (question) => {
    if (!process.stdin.isTTY) return null;
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    try {
      return await rl.question(question).catch(() => '');
    } finally {
      rl.close();
    }
  },
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
      "\nTools: fettle_write, fettle_write_files, fettle_confirm, fettle_discard, fettle_rollback, fettle_status,\nfettle_log, fettle_show, fettle_read, fettle_apply, fettle_feedback, fettle_rewind. An MCP client starts it; docs/AGENTS.md shows each agent's configuration.",
    )
    .action(() => {
      // The entry (cli.ts) runs `fettle [-C <dir>] mcp` in the MCP bundle; only odd spellings arrive here.
      throw new FettleError('E_USAGE', 'fettle mcp takes no arguments or options other than -C <dir>.', {
        hint: 'An MCP client starts it as `fettle mcp` and speaks JSON-RPC on its stdin and stdout.',
      });
    });
  registerChangeCommands(program, edge, dir, setExit, argv);
  registerShareCommands(program, edge, dir, setExit);
  registerAttributionCommands(program, edge, dir);
  registerUpkeepCommands(program, edge, dir, setExit);
  return program;
};

export const main = async (argv: string[], given?: Edge, loaders: Pick<Edge, 'page'> = {}): Promise<number> => {
  const own = (): Edge => {
    const io = processIo();
    return { cwd: process.cwd(), env: process.env, io, caller: processCaller(process.env, io.terminal) };
  };
  const edge: Edge = { ...(given ?? own()), ...loaders };
  let code: number = EXIT.ok;
  const program = buildProgram(edge, (c) => (code = c), argv);
  try {
    startCommand(edge);
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // --help and --version exit 0
    if (error instanceof CommanderError) code = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    else code = reportFailure(edge, argv, program.opts<{ C?: string }>().C, error);
  }
  process.exitCode = code;
  return code;
};
