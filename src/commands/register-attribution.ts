// The commands that say who wrote what (blame, trace, and the git hooks' own `git-hook`), registered after
// register-changes.ts's commands, before register-upkeep.ts's (which takes install --git-hooks).
import { type Command, Option } from 'commander';
import { blame } from './blame';
import type { Edge } from './edge';
import { gitHookCommand } from './git-hook';
import { traceExport } from './trace';

export const registerAttributionCommands = (program: Command, edge: Edge, dir: () => string | undefined): void => {
  program
    .command('blame')
    .description('who wrote each line of a file: an agent (session, turn, tool, change), a person, or a commit')
    .argument('<file>', 'a file of the work tree')
    .addOption(new Option('--json', 'print JSON for scripts'))
    .action(async (file: string, o: { json?: boolean }) => blame(edge, dir(), file, o));
  const trace = program.command('trace').description('attribution in the Agent Trace format (agent-trace.dev)');
  trace
    .command('export')
    .description('a commit (HEAD by default), or each commit of a range, as Agent Trace records: one JSON per line')
    .argument('[revision]', 'a commit, or a range such as main..HEAD')
    .action(async (revision: string | undefined) => traceExport(edge, dir(), revision));
  program
    .command('git-hook', { hidden: true })
    .description('what the git hooks of `fettle install --git-hooks` run')
    .argument('<name>', 'post-commit or post-rewrite')
    .argument('[args...]', "git's arguments to the hook (post-rewrite: amend or rebase)")
    .action(async (name: string) => gitHookCommand(edge, dir(), name));
};
