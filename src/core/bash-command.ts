// Which Bash commands cannot change a file, decided from the command line alone: no process, no git. Every Bash
// call pays this, so it is a single pass over the text. It is conservative by construction: a command is
// read-only only when every simple command in it is a known reader with arguments that cannot make it write
// (`sort -o`, `find -delete`, `git diff --output`), with no redirection other than to /dev/null or between
// descriptors, and nothing the shell would expand into something else (`$`, backticks, globs on commands whose
// options write, braces, subshells, here-documents, background jobs, assignments). Anything else is scanned.
// fettle's own commands (`fettle confirm`, `fettle rollback`, …) record what they write themselves.

export type CommandKind =
  /** nothing in it can change a file: no snapshot */
  | 'read-only'
  /** fettle's own commands (and readers around them): they record their own writes */
  | 'fettle'
  /** anything else: the work tree is scanned before and after it */
  | 'scan';

interface Word {
  text: string;
  /** an unquoted glob character (`*`, `?`, `[`): the shell may expand it into any name, an option included */
  globbed: boolean;
}

interface Simple {
  words: Word[];
}

/** A reason the text cannot be read-only, found while splitting it. */
class Unsafe extends Error {}

const unsafe = (): never => {
  throw new Unsafe();
};

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t';

/**
 * The simple commands of a command line, split at `;`, `&&`, `||`, `|`, `|&` and newlines. Throws Unsafe on
 * anything that could write or expand: a redirection other than to /dev/null or a descriptor, `$`, a backtick,
 * an unquoted `(`, `)`, `{`, `}`, `!`, a lone `&`, a here-document.
 */
const split = (line: string): Simple[] => {
  const commands: Simple[] = [];
  let words: Word[] = [];
  let word: Word | null = null;
  /** the next word is the target of an output redirection */
  let redirect: 'out' | 'in' | null = null;
  const endWord = () => {
    if (word === null) return;
    if (redirect === 'out') {
      if (word.text !== '/dev/null' || word.globbed) unsafe();
    } else if (redirect === null) words.push(word);
    redirect = null;
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (redirect !== null) unsafe(); // a redirection with no target
    if (words.length > 0) commands.push({ words });
    words = [];
  };
  const add = (text: string, globbed = false) => {
    word ??= { text: '', globbed: false };
    word.text += text;
    word.globbed ||= globbed;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === '\\') {
      if (line[i + 1] === '\n')
        i++; // a line continuation
      else add(line[++i] ?? '');
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) unsafe();
      add(line.slice(i + 1, end));
      i = end;
    } else if (c === '"') {
      word ??= { text: '', globbed: false };
      for (i++; i < line.length && line[i] !== '"'; i++) {
        const d = line[i] as string;
        if (d === '$' || d === '`') unsafe();
        if (d === '\\' && /["\\$`\n]/.test(line[i + 1] ?? '')) i++;
        add(line[i] as string);
      }
      if (i >= line.length) unsafe();
    } else if (isSpace(c)) endWord();
    else if (c === '\n' || c === '\r' || c === ';') endCommand();
    else if (c === '|') {
      if (line[i + 1] === '|' || line[i + 1] === '&') i++;
      endCommand();
    } else if (c === '&') {
      if (line[i + 1] === '&') {
        i++;
        endCommand();
      } else if (line[i + 1] === '>') {
        // `&>file` / `&>>file`: both streams to a file
        endWord();
        i += line[i + 2] === '>' ? 2 : 1;
        redirect = 'out';
      } else unsafe(); // a background job: it goes on changing files after the call returns
    } else if (c === '>' || c === '<') {
      // A descriptor number right before it belongs to the redirection, not to a word.
      if (word !== null && /^\d+$/.test(word.text) && !word.globbed) word = null;
      else endWord();
      if (c === '<') {
        if (line[i + 1] === '<' || line[i + 1] === '>' || line[i + 1] === '(') unsafe(); // here-docs, <>, <(…)
        redirect = 'in';
        continue;
      }
      if (line[i + 1] === '(') unsafe(); // >(…)
      if (line[i + 1] === '>' || line[i + 1] === '|') i++;
      if (line[i + 1] === '&') {
        // `>&2`, `2>&1`, `>&-`: between descriptors
        i++;
        const target = line[i + 1];
        if (!(isDigit(target) || target === '-')) unsafe();
        while (isDigit(line[i + 1]) || line[i + 1] === '-') i++;
        continue;
      }
      redirect = 'out';
    } else if (c === '#' && word === null) {
      const end = line.indexOf('\n', i);
      i = end < 0 ? line.length : end - 1;
    } else if ('$`(){}!'.includes(c)) unsafe();
    else add(c, c === '*' || c === '?' || c === '[');
  }
  endCommand();
  return commands;
};

