// Which Bash commands cannot change a file, decided from the command line alone: no process, no git. Every Bash
// call pays this, so it is a single pass over the text. It is conservative by construction: a command is
// read-only only when every simple command in it is a known reader with arguments that cannot make it write
// (`sort -o`, `find -delete`, `git diff --output`), with no redirection other than to /dev/null or between
// descriptors, and nothing the shell would expand into something else (`$`, backticks, globs on commands whose
// options write, braces, subshells, here-documents, background jobs, assignments). Anything else is scanned.
// fettle's own commands (`fettle confirm`, `fettle rollback`, …) record what they write themselves. The split into
// simple commands is shell-split.ts; the readers and the options that make them write are bash-readers.ts.
import { READERS } from './bash-readers';
import { type Simple, splitCommandLine, Unsafe, type Word } from './shell-split';

export type CommandKind =
  /** nothing in it can change a file: no snapshot */
  | 'read-only'
  /** fettle's own commands (and readers around them): they record their own writes */
  | 'fettle'
  /** anything else: the work tree is scanned before and after it */
  | 'scan';

const FETTLE_READS = new Set([
  'confirm',
  'discard',
  'rollback',
  'write',
  'status',
  'log',
  'show',
  'review',
  'info',
  'doctor',
  'gc',
  'read',
  'test',
  'help',
  '--help',
  '-h',
  '--version',
  '-V',
]);

const base = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * fettle itself, as it spells itself (`fettle`, a plugin's `…/bin/fettle`, `node …/dist/cli.js`), with a
 * subcommand that records its own writes. `install`, `uninstall` and `demo` write files fettle does not record.
 */
const isFettle = (words: Word[]): boolean => {
  const [first, second] = words;
  if (!first || first.globbed) return false;
  let at = 1;
  if (base(first.text) !== 'fettle') {
    const node = base(first.text);
    if (!(node === 'node' || node === 'nodejs') || !second || second.globbed) return false;
    if (!(second.text.endsWith('/dist/cli.js') || second.text.endsWith('/bin/fettle'))) return false;
    at = 2;
  }
  if (words[at]?.text === '-C') at += 2;
  const sub = words[at]?.text;
  return sub !== undefined && FETTLE_READS.has(sub);
};

const kindOf = (command: Simple): CommandKind => {
  const [name, ...args] = command.words;
  if (!name) return 'read-only';
  if (isFettle(command.words)) return 'fettle';
  if (name.globbed || /^[A-Za-z_][A-Za-z0-9_]*=/.test(name.text)) return 'scan'; // an assignment
  const check = Object.hasOwn(READERS, name.text) ? READERS[name.text] : undefined;
  return check?.(args) ? 'read-only' : 'scan';
};

/** What a Bash command line can do to the files, read from its text alone (see the file comment). */
export const classifyCommand = (command: string): CommandKind => {
  let commands: Simple[];
  try {
    commands = splitCommandLine(command);
  } catch (error) {
    if (error instanceof Unsafe) return 'scan';
    throw error;
  }
  let kind: CommandKind = 'read-only';
  for (const c of commands) {
    const k = kindOf(c);
    if (k === 'scan') return 'scan';
    if (k === 'fettle') kind = 'fettle';
  }
  return kind;
};

/** A command as one trailer line: at most this many characters, cut with an ellipsis. */
export const COMMAND_TRAILER_CHARS = 400;

/**
 * The command line for a record: one line (line breaks shown as `\n` by the trailer's JSON), capped, with control
 * characters that JSON would leave raw (and NUL, which ends a commit message) shown as `?`.
 */
export const commandForRecord = (raw: string): string => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing exactly those characters
  const command = raw.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u2028\u2029]/g, '?');
  const chars = [...command];
  return chars.length <= COMMAND_TRAILER_CHARS ? command : `${chars.slice(0, COMMAND_TRAILER_CHARS - 1).join('')}…`;
};
