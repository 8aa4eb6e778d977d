// The commands that make changes, decide on them and look at them, registered on the program in the order
// `fettle --help` lists them (index.ts registers this group after hook and mcp, before register-upkeep.ts).
import { type Command, Option } from 'commander';
import { applyCommand, type ApplyCommandOptions } from './apply';
import { confirmCommand } from './confirm';
import { discardCommand } from './discard';
import type { Edge } from './edge';
import { logCommand } from './log';
import { reviewCommand } from './review';
import { reviewInteractive } from './review-interactive';
import { reviewSessionCommand } from './review-session';
import type { RoomOptions } from './review-scope';
import { reviewWeb } from './review-web';
import { rewindCommand, type RewindOptions } from './rewind';
import { rollbackCommand, type RollbackOptions } from './rollback';
import { showCommand } from './show';
import { testCommand, type TestOptions } from './test';
import { write } from './write';

/** `argv`: the command line as given, for `test`, which needs to see where `--` was (commander drops it). */
export const registerChangeCommands = (
  program: Command,
  edge: Edge,
  dir: () => string | undefined,
  setExit: (code: number) => void,
  argv: readonly string[],
): void => {
  const json = new Option('--json', 'print JSON for scripts');
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
    .option('--hunks <list>', 'of one change, apply only these hunks (1,3 or 1-3,5); the others stay pending')
    .addOption(json)
    .action(
      async (
        ids: string[],
        o: {
          json?: boolean;
          session?: string;
          all?: boolean;
          expired?: boolean;
          withConflicts?: boolean;
          hunks?: string;
        },
      ) => confirmCommand(edge, dir(), ids, o),
    );
  program
    .command('discard')
    .description('drop staged changes, all or nothing (files are not touched)')
    .argument('[ids...]', 'change ids or changeset ids')
    .option('--session <id>', 'every pending or expired change of that agent session')
    .option('--all', 'every pending or expired change')
    .option('--hunks <list>', 'of one change, drop only these hunks (1,3 or 1-3,5); the others stay pending')
    .option('--reason <text>', 'why: delivered to the agent session that made the change')
    .addOption(json)
    .action(
      async (ids: string[], o: { json?: boolean; session?: string; all?: boolean; hunks?: string; reason?: string }) =>
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
    .option('--hunks <list>', 'of one change, undo only these hunks (1,3 or 1-3,5), merged with the file as it is')
    .addOption(json)
    .action(async (targets: string[], o: RollbackOptions) => setExit(await rollbackCommand(edge, dir(), targets, o)));
  program
    .command('rewind')
    .description("an agent session's files and conversation back to where a turn began (the conversation as a fork)")
    .option('--turn <n>', 'the turn to go back to the start of (1 for the first prompt)')
    .option('--session <id>', 'the agent session (default: the current one)')
    .option('--files', 'only the files: what the session changed since the turn began, as one rollback')
    .option('--conversation', "only the conversation: print the agent's own command that forks it there")
    .option('--both', 'the files, and the conversation where the agent allows it (the default)')
    .option('--dry-run', 'list the files that would change and where the conversation would resume, changing nothing')
    .option('--force', 'overwrite edits made after fettle wrote a file (they are snapshotted first)')
    .addOption(json)
    .action(async (o: RewindOptions) => setExit(await rewindCommand(edge, dir(), o)));
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
    .option(
      '--base <head|disk>',
      'with --push, for changes made on uncommitted bytes: push them alone on the committed files (head), or with those bytes (disk)',
    )
    .option('--web', 'review in your browser: keep, discard or comment on each hunk, then apply (127.0.0.1 only)')
    .option('-i, --interactive', 'review here, hunk by hunk: keep, discard, leave pending or comment, then apply')
    .option('--turn <n>', 'with --web or -i: the session (--session, else the current one) from turn <n> on')
    .option('--all', 'with --web or -i: every pending change')
    .option('--no-open', 'with --web: print the URL, do not open a browser')
    .addOption(json)
    .action(
      async (
        change: string | undefined,
        o: {
          json?: boolean;
          push?: string | boolean;
          branch?: string;
          session?: string;
          force?: boolean;
          base?: string;
        } & RoomOptions,
      ) =>
        o.web
          ? reviewWeb(edge, dir(), change, o)
          : o.interactive
            ? reviewInteractive(edge, dir(), change, o)
            : o.session !== undefined
              ? reviewSessionCommand(edge, dir(), change, { ...o, session: o.session })
              : reviewCommand(edge, dir(), change, o),
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
};
