// Reproducing what Claude Code's Edit tool does to a file's text (already decoded, CRLF turned into LF: see
// text-file.ts), as its own code does it (docs/HOOK.md, "Byte for byte"):
// - find old_string: exactly; else with curly quotes read as straight ones (the file's own characters are then
//   replaced); else with `\uXXXX` escapes decoded; else with the file's `\uXXXX` escapes read as characters;
// - when the match was not exact, new_string follows the file: straight quotes become its curly ones, characters
//   become escapes (or escapes characters) the way old_string's did;
// - replace the first match (every one with replace_all), without `$` patterns; an empty new_string with an
//   old_string that does not end in a newline deletes old_string + "\n" where that occurs (the whole line goes).
// Anything the tool would refuse is "unsure": fettle then lets the tool run and report for itself.

export interface EditOp {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

export type EditResult = { ok: true; text: string } | { ok: false; why: string };

const LEFT_SINGLE = '\u2018';
const RIGHT_SINGLE = '\u2019';
const LEFT_DOUBLE = '\u201C';
const RIGHT_DOUBLE = '\u201D';
const ESCAPE = /\\u[0-9a-fA-F]{4}/;
const NON_ASCII = /[\u0080-\uffff]/;

const straightQuotes = (s: string): string =>
  s
    .replaceAll(LEFT_SINGLE, "'")
    .replaceAll(RIGHT_SINGLE, "'")
    .replaceAll(LEFT_DOUBLE, '"')
    .replaceAll(RIGHT_DOUBLE, '"');

/** `\uXXXX` escapes decoded; an escaped backslash (`\\u...`) is left alone. */
const decodeEscapes = (s: string): string =>
  s.replace(/(\\\\)|\\u([0-9a-fA-F]{4})/g, (all, backslashes: string | undefined, hex: string) =>
    backslashes !== undefined ? all : String.fromCharCode(Number.parseInt(hex, 16)),
  );

/** Length of `s` with every non-ASCII character written as a 6-character escape. */
const escapedLength = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 128) n++;
  return s.length + 5 * n;
};

const backslashesBefore = (s: string, at: number): number => {
  let n = 0;
  while (s[at - 1 - n] === '\\') n++;
  return n;
};

const regexpEscape = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Where the file spells old_string's non-ASCII characters as `\uXXXX` escapes (either case): that text. */
const escapedMatch = (old: string, text: string): string | null => {
  if (backslashesBefore(old, old.length) % 2 === 1) return null;
  const escapeAt = old[0] === '\\' ? [0] : [];
  let pattern = '';
  let offset = 0;
  for (let i = 0; i < old.length; i++) {
    const code = old.charCodeAt(i);
    if (code >= 128) {
      escapeAt.push(offset);
      offset += 6;
      pattern += '\\\\u';
      for (const h of code.toString(16).padStart(4, '0')) pattern += h >= 'a' ? `[${h}${h.toUpperCase()}]` : h;
    } else {
      offset += 1;
      pattern += regexpEscape(old[i] as string);
    }
  }
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'g');
  } catch {
    return null;
  }
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const at = m.index;
    if (escapeAt.every((e) => backslashesBefore(text, at + e) % 2 === 0))
      return text.indexOf(m[0]) === at ? m[0] : null;
    re.lastIndex = at + 1;
  }
  return null;
};

/** The text in the file that old_string stands for, or null when the tool would find none. */
export const findActual = (text: string, old: string): string | null => {
  if (text.includes(old)) return old;
  const at = straightQuotes(text).indexOf(straightQuotes(old));
  if (at !== -1) return text.substring(at, at + old.length);
  if (ESCAPE.test(old)) {
    const decoded = decodeEscapes(old);
    if (decoded !== old && text.includes(decoded)) return decoded;
  }
  if (NON_ASCII.test(old)) {
    if (escapedLength(old) > text.length || !text.includes('\\u')) return null;
    return escapedMatch(old, text);
  }
  return null;
};

/** A double quote opens after a space, an opening bracket, a dash or at the start; else it closes. */
const opens = (chars: string[], i: number): boolean => {
  if (i === 0) return true;
  return [' ', '\t', '\n', '\r', '(', '[', '{', '\u2014', '\u2013'].includes(chars[i - 1] as string);
};

const curlDoubles = (s: string): string => {
  const chars = [...s];
  return chars.map((c, i) => (c === '"' ? (opens(chars, i) ? LEFT_DOUBLE : RIGHT_DOUBLE) : c)).join('');
};

const LETTER = /\p{L}/u;
const curlSingles = (s: string): string => {
  const chars = [...s];
  return chars
    .map((c, i) => {
      if (c !== "'") return c;
      const before = i > 0 ? chars[i - 1] : undefined;
      const after = i < chars.length - 1 ? chars[i + 1] : undefined;
      // An apostrophe inside a word is a right single quote.
      if (before !== undefined && LETTER.test(before) && after !== undefined && LETTER.test(after)) return RIGHT_SINGLE;
      return opens(chars, i) ? LEFT_SINGLE : RIGHT_SINGLE;
    })
    .join('');
};

