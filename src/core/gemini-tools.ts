// Gemini CLI's file tools, `write_file` and `replace`, reproduced from the bytes on disk exactly as Gemini CLI
// 0.61 computes them (packages/core tools/write-file.ts, tools/edit.ts, utils/textUtils.ts), or reported as
// `unsure` where its result depends on what a hook cannot see (a model asked to correct the edit, a fuzzy match).
// Pure: the caller reads the file.
//
// What both tools do, byte for byte:
// - the file is read as UTF-8 (`fs.readFile(path, 'utf-8')`: a BOM stays as U+FEFF, invalid bytes become U+FFFD)
//   and written back as UTF-8;
// - a file that holds a CRLF anywhere is written with every line ending CRLF (`/\r?\n/g` → CRLF); any other
//   file, and a new one, as the text has them (fettle assumes a POSIX host: Gemini CLI uses the OS's EOL there).
// write_file: the content as given, unless Gemini would "unescape" it (it holds `\n`, `\"`, ... as two
// characters: then a model or a setting decides; unsure). JSON files are never unescaped.
// replace: only the exact strategy is reproduced (old_string found as is, once, or every time with
// allow_multiple); Gemini's flexible, regex and fuzzy matches, and its model-made corrections, are not.
import { isUtf8 } from 'node:buffer';
import type { Predicted } from './tool-call';

const unsure = (why: string): Predicted => ({ exact: false, why });

/** The escape sequences Gemini CLI's write_file rewrites (editCorrector.ts, unescapeStringForGeminiBug). */
const GEMINI_ESCAPES = /\\+(n|t|r|'|"|`|\\|\n)/;

const NEVER_UNESCAPED = new Set(['.json', '.ipynb', '.jsonc', '.json5']);

/** path.extname, lower-cased: from the last dot of the name, unless the name starts with it. */
const extension = (path: string): string => {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
};

/** CRLF everywhere when the file holds one CRLF (detectLineEnding), else the text as it is. */
const written = (text: string, old: string | null): Buffer =>
  Buffer.from(old?.includes('\r\n') ? text.replace(/\r?\n/g, '\r\n') : text, 'utf8');

export const predictWriteFile = (path: string, content: string, old: Buffer | null): Predicted => {
  if (!NEVER_UNESCAPED.has(extension(path)) && GEMINI_ESCAPES.test(content))
    return unsure('the content holds escape sequences Gemini CLI may rewrite before writing');
  // An empty existing file, like a new one, is written with the OS's line endings (`!isNewFile && originalContent`).
  const original = old && old.length > 0 ? old.toString('utf8') : null;
  return { exact: true, next: written(content, original) };
};

export interface ReplaceInput {
  oldString: string;
  newString: string;
  allowMultiple: boolean;
}

/** `str.replaceAll(old, new)` with `$` taken literally (textUtils.ts, safeLiteralReplace). */
const literalReplaceAll = (text: string, search: string, replacement: string): string =>
  text.split(search).join(replacement);

/** restoreTrailingNewline (edit.ts): the result ends in a newline exactly when the original did. */
const keepTrailingNewline = (original: string, text: string): string => {
  if (original.endsWith('\n') && !text.endsWith('\n')) return `${text}\n`;
  if (!original.endsWith('\n') && text.endsWith('\n')) return text.replace(/\n$/, '');
  return text;
};

export const predictReplace = (r: ReplaceInput, old: Buffer | null): Predicted => {
  if (old === null) {
    // An empty old_string creates the file with new_string as it is.
    return r.oldString === ''
      ? { exact: true, next: Buffer.from(r.newString, 'utf8') }
      : unsure('the file does not exist');
  }
  if (r.oldString === '') return unsure('the file exists, so Gemini CLI refuses to create it');
  if (!isUtf8(old)) return unsure('the file is not UTF-8 text');
  const raw = old.toString('utf8');
  const current = raw.replace(/\r\n/g, '\n');
  const search = r.oldString.replace(/\r\n/g, '\n');
  const replacement = r.newString.replace(/\r\n/g, '\n');
  const occurrences = current.split(search).length - 1;
  if (occurrences === 0) return unsure('old_string is not in the file as it is (Gemini CLI then tries looser matches)');
  if (occurrences > 1 && !r.allowMultiple) return unsure(`old_string occurs ${occurrences} times`);
  if (search === replacement) return unsure('old_string and new_string are the same');
  const text = keepTrailingNewline(current, literalReplaceAll(current, search, replacement));
  return { exact: true, next: written(text, raw) };
};
