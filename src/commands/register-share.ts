// The commands that share agent sessions with a team through a git remote, registered on the program after the
// change commands (index.ts): share, fetch, pr.
import { type Command, Option } from 'commander';
import type { Edge } from './edge';
import { fetchCommand } from './fetch';
import { prCommand, type PrOptions } from './pr';
import { shareCommand, type ShareOptions } from './share';

export const registerShareCommands = (
  program: Command,
  edge: Edge,
  dir: () => string | undefined,
  setExit: (code: number) => void,
): void => {
  const json = new Option('--json', 'print JSON for scripts');
  program
    .command('share')
    .description('push agent sessions to a remote under your name (refs/fettle/shared/<you>/), never a branch')
    .argument('[remote]', "a remote's name, a URL or a path", 'origin')
    .option('--session <id>', 'the session to share (default: the current one)')
    .option('--all', 'every session that landed a change here')
    .option('--with-prompts', "share each turn's prompt too, secrets redacted (kept local otherwise)")
    .option('--as <name>', 'the name to share under (default: your git email)')
    .addOption(json)
    .action(async (remote: string, o: ShareOptions) => shareCommand(edge, dir(), remote, o));
  program
    .command('fetch')
    .description("bring teammates' shared sessions into refs/fettle/remotes/<remote>/ to log, show and review")
    .argument('[remote]', "a remote's name, a URL or a path", 'origin')
    .addOption(json)
    .action(async (remote: string, o: { json?: boolean }) => fetchCommand(edge, dir(), remote, o));
  program
    .command('pr')
    .description('push an agent session as a branch on the commit it started from, and open a pull request (gh)')
    .argument('[remote]', "a remote's name, a URL or a path", 'origin')
    .requiredOption('--session <id>', 'the session (its own, or a fetched one: <remote>/<who>/<session>)')
    .option('--with-prompts', "list each turn's prompt in the description, secrets redacted")
    .option('--branch <name>', 'the branch to push (default: fettle/sessions/<session>)')
    .option('--base <head|disk>', 'where the changes were made on uncommitted bytes: push them alone, or with those')
    .option('--force', 'move the branch when it exists on the remote')
    .addOption(json)
    .action(async (remote: string, o: PrOptions) => setExit(await prCommand(edge, dir(), remote, o)));
};
