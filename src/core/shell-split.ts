// A Bash command line split into its simple commands and their words, for bash-command.ts to judge: a single pass
// over the text, no process. Anything the shell would expand or that could write on its own (a redirection to a
// file, `$`, backticks, subshells, here-documents, background jobs) stops the split with Unsafe.

export interface Word {
  text: string;
  /** an unquoted glob character (`*`, `?`, `[`): the shell may expand it into any name, an option included */
  globbed: boolean;
}

export interface Simple {
  words: Word[];
}

/** A reason the text cannot be read-only, found while splitting it. */
export class Unsafe extends Error {}

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
export const splitCommandLine = (line: string): Simple[] => {
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
