// `fettle status` and `fettle log`, which a person runs all day, in a bundle of their own: no commander, no other
// command, so a glance parses a sixth of what the full program does (docs/PERFORMANCE.md, case 7); and
// `fettle git-hook`, which the git hooks of `install --git-hooks` run on every commit (case `commit`). What it does not
// read plainly (help, an option it does not know, `--session=<id>`) goes to the full program, which says it as
// for any command.
import { processCaller } from './edge';
import { gitHookCommand } from './git-hook';
import { logCommand } from './log';
import { defaultIo, reportFailure, startCommand } from './process-io';
import { status } from './status';

type Glance =
  | { command: 'status'; json: boolean }
  | { command: 'git-hook'; name: string; pending: boolean }
  | {
      command: 'log';
      json: boolean;
      path?: string | undefined;
      session?: string | undefined;
      agent?: string | undefined;
    };

/** The glance the arguments (after `-C <dir>`) ask for, or null when the full program is to read them. */
export const glanceOf = (own: readonly string[]): Glance | null => {
  const [command, ...rest] = own;
  // git's own arguments to the hook follow its name (post-rewrite: amend or rebase)
  if (command === 'git-hook' && rest[0] !== undefined && !rest[0].startsWith('-'))
    return { command, name: rest[0], pending: rest[0] === 'post-commit' && rest[1] === '--pending' };
  if (command === 'status') return rest.every((a) => a === '--json') ? { command, json: rest.length > 0 } : null;
  if (command !== 'log') return null;
  const log: Glance = { command, json: false };
  for (let n = 0; n < rest.length; n++) {
    const arg = rest[n] as string;
    const value = rest[n + 1];
    if (arg === '--json') log.json = true;
    else if ((arg === '--session' || arg === '--agent') && value !== undefined && !value.startsWith('-')) {
      log[arg === '--session' ? 'session' : 'agent'] = value;
      n++;
    } else if (!arg.startsWith('-') && log.path === undefined) log.path = arg;
    else return null;
  }
  return log;
};

/** Runs `status` or `log`; anything else, `full` runs (the full program's main). Returns the exit code. */
export const main = async (argv: string[], full: () => (argv: string[]) => Promise<number>): Promise<number> => {
  const dir = argv[0] === '-C' ? argv[1] : undefined;
  const glance = glanceOf(dir === undefined ? argv : argv.slice(2));
  if (glance === null) return full()(argv);
  // who runs it is asked only when a command decides a change: a glance never does, so it is never read
  const io = defaultIo();
  const edge = { cwd: process.cwd(), env: process.env, io, caller: processCaller(process.env, io.terminal) };
  let code = 0;
  try {
    startCommand(edge);
    if (glance.command === 'status') await status(edge, dir, glance);
    else if (glance.command === 'git-hook') await gitHookCommand(edge, dir, glance.name, glance.pending);
    else await logCommand(edge, dir, glance.path, glance);
  } catch (error) {
    code = reportFailure(edge, argv, dir, error);
  }
  process.exitCode = code;
  return code;
};
