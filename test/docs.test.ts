// The docs and the CLI agree: docs/COMMANDS.md holds each command's current --help and the error codes of
// src/errors.ts; every fettle command the README, COMMANDS.md and the pages the README links show names a real
// command and real options; the README's install route is the one test/package.test.ts runs on a clean machine.
// Tier: slow, many end-to-end scenarios through the built CLI, each in a fresh repository (scripts/test-tiers.mjs).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMANDS_DOC, errorTable, exitTable, helpOf, renderCommandsDoc, subcommands } from '../scripts/commands-doc';
import { ERROR_CODES } from '../src/errors';
import { shellWords } from '../src/io/self';

const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const COMMANDS = readFileSync(COMMANDS_DOC, 'utf8');

test('docs/COMMANDS.md holds the help every command prints now, and the error codes src/errors.ts has (npm run docs)', () => {
  assert.equal(renderCommandsDoc(COMMANDS), COMMANDS, 'run `npm run docs` and commit docs/COMMANDS.md');
  const documented = [...COMMANDS.matchAll(/<!-- help: ([a-z]+(?: [a-z]+)?) -->/g)].map((m) => m[1] as string);
  const commands = documented.filter((c) => !c.includes(' '));
  assert.deepEqual(commands.sort(), ['fettle', ...subcommands()].sort(), 'one help block per command');
  assert.ok(documented.includes('policy check'), "and one for `fettle policy check`, the policy command's own");
  assert.ok(COMMANDS.includes(errorTable()));
  assert.ok(COMMANDS.includes(exitTable()), 'and the one table of exit codes');
});

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });

test('every error code in the table is one fettle raises', () => {
  const code = sources(join(ROOT, 'src'))
    .filter((f) => !f.endsWith(join('src', 'errors.ts')))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  for (const name of Object.keys(ERROR_CODES)) assert.ok(code.includes(`'${name}'`), `${name} is never raised`);
  const rows = errorTable().split('\n').slice(2);
  assert.equal(rows.length, Object.keys(ERROR_CODES).length);
});

/** The fettle commands a markdown text shows: inline code, `$ fettle …` lines, and lines of ```sh blocks. */
const shownCommands = (markdown: string): string[] => {
  const found: string[] = [];
  const fences = markdown.split(/^```/m);
  fences.forEach((part, n) => {
    if (n % 2 === 1) {
      const shell = /^(sh|bash)\n/.test(part);
      for (const line of part.split('\n').slice(1)) {
        const command = line.startsWith('$ ') ? line.slice(2) : shell ? line : '';
        const at = command.search(/(^|\| )fettle /);
        // To the end of the fettle command: a comment, or the next command after ; && or |.
        if (at >= 0) found.push(command.slice(command.indexOf('fettle ', at)).split(/\s+#|\s*(?:;|&&|\|)/)[0] ?? '');
        for (const m of line.matchAll(/`(fettle [^`]+)`/g)) found.push(m[1] as string);
      }
    } else for (const m of part.matchAll(/`(fettle [^`]+)`/g)) found.push(m[1] as string);
  });
  return found;
};

/** Each page the README links, with the fewest commands it shows (fewer means the scan broke). */
const PAGES = {
  'AGENTS.md': 10,
  'SHELL.md': 3,
  'POLICY.md': 10,
  'CONTRACTS.md': 3,
  'GUARANTEES.md': 3,
  'RESIDENT.md': 3,
  'CONFIGURATION.md': 1,
  'ATTRIBUTION.md': 3,
};
for (const [name, text, least] of [
  ['README.md', README, 10],
  ['docs/COMMANDS.md', COMMANDS, 10],
  ...Object.entries(PAGES).map(
    ([page, n]) => [`docs/${page}`, readFileSync(join(ROOT, 'docs', page), 'utf8'), n] as const,
  ),
] as const) {
  test(`every fettle command ${name} shows is a real command with options it takes`, () => {
    const commands = new Set(subcommands());
    const helps = new Map<string, string>();
    const shown = shownCommands(text);
    assert.ok(shown.length >= least, `${shown.length} commands found: the scan is broken`);
    for (const line of shown) {
      const words = shellWords(line.replace(/[<>[\]|]/g, ' ').replace(/\.\.\./g, ''));
      const rest = words[1] === '-C' ? words.slice(3) : words.slice(1);
      const [command = ''] = rest;
      if (command.startsWith('-')) continue; // `fettle --help`, `fettle --version`
      assert.ok(commands.has(command), `${name}: \`${line}\` names no fettle command`);
      if (!helps.has(command)) helps.set(command, helpOf(command));
      // A command with subcommands (`policy check`): the options are the subcommand's.
      const sub = rest[1] ?? '';
      const nested = new RegExp(`^Commands:[\\s\\S]*^ {2}${sub}\\b`, 'm').test(helps.get(command) ?? '');
      const key = /^[a-z]+$/.test(sub) && nested ? `${command} ${sub}` : command;
      if (!helps.has(key)) helps.set(key, helpOf(key));
      for (const option of rest.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0] as string))
        assert.match(helps.get(key) ?? '', new RegExp(`\\s${option}\\b`), `${name}: \`${line}\`: no ${option}`);
    }
  });
}

test("the README's install is the route test/package.test.ts runs from a clone on a clean machine", () => {
  const install = README.slice(README.indexOf('## Install'));
  const block = /```sh\n([\s\S]*?)```/.exec(install)?.[1] ?? '';
  const steps = block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  assert.deepEqual(steps, [
    'git clone <this repository> fettle',
    'cd fettle',
    'npm install',
    'npm run build',
    'npm install -g .',
    'fettle install',
    'fettle demo',
  ]);
});

// The README is the landing page (what, install, the first minutes, a picture, where next); the contract lives in
// docs/. Its size was cut to this once, and each feature since added a paragraph: the bound keeps it a landing page.
test('the README stays a landing page: at most 300 lines', () => {
  const count = README.trimEnd().split('\n').length;
  assert.ok(count <= 300, `README.md has ${count} lines: move the detail to the docs/ page it belongs to`);
});
