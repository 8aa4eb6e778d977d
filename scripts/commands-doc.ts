// docs/COMMANDS.md holds each command's --help, as the built CLI prints it, and the table of error codes, as
// src/errors.ts defines them, between markers; this fills them in (`npm run docs`) or, with --check, fails when the
// file and the CLI disagree (test/docs.test.ts runs the same check).
//   <!-- help: status -->…<!-- /help -->    `fettle status --help` (`fettle` for the program's own; `policy check`
//                                            for a subcommand's)
//   <!-- errors -->…<!-- /errors -->         the codes, what each means, and the exit code it gives
//   <!-- exits -->…<!-- /exits -->           the commands' exit codes, what each means, and the error codes giving it
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, type ErrorCode, EXIT, EXIT_CODES, exitCodeFor, FettleError } from '../src/errors';

const ROOT = join(__dirname, '..');
export const COMMANDS_DOC = join(ROOT, 'docs', 'COMMANDS.md');
const CLI = join(ROOT, 'dist', 'cli.js');

/** `fettle [command [subcommand]] --help` as a person reads it on an 80-column terminal. */
export const helpOf = (command: string): string => {
  const args = command === 'fettle' ? ['--help'] : [...command.split(' '), '--help'];
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', COLUMNS: '80' },
  });
  if (r.status !== 0) throw new Error(`fettle ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout.trimEnd();
};

/** The subcommands `fettle --help` lists. */
export const subcommands = (): string[] => {
  const help = helpOf('fettle');
  return [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z]+)\b/gm)]
    .map((m) => m[1] as string)
    .filter((c) => c !== 'help');
};

export const errorTable = (): string =>
  [
    '| code | exit | meaning |',
    '|---|---|---|',
    ...(Object.entries(ERROR_CODES) as [ErrorCode, string][]).map(
      ([code, meaning]) => `| \`${code}\` | ${exitCodeFor(new FettleError(code, ''))} | ${meaning} |`,
    ),
  ].join('\n');

/** Every exit code of the commands, once: what it means and which error codes end a command with it. */
export const exitTable = (): string => {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  const giving = (exit: number): string =>
    exit === EXIT.failed
      ? 'every code not named in another row'
      : codes
          .filter((code) => exitCodeFor(new FettleError(code, '')) === exit)
          .map((code) => `\`${code}\``)
          .join(', ');
  return [
    '| exit | meaning | error codes |',
    '|---|---|---|',
    ...Object.values(EXIT_CODES).map(({ code, meaning }) => `| ${code} | ${meaning} | ${giving(code)} |`),
  ].join('\n');
};

/** The document with every marked block filled from the CLI and src/errors.ts. */
export const renderCommandsDoc = (doc: string): string =>
  doc
    .replace(
      /<!-- help: ([a-z]+(?: [a-z]+)?) -->\n[\s\S]*?<!-- \/help -->/g,
      (_, command: string) => `<!-- help: ${command} -->\n\`\`\`\n${helpOf(command)}\n\`\`\`\n<!-- /help -->`,
    )
    .replace(/<!-- errors -->\n[\s\S]*?<!-- \/errors -->/, () => `<!-- errors -->\n${errorTable()}\n<!-- /errors -->`)
    .replace(/<!-- exits -->\n[\s\S]*?<!-- \/exits -->/, () => `<!-- exits -->\n${exitTable()}\n<!-- /exits -->`);

if (require.main === module) {
  const doc = readFileSync(COMMANDS_DOC, 'utf8');
  const next = renderCommandsDoc(doc);
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/COMMANDS.md disagrees with the CLI: run `npm run docs` and commit the result.');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(COMMANDS_DOC, next);
    console.log('docs/COMMANDS.md updated from the CLI.');
  }
}
