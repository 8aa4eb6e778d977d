// What is wrong with a text JSON.parse refused, said for a person fixing the file: the parser's words without the
// copy of the text some of them carry, and the line and column when the parser gives a position.

/** Line and column (1-based) of a character offset. */
export const lineColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
};

export const jsonError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  // V8 quotes the whole text in some messages (`Unexpected token '}', "{...}" is not valid JSON`).
  const words = message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const at = /at position (\d+)/.exec(message);
  if (!at) return words;
  const { line, column } = lineColumn(text, Number(at[1]));
  return `${words} at line ${line}, column ${column}`;
};

/** Past a JSON string starting at `i` (its opening quote): the index after its closing quote. */
const pastString = (text: string, i: number): number => {
  let at = i + 1;
  while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  return at + 1;
};

/** Past the JSON value starting at `i` (whitespace skipped first). */
const pastValue = (text: string, i: number): number => {
  let at = skipSpace(text, i);
  if (text[at] === '"') return pastString(text, at);
  if (text[at] !== '{' && text[at] !== '[') {
    while (at < text.length && !/[\s,\]}]/.test(text[at] as string)) at++;
    return at;
  }
  let depth = 0;
  do {
    const c = text[at];
    if (c === '"') at = pastString(text, at);
    else {
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      at++;
    }
  } while (depth > 0 && at < text.length);
  return at;
};

const skipSpace = (text: string, i: number): number => {
  let at = i;
  while (at < text.length && /\s/.test(text[at] as string)) at++;
  return at;
};

/**
 * The line (1-based) of the value at `path` (property names and array indexes) in a text JSON.parse accepted, for
 * an error that names a key: the deepest part of the path the text has. Never throws.
 */
export const lineOfPath = (text: string, path: readonly (string | number)[]): number => {
  let at = skipSpace(text, 0);
  for (const step of path) {
    const open = text[at];
    if (open !== '{' && open !== '[') break;
    let i = skipSpace(text, at + 1);
    let found = -1;
    for (let n = 0; i < text.length && text[i] !== '}' && text[i] !== ']'; n++) {
      let key: string | number = n;
      if (open === '{') {
        const end = pastString(text, i);
        key = JSON.parse(text.slice(i, end)) as string;
        i = skipSpace(text, end) + 1; // the ':'
      }
      const value = skipSpace(text, i);
      if (key === step) {
        found = value;
        break;
      }
      i = skipSpace(text, pastValue(text, value));
      if (text[i] === ',') i = skipSpace(text, i + 1);
    }
    if (found < 0) break;
    at = found;
  }
  return lineColumn(text, at).line;
};
