// The commands bash-command.ts knows to be readers, and for each, what its arguments must not hold for it to stay
// one: the options that make it write (`sort -o`, `find -delete`, `git diff --output`) and globs where the shell
// could expand a name into such an option. Bare names only: `./ls` may be anything.
import type { Word } from './shell-split';

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
export const READERS: Record<string, Check> = {
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