/** new_string turned into the file's style when old_string matched only after normalising. */
export const adaptNew = (old: string, actual: string, next: string): string => {
  let result = next;
  if (old !== actual) {
    const doubles = actual.includes(LEFT_DOUBLE) || actual.includes(RIGHT_DOUBLE);
    const singles = actual.includes(LEFT_SINGLE) || actual.includes(RIGHT_SINGLE);
    if (doubles) result = curlDoubles(result);
    if (singles) result = curlSingles(result);
  }
  return escapeLike(old, actual, result);
};

/** The escape side of adaptNew: new_string spelled as old_string's match was (escapes or characters). */
const escapeLike = (old: string, actual: string, next: string): string => {
  if (old === actual) return next;
  if (NON_ASCII.test(old) && escapedLength(old) === actual.length && escapedMatch(old, actual) !== null) {
    const hexOf = new Map<number, string>();
    let upper = 0;
    let lower = 0;
    for (let i = 0, j = 0; i < old.length; i++) {
      const code = old.charCodeAt(i);
      if (code >= 128) {
        const hex = actual.slice(j + 2, j + 6);
        hexOf.set(code, hex);
        for (const h of hex)
          if (h >= 'a' && h <= 'f') lower++;
          else if (h >= 'A' && h <= 'F') upper++;
        j += 6;
      } else j += 1;
    }
    return next.replace(/[\u0080-\uffff]/g, (c) => {
      const code = c.charCodeAt(0);
      const known = hexOf.get(code);
      if (known !== undefined) return `\\u${known}`;
      const hex = code.toString(16).padStart(4, '0');
      return `\\u${upper > lower ? hex.toUpperCase() : hex}`;
    });
  }
  if (ESCAPE.test(old) && decodeEscapes(old) === actual) return decodeEscapes(next);
  return next;
};

/** A second occurrence after the first (not overlapping it). */
const occursTwice = (text: string, needle: string): boolean => {
  const first = text.indexOf(needle);
  return first !== -1 && text.indexOf(needle, first + needle.length) !== -1;
};

const countOf = (text: string, needle: string): number => text.split(needle).length - 1;

/** Replaces the first (or every) occurrence, with no `$` patterns, deleting the line of an emptied match. */
const replace = (text: string, actual: string, next: string, all: boolean): string => {
  const line = next === '' && !actual.endsWith('\n') ? `${actual}\n` : undefined;
  const needle = line !== undefined && text.includes(line) ? line : actual;
  if (all) return text.split(needle).join(next);
  const at = text.indexOf(needle);
  return at === -1 ? text : text.slice(0, at) + next + text.slice(at + needle.length);
};

/** One edit, as the tool resolves and applies it. `previousNews` are the new_strings of earlier edits. */
const applyResolved = (text: string, op: EditOp, previousNews: string[]): EditResult => {
  const trimmed = op.oldString.replace(/\n+$/, '');
  if (trimmed !== '' && previousNews.some((n) => n.includes(trimmed)))
    return { ok: false, why: 'old_string is part of the new_string of an earlier edit' };
  if (!op.replaceAll && op.oldString !== '' && occursTwice(text, op.oldString))
    return { ok: false, why: `old_string matches ${countOf(text, op.oldString)} places and replace_all is not set` };
  const next = op.oldString === '' ? op.newString : replace(text, op.oldString, op.newString, op.replaceAll);
  return next === text ? { ok: false, why: 'the edit changes nothing' } : { ok: true, text: next };
};

/** old_string and new_string as the tool will apply them to `text`: the file's own spelling of the match. */
const resolve = (text: string, op: EditOp): EditOp | string => {
  if (op.oldString === op.newString) return 'old_string and new_string are the same';
  if (op.oldString === '') {
    // Allowed only where the file holds nothing but whitespace: new_string replaces it all, BOM kept.
    if (text.trim() !== '') return 'old_string is empty and the file is not';
    const bom = text.startsWith('\uFEFF') && op.newString !== '' && !op.newString.startsWith('\uFEFF');
    return { ...op, newString: bom ? `\uFEFF${op.newString}` : op.newString };
  }
  const actual = findActual(text, op.oldString);
  if (actual === null) return 'old_string was not found';
  return { ...op, oldString: actual, newString: adaptNew(op.oldString, actual, op.newString) };
};

/** One edit on the file's text, as the Edit tool does it. */
export const applyEdit = (text: string, op: EditOp): EditResult => applyEdits(text, [op]);

/**
 * Edits in order, all or nothing, each applied to the previous result (MultiEdit; the client's own multi-edit
 * code): an edit whose old_string is part of an earlier edit's new_string is refused, as the tool refuses it.
 */
export const applyEdits = (text: string, ops: EditOp[]): EditResult => {
  if (text === '' && ops.length === 1 && ops[0]?.oldString === '' && ops[0].newString === '')
    return { ok: false, why: 'the edit changes nothing' };
  let current = text;
  const news: string[] = [];
  for (const [n, op] of ops.entries()) {
    const resolved = resolve(current, op);
    const result =
      typeof resolved === 'string' ? ({ ok: false, why: resolved } as const) : applyResolved(current, resolved, news);
    if (!result.ok) return ops.length > 1 ? { ok: false, why: `edit ${n + 1}: ${result.why}` } : result;
    current = result.text;
    news.push(typeof resolved === 'string' ? op.newString : resolved.newString);
  }
  return current === text ? { ok: false, why: 'the edits change nothing' } : { ok: true, text: current };
};