type Check = (args: Word[]) => boolean;

const any: Check = () => true;
const none: Check = (args) => args.length === 0;
const noGlob =
  (check: Check): Check =>
  (args) =>
    args.every((a) => !a.globbed) && check(args);
const positional = (args: Word[]): Word[] => args.filter((a) => !a.text.startsWith('-') || a.text === '-');

/** Short-option letters of `-abc` clusters, and long options, that make a command write. */
const without =
  (short: string, long: string[]): Check =>
  (args) =>
    args.every((a) => {
      if (a.text === '--') return true;
      if (a.text.startsWith('--')) return !long.some((l) => a.text === l || a.text.startsWith(`${l}=`));
      return !a.text.startsWith('-') || ![...a.text.slice(1)].some((ch) => short.includes(ch));
    });

const FIND_WRITES = ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'];

const git: Check = (args) => {
  let at = 0;
  // Global options that do not change what runs: -C <dir>, --no-pager.
  while (at < args.length) {
    const a = (args[at] as Word).text;
    if (a === '-C') at += 2;
    else if (a === '--no-pager' || a === '-P') at++;
    else break;
  }
  const sub = args[at]?.text;
  const rest = args.slice(at + 1);
  if (sub === undefined || args.some((a) => a.globbed)) return false;
  // --output writes a file from log, show and diff; grep -O runs a program on the files found.
  if (rest.some((a) => a.text.startsWith('--output') || a.text.startsWith('--open-files-in-pager'))) return false;
  const flagsOnly = (allowed: string[]) => rest.every((a) => allowed.includes(a.text));
  switch (sub) {
    case 'status':
    case 'log':
    case 'diff':
    case 'show':
    case 'rev-parse':
    case 'ls-files':
    case 'ls-tree':
    case 'cat-file':
    case 'blame':
    case 'describe':
    case 'shortlog':
    case 'whatchanged':
    case 'show-ref':
    case 'for-each-ref':
    case 'rev-list':
    case 'merge-base':
    case 'version':
      return true;
    case 'grep':
      return without('O', ['--open-files-in-pager'])(rest);
    case 'branch':
      return flagsOnly(['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--verbose', '--show-current']);
    case 'remote':
      return flagsOnly(['-v', '--verbose']);
    case 'tag':
      return flagsOnly(['-l', '--list']);
    case 'config':
      return ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(rest[0]?.text ?? '');
    case 'stash':
    case 'worktree':
      return rest[0]?.text === 'list';
    case 'reflog':
      return rest.length === 0 || rest[0]?.text === 'show';
    default:
      return false;
  }
};

/** Known readers, and what their arguments must not hold. Bare names only: `./ls` may be anything. */
const READERS: Record<string, Check> = {
  ls: any,
  pwd: any,
  cd: any,
  cat: any,
  head: any,
  tail: any,
  wc: any,
  echo: any,
  printf: any,
  grep: any,
  egrep: any,
  fgrep: any,
  rg: noGlob(without('', ['--pre'])),
  find: noGlob((args) => !args.some((a) => FIND_WRITES.includes(a.text))),
  stat: any,
  du: any,
  df: any,
  basename: any,
  dirname: any,
  realpath: any,
  readlink: any,
  true: any,
  false: any,
  test: any,
  '[': any,
  whoami: none,
  id: any,
  uname: any,
  nproc: any,
  hostname: none,
  which: any,
  type: any,
  command: (args) => args[0]?.text === '-v' || args[0]?.text === '-V',
  // `date <digits>` sets the clock; only a format may follow
  date: noGlob((args) => without('s', ['--set'])(args) && positional(args).every((a) => a.text.startsWith('+'))),
  diff: any,
  cmp: any,
  sort: noGlob(without('o', ['--output'])),
  // `uniq in out` writes out
  uniq: noGlob((args) => positional(args).length <= 1),
  cut: any,
  tr: any,
  nl: any,
  od: any,
  xxd: noGlob((args) => without('r', ['-revert'])(args) && positional(args).length <= 1),
  md5sum: any,
  sha1sum: any,
  sha256sum: any,
  sha512sum: any,
  cksum: any,
  seq: any,
  sleep: any,
  printenv: any,
  env: none,
  jq: any,
  column: any,
  git,
};

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
    commands = split(command);
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
